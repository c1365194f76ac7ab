// The harness of the differential property test (file_system_differential_test.cc): the
// universe of paths, the comparable outcome of a call, the two filesystems side by side,
// the generators of arguments, and renderings of what a call returned or a tree holds.
//
// Every generated path lives below kTop. Unique names are random on POSIX, so each
// successful CreateUnique* call binds its result to a symbolic slot (u0, u1, ...): later
// calls can use it as a base path on both sides, and paths in results are compared with
// the bound names replaced by their symbols. Files opened by a call are bound to handle
// slots (h0, h1, ...) the same way.
//
// Thread safety: none; one property run owns one Sut.
#ifndef SPILLWAY_TESTS_PROPERTY_FILE_SYSTEM_DIFFERENTIAL_HARNESS_H_
#define SPILLWAY_TESTS_PROPERTY_FILE_SYSTEM_DIFFERENTIAL_HARNESS_H_

#include <rapidcheck.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "spillway/vfs/file_system.h"
#include "spillway/vfs/status.h"
#include "support/temp_dir.h"

namespace spillway::differential {

// Every generated path lives below this directory, which each sequence starts with.
inline constexpr std::string_view kTop = "/w";
// One byte longer than NAME_MAX: ENAMETOOLONG wherever it is looked up.
inline const std::string kLongName(256, 'n');

// ---- Paths --------------------------------------------------------------------------

// A path in the universe: a base (kTop, or the path bound to a unique slot) and names
// below it; or a malformed path, used verbatim.
struct PathSpec {
  std::optional<std::string> malformed;
  int base_slot = -1;  // -1 means kTop.
  std::vector<std::string> names;
};

std::ostream& operator<<(std::ostream& os, const PathSpec& path);

// Quotes `data` for people: printable bytes as they are, others as \xNN.
std::string Quote(std::string_view data);

// True when `path` is `parent`/`prefix` followed by a non-empty run of [A-Za-z0-9].
bool IsUniqueName(const std::string& path, const std::string& parent, const std::string& prefix);

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

std::ostream& operator<<(std::ostream& os, const Outcome& outcome);

// One filesystem and the slots bound on it.
class Side {
 public:
  explicit Side(std::shared_ptr<FileSystem> fs) : fs_(std::move(fs)) {}

  FileSystem& fs() { return *fs_; }

  // The real path of `spec` on this side; nullopt when its base slot holds nothing.
  std::optional<std::string> Resolve(const PathSpec& spec) const;

  // `path` with the longest bound unique path it starts with replaced by its symbol.
  std::string Symbolic(std::string_view path) const;

  Outcome Of(const Status& status, std::string value = "") const;

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

// Renders the opened file for an Outcome and binds it to the next handle slot.
Outcome BindOpened(Side& side, StatusOr<std::unique_ptr<WritableFile>> opened);

// The two filesystems side by side: a PosixFileSystem rooted in a fresh private temp dir
// and a MemFileSystem, each holding kTop. Run as root, Linux skips permission checks, and
// so does the MemFileSystem (enforce_permissions = geteuid() != 0). The temp dir is
// declared first so that it is removed last, after every open file has been closed.
class Sut {
 public:
  Sut();

  // Empty when both filesystems are ready; why not otherwise.
  const std::string& error() const { return error_; }

  Side& posix() { return *posix_; }
  Side& mem() { return *mem_; }

  // Runs `call` (Side& -> Outcome) on both sides and asserts that the outcomes agree.
  template <typename Call>
  Outcome Compare(const Call& call) {
    Outcome on_posix = call(*posix_);  // Not const: returned, so moved.
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

rc::Gen<std::string> GenName();
// A path below kTop or below a bound unique slot (< model.unique_slots), or a malformed
// one.
rc::Gen<PathSpec> GenPath(const Model& model);
rc::Gen<std::string> GenPrefix();
rc::Gen<std::string> GenData();
rc::Gen<uint32_t> GenMode();

// ---- Renderings ---------------------------------------------------------------------

std::string ModeString(uint32_t mode);
// "file size=N mode=0NNN" and the like.
std::string RenderStat(const FileStat& stat);
// Entries as "name:type", names symbolic, in symbolic-name order (each side's own order
// is checked separately, since random names sort differently on the two sides).
std::string RenderEntries(const Side& side, const std::string& dir,
                          const std::vector<DirEntry>& entries);
bool SortedByName(const std::vector<DirEntry>& entries);
// Everything below kTop on `side` as one line per path: Stat, and ListDir or ReadFile,
// in symbolic-name order, errors included.
std::vector<std::string> Tree(Side& side);

// After a tree removal that failed part way on both sides: entries are removed in name
// order and unique names are random on POSIX but seeded in memory, so the two sides may
// have removed different entries before stopping. Removes from each side what the other
// no longer holds (below kTop, as far as both can list), so that both hold what both
// kept. Returns what failed, or an empty string.
std::string KeepWhatBothKept(Sut& sut);

}  // namespace spillway::differential

#endif  // SPILLWAY_TESTS_PROPERTY_FILE_SYSTEM_DIFFERENTIAL_HARNESS_H_
