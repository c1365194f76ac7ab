// The spill model's predictions for small programs whose outcome follows from the
// contract (docs/scenarios.md and the headers), checked line by line, and then
// against the implementation. The expected texts are worked out from the contract, not
// taken from the model's output.
#include "spillway/model/spill_model.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "spillway/scenario/scenario.h"
#include "spillway/spill/quirks.h"
#include "support/model_test_support.h"

namespace spillway::model {
namespace {

// docs/scenarios.md's example: a plan that does not spill creates nothing, the limit refuses a
// write without counting it, the file outlives its plan, and then everything is gone.
TEST(SpillModelTest, PredictsTheDocumentedExample) {
  ExpectPredictions(R"(dir /l0
dir /l1
plan p /l0,/l1 limit=10
spill f p
write f 8
write f 8
drop p
drop f
)",
                    R"(dir /l0
dir /l1
plan p /l0,/l1 limit=10
expect ok
expect count /l0/datafusion-* 0
expect count /l1/datafusion-* 0
spill f p
expect ok
expect files p 1
expect count /l0/datafusion-* 1
expect count /l1/datafusion-* 1
expect spills p 1
expect spilled p 0
write f 8
expect ok
expect used p 8
expect size f 8
expect spills p 1
expect spilled p 8
write f 8
expect error LIMIT
expect used p 8
expect size f 8
expect spills p 1
expect spilled p 8
drop p
expect ok
expect count /l0/datafusion-* 1
expect count /l1/datafusion-* 1
expect count /l*/datafusion-*/* 1
drop f
expect ok
expect count /l0/datafusion-* 0
expect count /l1/datafusion-* 0
expect count /l*/datafusion-*/* 0
)");
}

// A failed create counts no file; the plan's directories were made by then and stay
// until the plan is dropped. An unusable local dir fails the plan at its first spill.
TEST(SpillModelTest, PredictsFailedCreatesAndMissingLocalDirs) {
  ExpectPredictions(R"(fault create EIO
plan p /l2
spill f p
spill g p
fault mkdir EACCES
plan q /l3
spill h q
drop p
)",
                    R"(fault create EIO
plan p /l2
expect ok
expect count /l2/datafusion-* 0
spill f p
expect error EIO
expect files p 0
expect count /l2/datafusion-* 1
expect spills p 0
expect spilled p 0
spill g p
expect ok
expect files p 1
expect count /l2/datafusion-* 1
expect spills p 1
expect spilled p 0
fault mkdir EACCES
plan q /l3
expect ok
expect count /l3/datafusion-* 0
spill h q
expect error EACCES
expect files q 0
expect count /l3/datafusion-* 0
expect spills q 0
expect spilled q 0
drop p
expect ok
expect count /l2/datafusion-* 1
expect count /l*/datafusion-*/* 1
)");
}

// A file whose removal fails stays on disk after its last handle goes; the directory's
// removal, once the plan is gone too, removes it (the rule failed only once).
TEST(SpillModelTest, PredictsAFileLeftBehindUntilItsDirectoryGoes) {
  ExpectPredictions(R"(dir /l0
plan p /l0
spill f p
write f 5
fault remove EIO
drop f
drop p
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
write f 5
expect ok
expect used p 5
expect size f 5
expect spills p 1
expect spilled p 5
fault remove EIO
drop f
expect ok
expect used p 0
expect files p 0
expect count /l0/datafusion-* 1
expect count /l*/datafusion-*/* 1
drop p
expect ok
expect count /l0/datafusion-* 0
expect count /l*/datafusion-*/* 0
)");
}

// A tmp cleaner removes two plans' directories: the plan with missing_dir=recreate makes a
// new one at its next spill, the other fails with ENOENT; a file the cleaner unlinked
// stays writable through its handle.
TEST(SpillModelTest, PredictsATmpCleaner) {
  ExpectPredictions(R"(dir /l0
plan p /l0 missing_dir=recreate
plan q /l0
spill f p
spill g q
clean /l0/datafusion-*
spill f2 p
spill g2 q
write f 5
)",
                    R"(dir /l0
plan p /l0 missing_dir=recreate
expect ok
expect count /l0/datafusion-* 0
plan q /l0
expect ok
expect count /l0/datafusion-* 0
spill f p
expect ok
expect files p 1
expect count /l0/datafusion-* 1
expect spills p 1
expect spilled p 0
spill g q
expect ok
expect files q 1
expect count /l0/datafusion-* 2
expect spills q 1
expect spilled q 0
clean /l0/datafusion-*
expect ok
expect count /l0/datafusion-* 0
expect count /l*/datafusion-*/* 0
spill f2 p
expect ok
expect files p 2
expect count /l0/datafusion-* 1
expect spills p 2
expect spilled p 0
spill g2 q
expect error ENOENT
expect files q 1
expect count /l0/datafusion-* 1
expect spills q 1
expect spilled q 0
write f 5
expect ok
expect used p 5
expect size f 5
expect spills p 2
expect spilled p 5
)");
}

// A short write counts the bytes it stored; a full filesystem stores what fits, then
// nothing.
TEST(SpillModelTest, PredictsShortWritesAndAFullDisk) {
  const std::vector<scenario::Command> lines = Lines(R"(capacity 10
plan p /l0
spill f p
short_write f 3
write f 8
write f 8
write f 1
)");
  const Program p = ProgramFromLines(lines);
  ASSERT_EQ(p.commands.size(), lines.size());
  EXPECT_EQ(p.commands[4]->ToText(),
            "write f 8\nexpect error EIO\nexpect used p 3\nexpect size f 3\n"
            "expect spills p 1\nexpect spilled p 3");  // The short write's 3 bytes count.
  EXPECT_EQ(p.commands[5]->ToText(),
            "write f 8\nexpect error ENOSPC\nexpect used p 10\nexpect size f 10\n"
            "expect spills p 1\nexpect spilled p 10");
  EXPECT_EQ(p.commands[6]->ToText(),
            "write f 1\nexpect error ENOSPC\nexpect used p 10\nexpect size f 10\n"
            "expect spills p 1\nexpect spilled p 10");
  EXPECT_FALSE(RunProgram(p, scenario::RunnerOptions{}).has_value());
}

// Where the manager's random choice of directory would decide the outcome, the line is
// not a valid model command: a cleaner removing one of a two-dir plan's directories while
// it holds a file, and then a spill of that plan.
// Faults that state facts (docs/scenarios.md): an EEXIST on the mkdir of a missing local
// dir means another plan made it first, and the spill goes on; an EEXIST on a spill file's
// create leaves a racing file and the create succeeds; an ENOENT on a create removes the
// spill directory it is made in, with every file in it (the racing one too).
TEST(SpillModelTest, PredictsTheFactsInjectedFaultsMakeTrue) {
  ExpectPredictions(R"(plan p /l0
fault mkdir EEXIST
spill f p
fault create EEXIST
spill g p
fault create ENOENT
spill h p
drop f
drop g
drop p
)",
                    R"(plan p /l0
expect ok
expect count /l0/datafusion-* 0
fault mkdir EEXIST
spill f p
expect ok
expect files p 1
expect count /l0/datafusion-* 1
expect spills p 1
expect spilled p 0
fault create EEXIST
spill g p
expect ok
expect files p 2
expect count /l0/datafusion-* 1
expect spills p 2
expect spilled p 0
fault create ENOENT
spill h p
expect error ENOENT
expect files p 2
expect count /l0/datafusion-* 0
expect spills p 2
expect spilled p 0
drop f
expect ok
expect used p 0
expect files p 1
expect count /l0/datafusion-* 0
expect count /l*/datafusion-*/* 0
drop g
expect ok
expect used p 0
expect files p 0
expect count /l0/datafusion-* 0
expect count /l*/datafusion-*/* 0
drop p
expect ok
expect count /l0/datafusion-* 0
expect count /l*/datafusion-*/* 0
)");
}

// A racing process's entries belong to no plan: a spill directory holding one stays after
// its plan is gone (its rmdir fails, recorded as left behind), and so does the racing
// spill directory next to it.
TEST(SpillModelTest, PredictsForeignEntriesThatStay) {
  ExpectPredictions(R"(dir /l0
plan p /l0
fault mkdir EEXIST
spill f p
fault create EEXIST
spill g p
drop f
drop g
drop p
)",
                    R"(dir /l0
plan p /l0
expect ok
expect count /l0/datafusion-* 0
fault mkdir EEXIST
spill f p
expect ok
expect files p 1
expect count /l0/datafusion-* 2
expect spills p 1
expect spilled p 0
fault create EEXIST
spill g p
expect ok
expect files p 2
expect count /l0/datafusion-* 2
expect spills p 2
expect spilled p 0
drop f
expect ok
expect used p 0
expect files p 1
expect count /l0/datafusion-* 2
expect count /l*/datafusion-*/* 2
drop g
expect ok
expect used p 0
expect files p 0
expect count /l0/datafusion-* 2
expect count /l*/datafusion-*/* 1
drop p
expect ok
expect count /l0/datafusion-* 2
expect count /l*/datafusion-*/* 1
)");
}

// layout=each makes a local dir's directory when a file lands there, and keeps it when
// the create in it fails; failover=on goes on to the next local dir, and the spill fails
// with the first error only when every one failed. Every directory made goes with the
// plan and its files.
TEST(SpillModelTest, PredictsLayoutEachAndFailover) {
  ExpectPredictions(R"(dir /l0
dir /l1
plan p /l0,/l1 layout=each failover=on
fault create ENOSPC
spill f p
plan q /l1 layout=each failover=on
fault mkdir EIO
spill g q
drop p
drop f
)",
                    R"(dir /l0
dir /l1
plan p /l0,/l1 layout=each failover=on
expect ok
expect count /l0/datafusion-* 0
expect count /l1/datafusion-* 0
fault create ENOSPC
spill f p
expect ok
expect files p 1
expect count /l0/datafusion-* 1
expect count /l1/datafusion-* 1
expect spills p 1
expect spilled p 0
plan q /l1 layout=each failover=on
expect ok
expect count /l1/datafusion-* 1
fault mkdir EIO
spill g q
expect error EIO
expect files q 0
expect count /l1/datafusion-* 1
expect spills q 0
expect spilled q 0
drop p
expect ok
expect count /l0/datafusion-* 1
expect count /l1/datafusion-* 1
expect count /l*/datafusion-*/* 1
drop f
expect ok
expect count /l0/datafusion-* 0
expect count /l1/datafusion-* 0
expect count /l*/datafusion-*/* 0
)");
}

TEST(SpillModelTest, RejectsLinesWhoseOutcomeIsNotPredictable) {
  const Program p = ProgramFromLines(Lines(R"(plan p /l0,/l1
spill f p
)"));
  ASSERT_EQ(p.commands.size(), 2u);
  EXPECT_EQ(MakeCommand(Lines("clean /l0/datafusion-*")[0], p.state), nullptr);
  EXPECT_NE(MakeCommand(Lines("clean /l*/datafusion-*")[0], p.state), nullptr);

  const Program without_files = ProgramFromLines(Lines(R"(plan p /l0,/l1
spill f p
drop f
clean /l0/datafusion-*
)"));
  ASSERT_EQ(without_files.commands.size(), 4u);
  EXPECT_EQ(MakeCommand(Lines("spill g p")[0], without_files.state), nullptr);

  // layout=each over two local dirs: one spill makes the directory of one of them, which
  // one the model cannot know; with every create failing over, both.
  const Program each = ProgramFromLines(Lines(R"(dir /l0
dir /l1
plan p /l0,/l1 layout=each failover=on
)"));
  ASSERT_EQ(each.commands.size(), 3u);
  EXPECT_EQ(MakeCommand(Lines("spill f p")[0], each.state), nullptr);
  SpillModel state = each.state;
  MakeCommand(Lines("fault create EIO times=2")[0], state)->Apply(state);
  EXPECT_NE(MakeCommand(Lines("spill f p")[0], state), nullptr);
}

// Names are never bound twice, nor used after drop; unknown names are not commands.
TEST(SpillModelTest, RejectsMalformedNames) {
  const Program p = ProgramFromLines(Lines(R"(plan p /l0
spill f p
drop f
)"));
  ASSERT_EQ(p.commands.size(), 3u);
  EXPECT_EQ(MakeCommand(Lines("spill f p")[0], p.state), nullptr);
  EXPECT_EQ(MakeCommand(Lines("write f 1")[0], p.state), nullptr);
  EXPECT_EQ(MakeCommand(Lines("plan p /l1")[0], p.state), nullptr);
  EXPECT_EQ(MakeCommand(Lines("spill g nope")[0], p.state), nullptr);
  EXPECT_NE(MakeCommand(Lines("spill g p")[0], p.state), nullptr);
}

// The violation `program` shows when run with `quirks` on the in-memory filesystem.
std::optional<Violation> RunWith(const std::string& program, Quirks quirks) {
  scenario::RunnerOptions options;
  options.quirks = quirks;
  return RunProgram(ProgramFromLines(Lines(program)), options);
}

// Two plans that share a manager under shared_limit: the second plan's first spill goes
// through the first plan's manager, and that is what is reported, not the directory its
// first spill did not make. Without the quirk the program holds.
TEST(SpillModelTest, APlanSpillingThroughAnotherPlansManagerIsCrossPlan) {
  const std::string program = R"(dir /l0
plan p0 /l0 limit=64
plan p1 /l0 limit=64
spill f0 p0
spill f1 p1
)";
  EXPECT_FALSE(RunWith(program, Quirks()).has_value());
  const std::optional<Violation> v = RunWith(program, Quirk::kSharedLimit);
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(v->kind, InvariantKind::kCrossPlanVisibility) << v->message;
  EXPECT_NE(v->message.find("plan p1 spills through the manager of plan p0"), std::string::npos)
      << v->message;
}

// A budget's usage is predicted while its plan keeps it alive, after `drop` too, so that
// `budget_after_add`'s charge of a refused write shows in the text by itself.
TEST(SpillModelTest, PredictsADroppedBudgetWhileItsPlanKeepsItAlive) {
  const std::string program =
      "dir /l0\nbudget b 10\nplan p /l0 budget=b\nspill f p\nwrite f 4\ndrop b\nwrite f 8\n"
      "drop p\ndrop f\n";
  ExpectPredictions(program, R"(dir /l0
budget b 10
expect ok
expect used b 0
plan p /l0 budget=b
expect ok
expect count /l0/datafusion-* 0
spill f p
expect ok
expect files p 1
expect count /l0/datafusion-* 1
expect spills p 1
expect spilled p 0
write f 4
expect ok
expect used p 4
expect used b 4
expect size f 4
expect spills p 1
expect spilled p 4
drop b
expect ok
write f 8
expect error LIMIT
expect used p 4
expect used b 4
expect size f 4
expect spills p 1
expect spilled p 4
drop p
expect ok
expect count /l0/datafusion-* 1
expect count /l*/datafusion-*/* 1
drop f
expect ok
expect count /l0/datafusion-* 0
expect count /l*/datafusion-*/* 0
)");
  // The text fails by itself with the quirk (exit 1: the budget holds 12), not without.
  const std::string text = ScenarioText(ProgramFromLines(Lines(program)).commands);
  const scenario::RunnerOptions options;
  EXPECT_EQ(scenario::RunScenarioText(QuirkLines(Quirk::kBudgetAfterAdd) + text, "with_quirk",
                                      options, false, stdout, stderr),
            1);
  EXPECT_EQ(scenario::RunScenarioText(text, "without", options, false, stdout, stderr), 0);
}

// Every quirk names an invariant; one spelled like an invariant (outer_accounting) names that
// invariant, so that --quirk NAME and the kind simulate prints are the same word.
TEST(SpillModelTest, EveryQuirkNamesAnInvariant) {
  for (const Quirk q : AllQuirks()) {
    const std::optional<InvariantKind> kind = QuirkInvariant(q);
    ASSERT_TRUE(kind.has_value()) << q;
    const std::optional<InvariantKind> same_name =
        vocab::ParseName<InvariantKindName>(QuirkName(q));
    if (same_name) {
      EXPECT_EQ(InvariantKindName(*kind), InvariantKindName(*same_name)) << q;
    }
  }
  EXPECT_EQ(vocab::ParseName<InvariantKindName>(QuirkName(Quirk::kOuterAccounting)),
            InvariantKind::kOuterAccounting);
}

// The rules due for a kind fail its calls in the order they were added, a rule that fails
// every call hides those after it, and a copy goes on from where it was made without
// changing the original.
TEST(ModelRulesTest, FailsCallsInOrderAndCopiesGoTheirOwnWay) {
  ModelRules rules;
  rules.Add(OpKind::kRmdir, EIO, 2);
  rules.Add(OpKind::kRmdir, EIO, 1);
  rules.Add(OpKind::kRmdir, EACCES, 1);
  rules.Add(OpKind::kStat, ENOENT, 0);  // Fails no call.
  EXPECT_FALSE(rules.Due(OpKind::kStat));
  EXPECT_EQ(rules.Take(OpKind::kStat), 0);
  EXPECT_EQ(rules.Take(OpKind::kRmdir), EIO);
  ModelRules copy = rules;
  copy.Add(OpKind::kRmdir, ENOENT, 1);
  for (const int e : {EIO, EIO, EACCES, ENOENT, 0}) EXPECT_EQ(copy.Take(OpKind::kRmdir), e);
  EXPECT_FALSE(copy.Due(OpKind::kRmdir));
  for (const int e : {EIO, EIO, EACCES, 0}) EXPECT_EQ(rules.Take(OpKind::kRmdir), e);

  rules.Add(OpKind::kList, EIO, 1);
  rules.Add(OpKind::kList, ENOENT, std::nullopt);
  rules.Add(OpKind::kList, EACCES, 1);  // Behind a rule that fails every call.
  EXPECT_TRUE(rules.LimitedDue(OpKind::kList));
  EXPECT_EQ(rules.Take(OpKind::kList), EIO);
  EXPECT_FALSE(rules.LimitedDue(OpKind::kList));
  for (int i = 0; i < 3; ++i) EXPECT_EQ(rules.Take(OpKind::kList), ENOENT);
  EXPECT_TRUE(rules.Due(OpKind::kList));
  EXPECT_FALSE(rules.Due(OpKind::kRmdir));
}

}  // namespace
}  // namespace spillway::model
