// Differential property test: MemFileSystem against Linux.
//
// RapidCheck generates sequences of FileSystem and WritableFile calls over a small universe
// of paths below "/w" (a few names, up to three levels deep, plus the directories and files
// that CreateUniqueDir/CreateUniqueFile made), many of them bound to fail: missing parents,
// files where directories are expected, rmdir of non-empty directories, writes to files
// that were unlinked while open, double closes, malformed paths. Each sequence runs on a
// PosixFileSystem rooted in a fresh private temp dir and on a MemFileSystem, and every
// result must agree: ok-ness, code, errno, op, path and the returned value. Linux is the
// oracle; a disagreement is a bug in MemFileSystem. The harness (paths, outcomes, the two
// sides, generators) is in file_system_differential_harness.h; the commands are here.
//
// Run as root, Linux skips permission checks, and so does MemFileSystem
// (enforce_permissions = geteuid() != 0); run as an ordinary user, both enforce them. As
// root, MemAgreesWithLinuxAsAnUnprivilegedUser runs the property again in a child that
// has given up root, so that permission errors are compared too.
//
// Sequences: kDefaultSequences unless RC_PARAMS sets max_success. Every other RC_PARAMS
// key (seed, max_size, reproduce, verbose_progress, ...) works as RapidCheck documents.

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>
#include <rapidcheck/state.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <optional>
#include <ostream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "file_system_differential_harness.h"
#include "spillway/vfs/file_system.h"
#include "spillway/vfs/status.h"
#include "support/unprivileged_child.h"

namespace spillway::differential {
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

// ---- Command families ---------------------------------------------------------------

using Command = rc::state::Command<Model, Sut>;

// A string literal as a template argument: the name a command shows.
template <size_t N>
struct Name {
  // Implicit, so that a literal can be written as the template argument.
  constexpr Name(const char (&text)[N]) { std::copy_n(text, N, chars); }
  char chars[N];
};

// A command made on both sides, whose outcomes must agree. Logs what it did and what
// came of it.
class ComparedCommand : public Command {
 public:
  void run(const Model& /*model*/, Sut& sut) const override {
    const Outcome outcome = sut.Compare([this](Side& side) { return OnSide(side); });
    std::ostringstream line;
    show(line);
    RC_LOG() << line.str() << " -> " << outcome << "\n";
  }

 protected:
  // The command on one side.
  virtual Outcome OnSide(Side& side) const = 0;
};

// A command on one path. Subclasses define Call (what to do on one side) and show.
class PathCommand : public ComparedCommand {
 public:
  explicit PathCommand(const Model& model) : path_(*GenPath(model)) {}

  void checkPreconditions(const Model& model) const override {
    RC_PRE(path_.base_slot < model.unique_slots);
  }

 protected:
  Outcome OnSide(Side& side) const final {
    const std::optional<std::string> path = side.Resolve(path_);
    if (!path.has_value()) return Skipped(side);
    return Call(side, *path);
  }
  // Its base slot holds nothing, so the call is not made. A call that would have bound a
  // slot binds an empty one, as a failed call does.
  virtual Outcome Skipped(Side& /*side*/) const {
    return Outcome{StatusCode::kOk, 0, "", "",
                   "skipped: u" + std::to_string(path_.base_slot) + " is not bound"};
  }
  virtual Outcome Call(Side& side, const std::string& path) const = 0;

  const PathSpec path_;
};

// `kCall` on a path, returning only a Status: CreateDir, RemoveFile, RemoveDir, RemoveTree.
template <Name kName, Status (FileSystem::*kCall)(const std::string&)>
class StatusPathCommand final : public PathCommand {
 public:
  using PathCommand::PathCommand;
  Outcome Call(Side& side, const std::string& path) const override {
    return side.Of((side.fs().*kCall)(path));
  }
  void show(std::ostream& os) const override { os << kName.chars << "(" << path_ << ")"; }
};

// `kCall` opening the file at a path into the next handle slot: CreateFile, OpenForAppend.
template <Name kName,
          StatusOr<std::unique_ptr<WritableFile>> (FileSystem::*kCall)(const std::string&)>
class OpenPathCommand final : public PathCommand {
 public:
  using PathCommand::PathCommand;
  void apply(Model& model) const override { ++model.handle_slots; }
  Outcome Skipped(Side& side) const override {
    side.BindHandle(nullptr);
    return PathCommand::Skipped(side);
  }
  Outcome Call(Side& side, const std::string& path) const override {
    return BindOpened(side, (side.fs().*kCall)(path));
  }
  void show(std::ostream& os) const override {
    os << kName.chars << "(" << path_ << ") opening the next h";
  }
};

// A command on an open file (handle slot). Subclasses define Call and show.
class HandleCommand : public ComparedCommand {
 public:
  explicit HandleCommand(const Model& model) {
    RC_PRE(model.handle_slots > 0);
    slot_ = *rc::gen::inRange(0, model.handle_slots);
  }

