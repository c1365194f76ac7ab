// The differential test's harness: see file_system_differential_harness.h.
#include "file_system_differential_harness.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "spillway/vfs/mem_file_system.h"
#include "spillway/vfs/posix_file_system.h"

namespace spillway::differential {
namespace {

// A name as a command shows it: a long one as its first byte and its length.
std::string ShowName(const std::string& name) {
  if (name.size() > 16) return name.substr(0, 1) + "{" + std::to_string(name.size()) + "}";
  return name;
}

// How results render a FileType.
std::string TypeName(FileType type) {
  switch (type) {
    case FileType::kRegular:
      return "file";
    case FileType::kDirectory:
      return "dir";
    case FileType::kSymlink:
      return "symlink";
    case FileType::kOther:
      return "other";
  }
  return "?";
}

}  // namespace

// ---- Paths --------------------------------------------------------------------------

std::ostream& operator<<(std::ostream& os, const PathSpec& path) {
  if (path.malformed.has_value()) return os << '"' << *path.malformed << '"';
  if (path.base_slot < 0) {
    os << kTop;
  } else {
    os << 'u' << path.base_slot;
  }
  for (const std::string& name : path.names) os << '/' << ShowName(name);
  return os;
}

// Quotes `data` for people: printable bytes as they are, others as \xNN.
std::string Quote(std::string_view data) {
  std::string out = "\"";
  for (const char c : data) {
    if (std::isprint(static_cast<unsigned char>(c)) != 0 && c != '"' && c != '\\') {
      out.push_back(c);
    } else {
      constexpr std::string_view kHex = "0123456789abcdef";
      const auto byte = static_cast<unsigned char>(c);
      out += "\\x";
      out.push_back(kHex[byte >> 4]);
      out.push_back(kHex[byte & 0xf]);
    }
  }
  out.push_back('"');
  return out;
}

// True when `path` is `parent`/`prefix` followed by a non-empty run of [A-Za-z0-9].
bool IsUniqueName(const std::string& path, const std::string& parent, const std::string& prefix) {
  const std::string start = JoinPath(parent, prefix);
  if (path.size() <= start.size() || path.compare(0, start.size(), start) != 0) return false;
  return std::all_of(path.begin() + static_cast<ptrdiff_t>(start.size()), path.end(),
                     [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; });
}

// ---- Model and system under test ----------------------------------------------------

std::ostream& operator<<(std::ostream& os, const Outcome& outcome) {
  if (outcome.code == StatusCode::kOk) {
    os << "OK";
  } else if (outcome.error_number != 0) {
    os << ErrnoName(outcome.error_number) << " from " << outcome.op << " on " << outcome.path;
  } else if (outcome.code == StatusCode::kInvalidArgument) {
    os << "INVALID";
  } else {
    os << "code " << static_cast<int>(outcome.code);
  }
  if (!outcome.value.empty()) os << " [" << outcome.value << "]";
  return os;
}

std::string ModeString(uint32_t mode) {
  std::ostringstream os;
  os << '0' << std::oct << mode;
  return os.str();
}

std::optional<std::string> Side::Resolve(const PathSpec& spec) const {
  if (spec.malformed.has_value()) return spec.malformed;
  std::string path(kTop);
  if (spec.base_slot >= 0) {
    if (static_cast<size_t>(spec.base_slot) >= unique_.size()) return std::nullopt;
    if (!unique_[spec.base_slot].has_value()) return std::nullopt;
    path = *unique_[spec.base_slot];
  }
  for (const std::string& name : spec.names) path = JoinPath(path, name);
  return path;
}

std::string Side::Symbolic(std::string_view path) const {
  int best = -1;
  size_t best_size = 0;
  for (size_t slot = 0; slot < unique_.size(); ++slot) {
    if (!unique_[slot].has_value()) continue;
    const std::string& bound = *unique_[slot];
    const bool under = path.size() > bound.size() && path[bound.size()] == '/' &&
                       path.substr(0, bound.size()) == bound;
    if ((path == bound || under) && bound.size() > best_size) {
      best = static_cast<int>(slot);
      best_size = bound.size();
    }
  }
  if (best < 0) return std::string(path);
  return "u" + std::to_string(best) + std::string(path.substr(best_size));
}

Outcome Side::Of(const Status& status, std::string value) const {
  Outcome outcome;
  outcome.code = status.code();
  outcome.error_number = status.error_number();
  outcome.op = status.op();
  outcome.path = Symbolic(status.path());
  outcome.value = std::move(value);
  return outcome;
}

// Renders the opened file for an Outcome and binds it to the next handle slot.
Outcome BindOpened(Side& side, StatusOr<std::unique_ptr<WritableFile>> opened) {
  if (!opened.ok()) {
    side.BindHandle(nullptr);
    return side.Of(opened.status());
  }
  std::string value = "opened " + side.Symbolic((*opened)->path());
  side.BindHandle(std::move(opened).value());
  return side.Of(OkStatus(), std::move(value));
}

Sut::Sut() {
  if (!temp_dir_.ok()) {
    error_ = temp_dir_.error();
    return;
  }
  PosixFileSystemOptions posix_options;
  posix_options.root = temp_dir_.path();
  posix_.emplace(NewPosixFileSystem(posix_options));
  MemFileSystemOptions mem_options;
  // As on Linux, root is not subject to permission checks.
  mem_options.enforce_permissions = ::geteuid() != 0;
  mem_.emplace(NewMemFileSystem(mem_options));
  for (Side* side : {&*posix_, &*mem_}) {
    if (Status status = side->fs().CreateDir(std::string(kTop)); !status.ok()) {
      error_ = status.ToString();
      return;
    }
  }
}

// ---- Generators ---------------------------------------------------------------------

rc::Gen<std::string> GenName() {
  return rc::gen::weightedElement<std::string>({{8, "a"}, {8, "b"}, {1, kLongName}});
}

rc::Gen<PathSpec> GenPath(const Model& model) {
  const int unique_slots = model.unique_slots;
  return rc::gen::exec([unique_slots] {
    PathSpec path;
    const int kind = unique_slots > 0 ? *rc::gen::weightedElement<int>({{1, 0}, {10, 1}, {6, 2}})
                                      : *rc::gen::weightedElement<int>({{1, 0}, {10, 1}});
    if (kind == 0) {
      path.malformed =
          *rc::gen::element<std::string>("", "w/a", "/w/", "/w//a", "/w/./a", "/w/a/..", "/w/a/");
      return path;
    }
    int depth = 0;
    if (kind == 1) {
      depth = *rc::gen::weightedElement<int>({{1, 0}, {4, 1}, {4, 2}, {2, 3}});
    } else {
      path.base_slot = *rc::gen::inRange(0, unique_slots);
      depth = *rc::gen::weightedElement<int>({{4, 0}, {3, 1}, {1, 2}});
    }
    for (int i = 0; i < depth; ++i) path.names.push_back(*GenName());
    return path;
  });
}

rc::Gen<std::string> GenPrefix() {
  return rc::gen::weightedElement<std::string>({{4, "d-"}, {4, "s-"}, {1, ""}, {1, "x/y"}});
}

rc::Gen<std::string> GenData() {
  return rc::gen::container<std::string>(*rc::gen::inRange<size_t>(0, 17),
                                         rc::gen::inRange<char>('a', 'z' + 1));
}

rc::Gen<uint32_t> GenMode() {
  return rc::gen::element<uint32_t>(0700, 0500, 0300, 0600, 0400, 0200, 0000, 0755);
}

// ---- Renderings ---------------------------------------------------------------------

std::string RenderStat(const FileStat& stat) {
  return TypeName(stat.type) + " size=" + std::to_string(stat.size) +
         " mode=" + ModeString(stat.mode);
}

// Entries as "name:type", names symbolic, in symbolic-name order (each side's own order
// is checked separately, since random names sort differently on the two sides).
std::string RenderEntries(const Side& side, const std::string& dir,
                          const std::vector<DirEntry>& entries) {
  std::vector<std::string> rendered;
  for (const DirEntry& entry : entries) {
    const std::string symbolic = side.Symbolic(JoinPath(dir, entry.name));
    rendered.push_back(symbolic.substr(symbolic.rfind('/') + 1) + ":" + TypeName(entry.type));
  }
  std::sort(rendered.begin(), rendered.end());
  std::string out;
  for (const std::string& r : rendered) out += (out.empty() ? "" : " ") + r;
  return out.empty() ? "empty" : out;
}

bool SortedByName(const std::vector<DirEntry>& entries) {
  return std::is_sorted(entries.begin(), entries.end(),
                        [](const DirEntry& a, const DirEntry& b) { return a.name < b.name; });
}

// ---- Whole-tree comparison ----------------------------------------------------------

namespace {

// Appends everything below `path` to `lines`, one line per path: Stat, and ListDir or
// ReadFile, errors included.
void RenderTree(Side& side, const std::string& path, std::vector<std::string>* lines) {
  StatusOr<FileStat> stat = side.fs().Stat(path);
  std::ostringstream line;
  line << side.Symbolic(path) << ": ";
  if (!stat.ok()) {
    line << side.Of(stat.status());
    lines->push_back(line.str());
    return;
  }
  line << RenderStat(*stat);
  if (stat->type == FileType::kRegular) {
    StatusOr<std::string> contents = side.fs().ReadFile(path);
    if (contents.ok()) {
      line << " " << Quote(*contents);
    } else {
      line << " " << side.Of(contents.status());
    }
    lines->push_back(line.str());
    return;
  }
  StatusOr<std::vector<DirEntry>> entries = side.fs().ListDir(path);
  if (!entries.ok()) {
    line << " " << side.Of(entries.status());
    lines->push_back(line.str());
    return;
  }
  lines->push_back(line.str());
  for (const DirEntry& entry : *entries) RenderTree(side, JoinPath(path, entry.name), lines);
}

}  // namespace

std::vector<std::string> Tree(Side& side) {
  std::vector<std::string> lines;
  RenderTree(side, std::string(kTop), &lines);
  std::sort(lines.begin(), lines.end());
  return lines;
}

namespace {

// Every path below `dir` that can be reached by listing, symbolic -> real.
void CollectPaths(Side& side, const std::string& dir, std::map<std::string, std::string>* paths) {
  StatusOr<std::vector<DirEntry>> entries = side.fs().ListDir(dir);
  if (!entries.ok()) return;
  for (const DirEntry& entry : *entries) {
    const std::string path = JoinPath(dir, entry.name);
    (*paths)[side.Symbolic(path)] = path;
    if (entry.type == FileType::kDirectory) CollectPaths(side, path, paths);
  }
}

// Removes from `side` (whose paths are `mine`) every path `other` does not hold, outermost
// first. Returns what failed, or an empty string.
std::string RemoveMissingFrom(Side& side, const std::map<std::string, std::string>& mine,
                              const std::map<std::string, std::string>& other) {
  std::string removed_root;  // The last path removed: what is under it went with it.
  for (const auto& [symbolic, real] : mine) {
    if (other.contains(symbolic)) continue;
    if (!removed_root.empty() && symbolic.starts_with(removed_root + "/")) continue;
    if (Status removed = side.fs().RemoveTree(real); !removed.ok()) {
      return "removing " + symbolic + ": " + removed.ToString();
    }
    removed_root = symbolic;
  }
  return "";
}

}  // namespace

std::string KeepWhatBothKept(Sut& sut) {
  std::map<std::string, std::string> on_posix, on_mem;
  CollectPaths(sut.posix(), std::string(kTop), &on_posix);
  CollectPaths(sut.mem(), std::string(kTop), &on_mem);
  std::string error = RemoveMissingFrom(sut.posix(), on_posix, on_mem);
  if (error.empty()) error = RemoveMissingFrom(sut.mem(), on_mem, on_posix);
  return error;
}

}  // namespace spillway::differential
