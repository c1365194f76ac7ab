// The model's `kill N`: the process dies at a call inside the next operations, and the
// model predicts what the dead process left (a spill directory made but never used, one
// its manager failed to remove) and that a reap takes all of it back. The expected texts
// are worked out from the calls each operation makes (spill_model.h), not taken from the
// model's output.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "spillway/model/model_rules.h"
#include "spillway/model/spill_model.h"
#include "spillway/scenario/scenario.h"
#include "spillway/spill/quirks.h"
#include "support/model_test_support.h"

namespace spillway::model {
namespace {

// The model's text for `program` is `expected`, and the managers agree (ExpectPredictions);
// with `quirks`, the managers break `kind`.
void ExpectKill(const std::string& program, const std::string& expected, Quirks quirks,
                InvariantKind kind) {
  ExpectPredictions(program, expected);
  for (const scenario::FsKind fs : {scenario::FsKind::kMem, scenario::FsKind::kPosix}) {
    scenario::RunnerOptions options;
    options.fs = fs;
    options.quirks = quirks;
    std::string text;
    const std::optional<Violation> v =
        RunProgram(ProgramFromLines(Lines(program), fs), options, &text);
    ASSERT_TRUE(v.has_value()) << text;
    EXPECT_EQ(v->kind, kind) << v->message;
  }
}

// The first spill of a lazy plan makes a stat of its local dir, a mkdir of its spill
// directory, then the create of the file: killed at the create, the directory stays,
// empty and unlocked, and the next process's reap removes it. A reap that skips empty
// directories leaves it, and the reap's invariant catches that.
TEST(KillModelTest, PredictsADirectoryMadeButNeverUsed) {
  ExpectKill(R"(dir /l0
plan p /l0
kill 3
spill f p
reap /l0
)",
             R"(dir /l0
plan p /l0
expect ok
expect count /l0/datafusion-* 0
kill 3
expect ok
spill f p
expect count /l0/datafusion-* 1
expect count /l*/datafusion-*/* 0
reap /l0
expect ok
expect count /l0/datafusion-* 0
expect count /l*/datafusion-*/* 0
)",
             Quirk::kReapSkipsEmpty, InvariantKind::kReap);
}

// Dropping a plan whose files are gone removes its directory: a list, then an rmdir.
// Killed at the rmdir, the directory stays; the reap takes it.
TEST(KillModelTest, PredictsADirectoryItsManagerDiedRemoving) {
  ExpectKill(R"(dir /l0
plan p /l0
spill f p
drop f
kill 2
drop p
reap /l0
)",
             R"(dir /l0
plan p /l0
expect ok
expect count /l0/datafusion-* 0
spill f p
expect ok
expect files p 1
expect count /l0/datafusion-* 1
expect spills p 1
expect spilled p 0
drop f
expect ok
expect used p 0
expect files p 0
expect count /l0/datafusion-* 1
expect count /l*/datafusion-*/* 0
kill 2
expect ok
drop p
expect count /l0/datafusion-* 1
expect count /l*/datafusion-*/* 0
reap /l0
expect ok
expect count /l0/datafusion-* 0
expect count /l*/datafusion-*/* 0
)",
             Quirk::kReapSkipsEmpty, InvariantKind::kReap);
}

// A plan on two local dirs puts each file in one of them at random, so the model cannot
// name a file's directory. Killed at the removal of such a file, the process leaves it
// wherever it is, as a crash leaves an open file; the model follows the line (a removal
// that fails for another reason it cannot), and the reap takes both directories back.
TEST(KillModelTest, FollowsAKillAtTheRemovalOfAFileInADirectoryItCannotName) {
  const std::vector<scenario::Command> lines = Lines(R"(plan p /l0,/l1
spill f p
spill g p
kill 1
drop f
reap /l0,/l1
)");
  const Program program = ProgramFromLines(lines);
  EXPECT_EQ(program.commands.size(), lines.size()) << "a command was not valid where it stands";
  std::string text;
  const std::optional<Violation> v = RunProgram(program, scenario::RunnerOptions{}, &text);
  EXPECT_FALSE(v.has_value()) << v->message << "\n" << text;
}

// The drops at the end of a run follow the model until a drop it cannot predict (here an
// injected EIO on a file whose directory it cannot name); the drops after it run on the
// managers alone. When a pending kill fires during one of them, the names after it died
// with the process: the drops stop there and the check of what is left counts the dead
// process's directories as a crash's.
TEST(KillModelTest, DropsAtTheEndStopWhenAKillTheModelDoesNotFollowFires) {
  const std::vector<scenario::Command> lines = Lines(R"(budget b 100
plan p /l0,/l1 budget=b
spill f p
kill 2
fault remove EIO
)");
  const Program program = ProgramFromLines(lines);
  ASSERT_EQ(program.commands.size(), lines.size());
  std::string text;
  const std::optional<Violation> v = RunProgram(program, scenario::RunnerOptions{}, &text);
  EXPECT_FALSE(v.has_value()) << v->message << "\n" << text;
  // f's removal fails (EIO), p's first call is the kill's; b is not dropped.
  EXPECT_NE(text.find("\ndrop p\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("drop b"), std::string::npos) << text;
}

// The kill counts every call of every kind, before any rule; it fires once, and then
// every call fails.
TEST(KillModelTest, RulesCountEveryCallUntilTheKillAndFailEveryOneAfter) {
  ModelRules rules;
  rules.Kill(2);
  EXPECT_TRUE(rules.KillPending());
  EXPECT_EQ(rules.Take(OpKind::kStat), 0);
  EXPECT_FALSE(rules.killed());
  EXPECT_EQ(rules.Take(OpKind::kMkdir), kKilled);
  EXPECT_TRUE(rules.killed());
  EXPECT_FALSE(rules.KillPending());
  EXPECT_EQ(rules.Take(OpKind::kRemove), kKilled);
}

}  // namespace
}  // namespace spillway::model