  void checkPreconditions(const Model& model) const override { RC_PRE(slot_ < model.handle_slots); }

 protected:
  Outcome OnSide(Side& side) const final {
    WritableFile* file = side.Handle(slot_);
    if (file == nullptr) {
      return Outcome{StatusCode::kOk, 0, "", "",
                     "skipped: h" + std::to_string(slot_) + " holds no file"};
    }
    return Call(side, *file);
  }
  virtual Outcome Call(Side& side, WritableFile& file) const = 0;

  int slot_ = 0;
};

// `kCall` on an open file, returning only a Status: Sync, Close.
template <Name kName, Status (WritableFile::*kCall)()>
class StatusHandleCommand final : public HandleCommand {
 public:
  using HandleCommand::HandleCommand;
  Outcome Call(Side& side, WritableFile& file) const override { return side.Of((file.*kCall)()); }
  void show(std::ostream& os) const override { os << "h" << slot_ << "." << kName.chars << "()"; }
};

// ---- Path commands ------------------------------------------------------------------

using CreateDirCommand = StatusPathCommand<"CreateDir", &FileSystem::CreateDir>;
using RemoveFileCommand = StatusPathCommand<"RemoveFile", &FileSystem::RemoveFile>;
using RemoveDirCommand = StatusPathCommand<"RemoveDir", &FileSystem::RemoveDir>;
using CreateFileCommand = OpenPathCommand<"CreateFile", &FileSystem::CreateFile>;
using OpenForAppendCommand = OpenPathCommand<"OpenForAppend", &FileSystem::OpenForAppend>;

// RemoveTree: compared as any call, except when it fails part way on both sides (a
// directory it cannot list or empty). Entries go in name order, and unique names sort
// differently on the two sides, so which entries went first and which blocking path (and
// call) the error names depend on the order: then the error's code and errno must agree,
// and each side keeps
// only what both kept (KeepWhatBothKept), which must then agree in full.
class RemoveTreeCommand final : public PathCommand {
 public:
  using PathCommand::PathCommand;
  void run(const Model& /*model*/, Sut& sut) const override {
    const Outcome on_posix = OnSide(sut.posix());
    const Outcome on_mem = OnSide(sut.mem());
    RC_LOG() << "RemoveTree(" << path_ << ") -> " << on_posix << " / " << on_mem << "\n";
    if (on_posix.code == StatusCode::kOk || on_mem.code == StatusCode::kOk) {
      RC_ASSERT(on_posix == on_mem);
      return;
    }
    RC_ASSERT(on_posix.code == on_mem.code);
    RC_ASSERT(on_posix.error_number == on_mem.error_number);
    const std::string error = KeepWhatBothKept(sut);
    if (!error.empty()) RC_FAIL(error);
    RC_ASSERT(Tree(sut.posix()) == Tree(sut.mem()));
  }
  Outcome Call(Side& side, const std::string& path) const override {
    return side.Of(side.fs().RemoveTree(path));
  }
  void show(std::ostream& os) const override { os << "RemoveTree(" << path_ << ")"; }
};

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

// ---- Handle commands ----------------------------------------------------------------

using SyncCommand = StatusHandleCommand<"Sync", &WritableFile::Sync>;
using CloseCommand = StatusHandleCommand<"Close", &WritableFile::Close>;

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

// ---- The property -------------------------------------------------------------------

// One run of the property: a sequence of calls on both sides, which must agree.
void MemAgreesWithLinux() {
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

RC_GTEST_PROP(FileSystemDifferentialTest, MemAgreesWithLinux, ()) { MemAgreesWithLinux(); }

// Root skips permission checks, so as root the property above never compares EACCES. Here
// it runs again in a child that has switched to an unprivileged user (as the conformance
// suite does), where Linux and the MemFileSystem (enforce_permissions = geteuid() != 0)
// both check permissions. Not root: the property above already checked them.
TEST(FileSystemDifferentialTest, MemAgreesWithLinuxAsAnUnprivilegedUser) {
  if (::geteuid() != 0) GTEST_SKIP() << "not root: MemAgreesWithLinux checked permissions";
  switch (test_support::RunAsUnprivilegedChild([] {
    return rc::check("MemAgreesWithLinux as an unprivileged user", &MemAgreesWithLinux);
  })) {
    case test_support::ChildOutcome::kPassed:
      return;
    case test_support::ChildOutcome::kCannotSwitch:
      GTEST_SKIP() << "cannot switch to uid " << test_support::kUnprivilegedId;
    case test_support::ChildOutcome::kFailed:
    case test_support::ChildOutcome::kNoChild:
      ADD_FAILURE() << "Mem and Linux disagree as uid " << test_support::kUnprivilegedId
                    << " (printed above)";
  }
}

}  // namespace
}  // namespace spillway::differential
