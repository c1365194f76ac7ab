// The leftover check that ends every model run (DropEverything): what a crash, a racing
// process or a reported failed removal left is excused, and nothing else is.
#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "spillway/model/spill_model.h"
#include "spillway/scenario/scenario.h"
#include "spillway/vfs/glob.h"
#include "spillway/vfs/status.h"
#include "support/scenario_test_support.h"

namespace spillway::model {
namespace {

std::vector<scenario::Command> Commands(const std::string& text) {
  return test_support::MustParse(text).commands;
}

// A crash keeps its plan's directory whole, files and all, even when the CleanupLog
// reported a file in it before the crash (f0's failed removal); the file a racing process
// made in /l1 (the injected EEXIST) stays too. A counterexample the property found: the
// leftover check once took the reported file as excusing the directory, so it spent the
// racing file's excuse on the crashed plan's f1 and then reported the racing file.
TEST(LeftoverCheckTest, ACrashedDirectoryHoldingAReportedFileStaysWhole) {
  const std::string program = R"(fault remove EIO
plan p1 /l0
spill f0 p1
spill f1 p1
drop f0
fault create EEXIST
crash
plan p3 /l1
spill f3 p3
)";
  const Program p = ProgramFromLines(Commands(program));
  ASSERT_EQ(p.commands.size(), 9u) << "a line was not valid where it stands";
  std::string text;
  const std::optional<Violation> v = RunProgram(p, {}, &text);
  EXPECT_FALSE(v.has_value()) << v->message << "\n" << text;
}

// The leftover check at the end still reports what nothing excuses: a spill-named
// directory no crash and no racing process left, and a file no one reported in a
// directory the CleanupLog reports (its plan's rmdir failed).
TEST(LeftoverCheckTest, AnUnexcusedDirectoryOrFileIsALeftover) {
  const std::string program = R"(plan p /l0
spill f p
drop f
fault rmdir EIO
drop p
)";
  // Runs `program`, then makes `stray(runner)` with a `file` or `dir` line, then drops
  // everything.
  auto run = [&](const std::function<std::string(scenario::Runner&)>& stray) {
    StatusOr<std::unique_ptr<scenario::Runner>> runner =
        scenario::Runner::Create(scenario::RunnerOptions{});
    EXPECT_TRUE(runner.ok());
    SpillSut sut{runner->get()};
    SpillModel s = InitialState(scenario::FsKind::kMem);
    const Program p = ProgramFromLines(Commands(program));
    EXPECT_EQ(p.commands.size(), 5u) << "a line was not valid where it stands";
    for (const CommandPtr& command : p.commands) {
      EXPECT_FALSE(command->Execute(s, sut).has_value()) << command->ToText();
      command->Apply(s);
    }
    if (stray != nullptr) {
      std::string message;
      for (const scenario::Command& line : Commands(stray(**runner))) {
        EXPECT_EQ((*runner)->Step(line, &message), scenario::StepResult::kOk) << message;
      }
    }
    std::string drops;
    return DropEverything(s, sut, &drops);
  };
  EXPECT_FALSE(run(nullptr).has_value());

  const std::optional<Violation> dir =
      run([](scenario::Runner&) { return std::string("dir /l1/datafusion-stray\n"); });
  ASSERT_TRUE(dir.has_value());
  EXPECT_EQ(dir->kind, InvariantKind::kLeftover);
  EXPECT_NE(dir->message.find("/l1/datafusion-stray is still there"), std::string::npos)
      << dir->message;

  std::string stray_file;
  const std::optional<Violation> file = run([&](scenario::Runner& runner) {
    const std::vector<std::string> dirs = ExpandGlob(runner.base_fs(), "/l0/datafusion-*");
    EXPECT_EQ(dirs.size(), 1u);  // p's, kept by its failed rmdir.
    stray_file = dirs.empty() ? "/l0/none" : dirs[0] + "/stray";
    return "file " + stray_file + "\n";
  });
  ASSERT_TRUE(file.has_value());
  EXPECT_EQ(file->kind, InvariantKind::kLeftover);
  EXPECT_NE(file->message.find(stray_file + " is still there"), std::string::npos) << file->message;
}

}  // namespace
}  // namespace spillway::model
