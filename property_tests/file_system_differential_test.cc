// Differential property test: MemFileSystem against Linux.
//
// RapidCheck generates sequences of FileSystem and WritableFile calls over a small universe
// of paths below "/w" (a few names, up to three levels deep, plus the directories and files
// that CreateUniqueDir/CreateUniqueFile made), many of them bound to fail: missing parents,
// files where directories are expected, rmdir of non-empty directories, writes to files
// that were unlinked while open, double closes, malformed paths. Each sequence runs on a
// PosixFileSystem rooted in a fresh private temp dir and on a MemFileSystem, and every
// result must agree: ok-ness, code, errno, op, path and the returned value. Linux is the
// oracle; a disagreement is a bug in MemFileSystem.
//
// Unique names are random on POSIX, so each successful CreateUnique* call binds its result
// to a symbolic slot (u0, u1, ...): later calls can use it as a base path on both sides,
// and paths in results are compared with the bound names replaced by their symbols.
//
// Run as root, Linux skips permission checks, and so does MemFileSystem
// (enforce_permissions = geteuid() != 0); run as an ordinary user, both enforce them.
//
// Sequences: kDefaultSequences unless RC_PARAMS sets max_success. Every other RC_PARAMS
// key (seed, max_size, reproduce, verbose_progress, ...) works as RapidCheck documents.

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>
#include <rapidcheck/state.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <optional>
#include <ostream>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "spillway/vfs/file_system.h"
#include "spillway/vfs/mem_file_system.h"
#include "spillway/vfs/posix_file_system.h"
#include "spillway/vfs/status.h"
#include "support/temp_dir.h"

namespace spillway {
namespace {

constexpr int kDefaultSequences = 1000;

// RapidCheck reads RC_PARAMS once, when the first property runs. Unless the caller chose
// max_success there, ask for kDefaultSequences; everything else in RC_PARAMS is kept.
// This runs during static initialization, before any test.
[[maybe_unused]] const bool kDefaultSequencesRequested = [] {
  const char* env = std::getenv("RC_PARAMS");
  std::string params = env == nullptr ? "" : env;
  if (params.find("max_success") != std::string::npos) return false;
  if (!params.empty()) params += ' ';
  params += "max_success=" + std::to_string(kDefaultSequences);
  return ::setenv("RC_PARAMS", params.c_str(), /*overwrite=*/1) == 0;
}();

// Every generated path lives below this directory, which each sequence starts with.
constexpr std::string_view kTop = "/w";
// One byte longer than NAME_MAX: ENAMETOOLONG wherever it is looked up.
const std::string kLongName(256, 'n');

// ---- Paths --------------------------------------------------------------------------

// A path in the universe: a base (kTop, or the path bound to a unique slot) and names
// below it; or a malformed path, used verbatim.
struct PathSpec {
  std::optional<std::string> malformed;
  int base_slot = -1;  // -1 means kTop.
  std::vector<std::string> names;
};

std::string ShowName(const std::string& name) {
  if (name.size() > 16) return name.substr(0, 1) + "{" + std::to_string(name.size()) + "}";
  return name;
}

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

// ---- Model and system under test ----------------------------------------------------

// What command generation needs to know: how many unique-name slots and file-handle slots
// exist. Every CreateUnique* call takes the next unique slot and every call that opens a
// file takes the next handle slot, whether or not it succeeds (a failed one stays empty).
struct Model {
  int unique_slots = 0;
  int handle_slots = 0;
};

// The outcome of one call on one side, in comparable form.
struct Outcome {
  StatusCode code = StatusCode::kOk;
  int error_number = 0;
  std::string op;
  std::string path;   // With bound unique names replaced by their symbols.
  std::string value;  // The returned value, rendered; empty when there is none.
  friend bool operator==(const Outcome&, const Outcome&) = default;
};

std::ostream& operator<<(std::ostream& os, const Outcome& outcome) {
  if (outcome.code == StatusCode::kOk) {
    os << "OK";
  } else if (outcome.code == StatusCode::kErrno) {
    os << ErrnoName(outcome.error_number) << " from " << outcome.op << " on " << outcome.path;
  } else if (outcome.code == StatusCode::kInvalidArgument) {
    os << "INVALID";
  } else {
    os << "code " << static_cast<int>(outcome.code);
  }
  if (!outcome.value.empty()) os << " [" << outcome.value << "]";
  return os;
}

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

std::string ModeString(uint32_t mode) {
  std::ostringstream os;
  os << '0' << std::oct << mode;
  return os.str();
}

// One filesystem and the slots bound on it.
class Side {
 public:
  explicit Side(std::shared_ptr<FileSystem> fs) : fs_(std::move(fs)) {}

  FileSystem& fs() { return *fs_; }

  // The real path of `spec` on this side; nullopt when its base slot holds nothing.
  std::optional<std::string> Resolve(const PathSpec& spec) const {
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

  // `path` with the longest bound unique path it starts with replaced by its symbol.
  std::string Symbolic(std::string_view path) const {
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

  Outcome Of(const Status& status, std::string value = "") const {
    Outcome outcome;
    outcome.code = status.code();
    outcome.error_number = status.error_number();
    outcome.op = status.op();
    outcome.path = Symbolic(status.path());
    outcome.value = std::move(value);
    return outcome;
  }

  // Binds the next unique slot: to `path` on success, to nothing otherwise.
  void BindUnique(std::optional<std::string> path) { unique_.push_back(std::move(path)); }
  size_t unique_slots() const { return unique_.size(); }

  // Takes the next handle slot, holding `file` (null when the open failed).
  void BindHandle(std::unique_ptr<WritableFile> file) { handles_.push_back(std::move(file)); }
  size_t handle_slots() const { return handles_.size(); }
  // The file in handle slot `slot`; null when the open failed or the file was dropped.
  WritableFile* Handle(int slot) const {
    return static_cast<size_t>(slot) < handles_.size() ? handles_[slot].get() : nullptr;
  }
  void DropHandle(int slot) {
    if (static_cast<size_t>(slot) < handles_.size()) handles_[slot].reset();
  }

 private:
  std::shared_ptr<FileSystem> fs_;
  std::vector<std::optional<std::string>> unique_;
  std::vector<std::unique_ptr<WritableFile>> handles_;
};

// The two filesystems side by side. The temp dir is declared first so that it is removed
// last, after every open file has been closed.
class Sut {
 public:
  Sut() {
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
    mem_.emplace(MemFileSystem::Create(mem_options));
    for (Side* side : {&*posix_, &*mem_}) {
      if (Status status = side->fs().CreateDir(std::string(kTop)); !status.ok()) {
        error_ = status.ToString();
        return;
      }
    }
  }

  // Empty when both filesystems are ready; why not otherwise.
  const std::string& error() const { return error_; }

  Side& posix() { return *posix_; }
  Side& mem() { return *mem_; }

  // Runs `call` (Side& -> Outcome) on both sides and asserts that the outcomes agree.
  template <typename Call>
  Outcome Compare(const Call& call) {
    const Outcome on_posix = call(*posix_);
    const Outcome on_mem = call(*mem_);
    RC_ASSERT(on_posix == on_mem);
    return on_posix;
  }

 private:
  test_support::TempDir temp_dir_;
  std::optional<Side> posix_;
  std::optional<Side> mem_;
  std::string error_;
};

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

// ---- Commands -----------------------------------------------------------------------

using Command = rc::state::Command<Model, Sut>;

// A command on one path. Subclasses define Call (what to do on one side) and Name.
class PathCommand : public Command {
 public:
  explicit PathCommand(const Model& model) : path_(*GenPath(model)) {}

  void checkPreconditions(const Model& model) const override {
    RC_PRE(path_.base_slot < model.unique_slots);
  }

  void run(const Model& /*model*/, Sut& sut) const override {
    const Outcome outcome = sut.Compare([this](Side& side) {
      const std::optional<std::string> path = side.Resolve(path_);
      if (!path.has_value()) return Skipped(side);
      return Call(side, *path);
    });
    std::ostringstream line;
    show(line);
    RC_LOG() << line.str() << " -> " << outcome << "\n";
  }

 protected:
  // Its base slot holds nothing, so the call is not made. A call that would have bound a
  // slot binds an empty one, as a failed call does.
  virtual Outcome Skipped(Side& /*side*/) const {
    return Outcome{StatusCode::kOk, 0, "", "",
                   "skipped: u" + std::to_string(path_.base_slot) + " is not bound"};
  }
  virtual Outcome Call(Side& side, const std::string& path) const = 0;

  const PathSpec path_;
};

class CreateDirCommand final : public PathCommand {
 public:
  using PathCommand::PathCommand;
  Outcome Call(Side& side, const std::string& path) const override {
    return side.Of(side.fs().CreateDir(path));
  }
  void show(std::ostream& os) const override { os << "CreateDir(" << path_ << ")"; }
};

// True when `path` is `parent`/`prefix` followed by a non-empty run of [A-Za-z0-9].
bool IsUniqueName(const std::string& path, const std::string& parent, const std::string& prefix) {
  const std::string start = JoinPath(parent, prefix);
  if (path.size() <= start.size() || path.compare(0, start.size(), start) != 0) return false;
  return std::all_of(path.begin() + static_cast<ptrdiff_t>(start.size()), path.end(),
                     [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; });
}

class CreateUniqueDirCommand final : public PathCommand {
 public:
  explicit CreateUniqueDirCommand(const Model& model) : PathCommand(model), prefix_(*GenPrefix()) {}
  void apply(Model& model) const override { ++model.unique_slots; }
  Outcome Skipped(Side& side) const override {
    side.BindUnique(std::nullopt);
    return PathCommand::Skipped(side);
  }
  Outcome Call(Side& side, const std::string& path) const override {
    StatusOr<std::string> created = side.fs().CreateUniqueDir(path, prefix_);
    if (!created.ok()) {
      side.BindUnique(std::nullopt);
      return side.Of(created.status());
    }
    RC_ASSERT(IsUniqueName(*created, path, prefix_));
    side.BindUnique(*created);
    return side.Of(OkStatus(), "made " + side.Symbolic(*created));
  }
  void show(std::ostream& os) const override {
    os << "CreateUniqueDir(" << path_ << ", " << Quote(prefix_) << ") binding the next u";
  }

 private:
  const std::string prefix_;
};

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

class CreateFileCommand final : public PathCommand {
 public:
  using PathCommand::PathCommand;
  void apply(Model& model) const override { ++model.handle_slots; }
  Outcome Skipped(Side& side) const override {
    side.BindHandle(nullptr);
    return PathCommand::Skipped(side);
  }
  Outcome Call(Side& side, const std::string& path) const override {
    return BindOpened(side, side.fs().CreateFile(path));
  }
  void show(std::ostream& os) const override {
    os << "CreateFile(" << path_ << ") opening the next h";
  }
};

class CreateUniqueFileCommand final : public PathCommand {
 public:
  explicit CreateUniqueFileCommand(const Model& model)
      : PathCommand(model), prefix_(*GenPrefix()) {}
  void apply(Model& model) const override {
    ++model.unique_slots;
    ++model.handle_slots;
  }
  Outcome Skipped(Side& side) const override {
    side.BindUnique(std::nullopt);
    side.BindHandle(nullptr);
    return PathCommand::Skipped(side);
  }
  Outcome Call(Side& side, const std::string& path) const override {
    StatusOr<std::unique_ptr<WritableFile>> created = side.fs().CreateUniqueFile(path, prefix_);
    if (!created.ok()) {
      side.BindUnique(std::nullopt);
      side.BindHandle(nullptr);
      return side.Of(created.status());
    }
    RC_ASSERT(IsUniqueName((*created)->path(), path, prefix_));
    side.BindUnique((*created)->path());
    return BindOpened(side, std::move(created));
  }
  void show(std::ostream& os) const override {
    os << "CreateUniqueFile(" << path_ << ", " << Quote(prefix_)
       << ") binding the next u and opening the next h";
  }

 private:
  const std::string prefix_;
};

class OpenForAppendCommand final : public PathCommand {
 public:
  using PathCommand::PathCommand;
  void apply(Model& model) const override { ++model.handle_slots; }
  Outcome Skipped(Side& side) const override {
    side.BindHandle(nullptr);
    return PathCommand::Skipped(side);
  }
  Outcome Call(Side& side, const std::string& path) const override {
    return BindOpened(side, side.fs().OpenForAppend(path));
  }
  void show(std::ostream& os) const override {
    os << "OpenForAppend(" << path_ << ") opening the next h";
  }
};

class ReadFileCommand final : public PathCommand {
 public:
  using PathCommand::PathCommand;
  Outcome Call(Side& side, const std::string& path) const override {
    StatusOr<std::string> contents = side.fs().ReadFile(path);
    if (!contents.ok()) return side.Of(contents.status());
    return side.Of(OkStatus(), Quote(*contents));
  }
  void show(std::ostream& os) const override { os << "ReadFile(" << path_ << ")"; }
};

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

class ListDirCommand final : public PathCommand {
 public:
  using PathCommand::PathCommand;
  Outcome Call(Side& side, const std::string& path) const override {
    StatusOr<std::vector<DirEntry>> entries = side.fs().ListDir(path);
    if (!entries.ok()) return side.Of(entries.status());
    RC_ASSERT(SortedByName(*entries));
    return side.Of(OkStatus(), RenderEntries(side, path, *entries));
  }
  void show(std::ostream& os) const override { os << "ListDir(" << path_ << ")"; }
};

std::string RenderStat(const FileStat& stat) {
  return TypeName(stat.type) + " size=" + std::to_string(stat.size) +
         " mode=" + ModeString(stat.mode);
}

class StatCommand final : public PathCommand {
 public:
  using PathCommand::PathCommand;
  Outcome Call(Side& side, const std::string& path) const override {
    StatusOr<FileStat> stat = side.fs().Stat(path);
    if (!stat.ok()) return side.Of(stat.status());
    return side.Of(OkStatus(), RenderStat(*stat));
  }
  void show(std::ostream& os) const override { os << "Stat(" << path_ << ")"; }
};

class RemoveFileCommand final : public PathCommand {
 public:
  using PathCommand::PathCommand;
  Outcome Call(Side& side, const std::string& path) const override {
    return side.Of(side.fs().RemoveFile(path));
  }
  void show(std::ostream& os) const override { os << "RemoveFile(" << path_ << ")"; }
};

class RemoveDirCommand final : public PathCommand {
 public:
  using PathCommand::PathCommand;
  Outcome Call(Side& side, const std::string& path) const override {
    return side.Of(side.fs().RemoveDir(path));
  }
  void show(std::ostream& os) const override { os << "RemoveDir(" << path_ << ")"; }
};

class RemoveTreeCommand final : public PathCommand {
 public:
  using PathCommand::PathCommand;
  Outcome Call(Side& side, const std::string& path) const override {
    return side.Of(side.fs().RemoveTree(path));
  }
  void show(std::ostream& os) const override { os << "RemoveTree(" << path_ << ")"; }
};

class SetPermissionsCommand final : public PathCommand {
 public:
  explicit SetPermissionsCommand(const Model& model) : PathCommand(model), mode_(*GenMode()) {}
  Outcome Call(Side& side, const std::string& path) const override {
    return side.Of(side.fs().SetPermissions(path, mode_));
  }
  void show(std::ostream& os) const override {
    os << "SetPermissions(" << path_ << ", " << ModeString(mode_) << ")";
  }

 private:
  const uint32_t mode_;
};

// A command on an open file (handle slot). Subclasses define Call and Name.
class HandleCommand : public Command {
 public:
  explicit HandleCommand(const Model& model) {
    RC_PRE(model.handle_slots > 0);
    slot_ = *rc::gen::inRange(0, model.handle_slots);
  }

  void checkPreconditions(const Model& model) const override { RC_PRE(slot_ < model.handle_slots); }

  void run(const Model& /*model*/, Sut& sut) const override {
    const Outcome outcome = sut.Compare([this](Side& side) {
      WritableFile* file = side.Handle(slot_);
      if (file == nullptr) {
        return Outcome{StatusCode::kOk, 0, "", "",
                       "skipped: h" + std::to_string(slot_) + " holds no file"};
      }
      return Call(side, *file);
    });
    std::ostringstream line;
    show(line);
    RC_LOG() << line.str() << " -> " << outcome << "\n";
  }

 protected:
  virtual Outcome Call(Side& side, WritableFile& file) const = 0;

  int slot_ = 0;
};

class AppendCommand final : public HandleCommand {
 public:
  explicit AppendCommand(const Model& model) : HandleCommand(model), data_(*GenData()) {}
  Outcome Call(Side& side, WritableFile& file) const override {
    AppendResult result = file.Append(data_);
    return side.Of(result.status, "wrote " + std::to_string(result.bytes_written));
  }
  void show(std::ostream& os) const override {
    os << "h" << slot_ << ".Append(" << Quote(data_) << ")";
  }

 private:
  const std::string data_;
};

class SyncCommand final : public HandleCommand {
 public:
  using HandleCommand::HandleCommand;
  Outcome Call(Side& side, WritableFile& file) const override { return side.Of(file.Sync()); }
  void show(std::ostream& os) const override { os << "h" << slot_ << ".Sync()"; }
};

class SizeCommand final : public HandleCommand {
 public:
  using HandleCommand::HandleCommand;
  Outcome Call(Side& side, WritableFile& file) const override {
    StatusOr<uint64_t> size = file.Size();
    if (!size.ok()) return side.Of(size.status());
    return side.Of(OkStatus(), "size " + std::to_string(*size));
  }
  void show(std::ostream& os) const override { os << "h" << slot_ << ".Size()"; }
};

class CloseCommand final : public HandleCommand {
 public:
  using HandleCommand::HandleCommand;
  Outcome Call(Side& side, WritableFile& file) const override { return side.Of(file.Close()); }
  void show(std::ostream& os) const override { os << "h" << slot_ << ".Close()"; }
};

// Destroys the WritableFile (an implicit close, errors dropped).
class DropCommand final : public HandleCommand {
 public:
  using HandleCommand::HandleCommand;
  Outcome Call(Side& side, WritableFile& /*file*/) const override {
    side.DropHandle(slot_);
    return side.Of(OkStatus(), "dropped");
  }
  void show(std::ostream& os) const override { os << "drop h" << slot_; }
};

// ---- Whole-tree comparison ----------------------------------------------------------

// Everything below `path` as one line per path: Stat, and ListDir or ReadFile, in
// symbolic-name order, errors included.
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

std::vector<std::string> Tree(Side& side) {
  std::vector<std::string> lines;
  RenderTree(side, std::string(kTop), &lines);
  std::sort(lines.begin(), lines.end());
  return lines;
}

// ---- The property -------------------------------------------------------------------

RC_GTEST_PROP(FileSystemDifferentialTest, MemAgreesWithLinux, ()) {
  Sut sut;
  if (!sut.error().empty()) RC_FAIL("cannot set up: " + sut.error());
  rc::state::check(
      Model{}, sut,
      rc::state::gen::execOneOfWithArgs<
          CreateDirCommand, CreateDirCommand, CreateUniqueDirCommand, CreateFileCommand,
          CreateFileCommand, CreateUniqueFileCommand, OpenForAppendCommand, ReadFileCommand,
          ListDirCommand, StatCommand, RemoveFileCommand, RemoveDirCommand, RemoveTreeCommand,
          SetPermissionsCommand, AppendCommand, AppendCommand, SyncCommand, SizeCommand,
          CloseCommand, DropCommand>());
  // Whatever the calls did not look at must agree too.
  RC_ASSERT(Tree(sut.posix()) == Tree(sut.mem()));
}

}  // namespace
}  // namespace spillway
