// The seeded simulation (spillway/model/simulate.h) in small: its option checks, the
// quirk filter, shrinking, one scenario file per distinct violation, and the two
// summaries of a result built by hand. The long runs over many seeds are
// tests/property/simulate_property_test.cc.
#include "spillway/model/simulate.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "spillway/model/spill_model.h"
#include "spillway/scenario/scenario.h"
#include "spillway/spill/quirks.h"
#include "spillway/vfs/status.h"
#include "support/scenario_test_support.h"
#include "support/temp_dir.h"

namespace spillway::model {
namespace {

std::vector<scenario::Command> Lines(const std::string& text) {
  return test_support::MustParse(text).commands;
}

std::vector<std::string> Strings(const std::vector<scenario::Command>& lines) {
  std::vector<std::string> text;
  text.reserve(lines.size());
  for (const scenario::Command& line : lines) text.push_back(line.ToString());
  return text;
}

// Each setting out of range is refused by name, before anything runs.
TEST(ModelSimulateTest, RefusesSettingsOutOfRange) {
  const auto refused = [](void (*change)(SimulateOptions&), const std::string& option) {
    SimulateOptions options;
    options.steps = 10;
    change(options);
    const Status checked = CheckSimulateOptions(options);
    EXPECT_EQ(checked.code(), StatusCode::kInvalidArgument) << option;
    EXPECT_EQ(checked.message().rfind(option + " must be", 0), 0u) << checked.message();
    const StatusOr<SimulateResult> ran = Simulate(options);
    EXPECT_EQ(ran.status(), checked) << option;
  };
  refused([](SimulateOptions& o) { o.dirs = 0; }, "--dirs");
  refused([](SimulateOptions& o) { o.dirs = kMaxLocalDirs + 1; }, "--dirs");
  refused([](SimulateOptions& o) { o.plans = 0; }, "--plans");
  refused([](SimulateOptions& o) { o.jobs = 0; }, "--jobs");
  refused([](SimulateOptions& o) { o.fault_rate = 1; }, "--fault-rate");
  refused([](SimulateOptions& o) { o.fault_rate = -0.1; }, "--fault-rate");
  refused([](SimulateOptions& o) { o.forever_percent = 101; }, "--forever-percent");
  refused([](SimulateOptions& o) { o.forever_percent = -1; }, "--forever-percent");

  // The edges of each range are accepted.
  SimulateOptions edges;
  edges.steps = 10;
  edges.dirs = kMaxLocalDirs;
  edges.fault_rate = 0;
  edges.forever_percent = 100;
  edges.plans = 1;
  EXPECT_TRUE(CheckSimulateOptions(edges).ok());
  edges.dirs = 1;
  edges.fault_rate = 0.99;
  edges.forever_percent = 0;
  EXPECT_TRUE(CheckSimulateOptions(edges).ok());
}

// A run on the real disk whose private directory cannot be made under $TMPDIR cannot
// start: the seed and the runner's error are named.
TEST(ModelSimulateTest, ARunThatCannotStartIsAnError) {
  const char* old = std::getenv("TMPDIR");
  const std::optional<std::string> saved = old ? std::optional<std::string>(old) : std::nullopt;
  ASSERT_EQ(::setenv("TMPDIR", "/nonexistent-spillway-simulate-test", 1), 0);
  SimulateOptions options;
  options.seed = 4;
  options.steps = 10;
  options.fs = scenario::FsKind::kPosix;
  const Status checked = CheckSimulateOptions(options);
  const StatusOr<SimulateResult> ran = Simulate(options);
  if (saved) {
    ::setenv("TMPDIR", saved->c_str(), 1);
  } else {
    ::unsetenv("TMPDIR");
  }
  EXPECT_EQ(checked.code(), StatusCode::kNotFound) << checked.ToString();
  EXPECT_EQ(checked.message().rfind("seed 4: cannot run: mkdtemp /nonexistent-spillway", 0), 0u)
      << checked.message();
  EXPECT_EQ(ran.status().code(), StatusCode::kNotFound);
}

// Without quirks every kind is sought; with a quirk only the kind that names its defect,
// and with two quirks the kinds of both.
TEST(ModelSimulateTest, IsSoughtKeepsTheQuirksOwnKinds) {
  const std::vector<InvariantKind> kinds = {
      InvariantKind::kOutcome,   InvariantKind::kAccountingAfterDrops,
      InvariantKind::kSpillDirs, InvariantKind::kDirsBeforeFirstSpill,
      InvariantKind::kLeftover,  InvariantKind::kMetrics};
  for (const InvariantKind kind : kinds) EXPECT_TRUE(IsSought(Quirks(), kind));
  const Quirks write_leak(Quirk::kWriteLeak);
  for (const InvariantKind kind : kinds) {
    EXPECT_EQ(IsSought(write_leak, kind), kind == InvariantKind::kAccountingAfterDrops)
        << InvariantKindName(kind);
  }
  const Quirks two = Quirks(Quirk::kWriteLeak).With(Quirk::kEagerDirs);
  for (const InvariantKind kind : kinds) {
    EXPECT_EQ(IsSought(two, kind), kind == InvariantKind::kAccountingAfterDrops ||
                                       kind == InvariantKind::kDirsBeforeFirstSpill)
        << InvariantKindName(kind);
  }
}

// A write that fails under write_leak keeps its bytes counted: the four lines that make
// it are what shrinking leaves of a program padded before and after with lines of
// another plan, and what is left still breaks the same invariant.
TEST(ModelSimulateTest, ShrinkKeepsOnlyTheLinesTheViolationNeeds) {
  const std::string needed =
      "plan p0 /l0 limit=100\n"
      "spill f0 p0\n"
      "fault write EIO\n"
      "write f0 10\n";
  const std::vector<scenario::Command> lines = Lines(
      "plan p1 /l1 limit=100\n"
      "spill f1 p1\n"
      "write f1 5\n"
      "plan p0 /l0 limit=100\n"
      "spill f0 p0\n"
      "spill f2 p1\n"
      "fault write EIO\n"
      "write f0 10\n"
      "drop f1\n"
      "drop p1\n");
  scenario::RunnerOptions runner;
  runner.quirks = Quirk::kWriteLeak;
  runner.seed = 1;
  const std::optional<Violation> before = RunProgram(ProgramFromLines(lines), runner);
  ASSERT_TRUE(before.has_value());
  ASSERT_EQ(before->kind, InvariantKind::kAccountingAfterDrops) << before->message;

  const std::vector<scenario::Command> shrunk =
      Shrink(lines, runner, InvariantKind::kAccountingAfterDrops);
  EXPECT_EQ(Strings(shrunk), Strings(Lines(needed)));
  const std::optional<Violation> after = RunProgram(ProgramFromLines(shrunk), runner);
  ASSERT_TRUE(after.has_value());
  EXPECT_EQ(after->kind, InvariantKind::kAccountingAfterDrops) << after->message;
}

// eager_dirs makes every plan's directories when it is built: thirty seeds of it shrink to
// a few programs of one line, so most seeds share an earlier seed's file; with
// all_reproducers each has its own. Either way each file named exists, and the directory
// holds those files and nothing else.
TEST(ModelSimulateTest, WritesOneScenarioPerDistinctViolation) {
  // Seeds enough that a few shrink to the same program (2 of 100 at 300 steps; none of
  // the first 30 since the generator draws reads, lies and kills).
  constexpr int kSeeds = 100;
  for (const bool all : {false, true}) {
    SCOPED_TRACE(all ? "all reproducers" : "distinct only");
    const test_support::TempDir dir;
    ASSERT_TRUE(dir.ok()) << dir.error();
    SimulateOptions options;
    options.quirks = Quirk::kEagerDirs;
    options.jobs = kSeeds;
    options.steps = 300;
    options.out_dir = dir.path();
    options.all_reproducers = all;
    std::atomic<uint64_t> progress{0};
    const StatusOr<SimulateResult> ran = Simulate(options, &progress);
    ASSERT_TRUE(ran.ok()) << ran.status().ToString();
    EXPECT_EQ(progress.load(), options.steps * kSeeds);
    ASSERT_EQ(ran->runs.size(), static_cast<size_t>(kSeeds));
    std::set<std::string> own_files;
    int shared = 0;
    for (size_t i = 0; i < ran->runs.size(); ++i) {
      const SeedResult& r = ran->runs[i];
      EXPECT_EQ(r.seed, options.seed + i);
      ASSERT_TRUE(r.violation.has_value()) << "seed " << r.seed;
      EXPECT_EQ(r.violation->kind, InvariantKind::kDirsBeforeFirstSpill);
      ASSERT_FALSE(r.scenario_path.empty()) << r.write_error;
      EXPECT_TRUE(std::filesystem::exists(r.scenario_path)) << r.scenario_path;
      if (!r.same_scenario_as) {
        EXPECT_EQ(r.scenario_path,
                  dir.path() + "/spillway-simulate-" + std::to_string(r.seed) + ".scenario");
        own_files.insert(r.scenario_path);
        continue;
      }
      ++shared;
      // The seed named is an earlier one that has its own file, with the same program.
      ASSERT_LT(*r.same_scenario_as, r.seed);
      const SeedResult& first = ran->runs[*r.same_scenario_as - options.seed];
      EXPECT_FALSE(first.same_scenario_as.has_value());
      EXPECT_EQ(first.scenario_path, r.scenario_path);
      EXPECT_EQ(first.shrunk_text, r.shrunk_text);
    }
    if (all) {
      EXPECT_EQ(shared, 0);
    } else {
      EXPECT_GT(shared, 0) << "no seed shares a file: the test shows nothing";
    }
    std::set<std::string> on_disk;
    for (const auto& entry : std::filesystem::directory_iterator(dir.path())) {
      on_disk.insert(entry.path().string());
    }
    EXPECT_EQ(on_disk, own_files);
  }
}

// True when `text` has a line that starts with `verb` and a space.
bool HasLine(const std::string& text, const std::string& verb) {
  return text.rfind(verb + " ", 0) == 0 || text.find("\n" + verb + " ") != std::string::npos;
}

// reap_skips_empty leaves an empty spill directory, as if it were being made: every seed
// breaks the `reap` invariant, and in some of them what the reap leaves is a directory
// that a `kill` left half-made (its mkdir done, the process dead before its first file),
// the shrunk program keeping the kill; in the others a `crash` after its files were gone.
TEST(ModelSimulateTest, ReapSkipsEmptyIsCaughtAsAReapAlsoAfterAKill) {
  SimulateOptions options;
  options.quirks = Quirk::kReapSkipsEmpty;
  options.jobs = 8;  // Seeds 1..8: 5 and 7 keep a kill; seed 3 breaks `reap` at step 1,855.
  options.steps = 2000;
  const StatusOr<SimulateResult> ran = Simulate(options);
  ASSERT_TRUE(ran.ok()) << ran.status().ToString();
  int after_kill = 0;
  for (const SeedResult& r : ran->runs) {
    ASSERT_TRUE(r.violation.has_value()) << "seed " << r.seed;
    EXPECT_EQ(r.violation->kind, InvariantKind::kReap) << r.violation->message;
    EXPECT_TRUE(HasLine(r.shrunk_text, "reap")) << r.shrunk_text;
    if (HasLine(r.shrunk_text, "kill")) ++after_kill;
  }
  EXPECT_GT(after_kill, 0) << "no seed shows a directory killed half-made";
}

// Kills are generated, and each one's process keeps its count of faults although the next
// process has a filesystem of its own: the call a kill fired at counts as "OP kill", and
// the errno faults of the processes before the last still count.
TEST(ModelSimulateTest, CountsTheFaultsOfKilledProcesses) {
  SimulateOptions options;
  options.steps = 3000;
  const StatusOr<SimulateResult> ran = Simulate(options);
  ASSERT_TRUE(ran.ok()) << ran.status().ToString();
  ASSERT_EQ(ran->runs.size(), 1u);
  const SeedResult& r = ran->runs[0];
  EXPECT_FALSE(r.violation.has_value()) << r.violation->message;
  uint64_t kills = 0;
  uint64_t errno_faults = 0;
  for (const auto& [what, n] : r.faults) {
    const bool kill = what.ends_with(" kill");
    (kill ? kills : errno_faults) += n;
    EXPECT_EQ(what.find(" E0"), std::string::npos) << what;
  }
  EXPECT_GT(kills, 0u);
  // About 5% of 3000 lines are faults; most fail a call before the run ends.
  EXPECT_GT(errno_faults, 50u);
}

constexpr char kPath[] = "/out/spillway-simulate-9.scenario";

// Seed `seed`'s run of `steps` steps that built `plans` plans and `spills` files, broken at
// its last step (accounting-after-drops, `message`) and shrunk to 4 commands, in kPath.
SeedResult Broken(uint64_t seed, uint64_t steps, uint64_t plans, uint64_t spills,
                  const std::string& message) {
  SeedResult r;
  r.seed = seed;
  r.steps = steps;
  r.plans = plans;
  r.spills = spills;
  r.violation = Violation{InvariantKind::kAccountingAfterDrops, message};
  r.violation_step = steps;
  r.commands_before_shrink = steps;
  r.commands_after_shrink = 4;
  r.scenario_path = kPath;
  return r;
}

// A result of two seeds, built by hand: the second seed's violation shares the first
// one's file.
SimulateResult TwoSeeds() {
  SimulateResult result;
  result.seconds = 2.3;
  SeedResult first = Broken(9, 60, 5, 7, "it leaked");
  first.bytes_written = 300;
  first.checks = 1000;
  first.plan_metrics["p1"] = SpillMetrics{.spills = 2, .spilled = 40, .peak = 30};
  first.unbound_metrics = SpillMetrics{.spills = 3, .spilled = 50, .peak = 45};
  first.faults["write EIO"] = 2;
  first.errors["EIO"] = 2;
  SeedResult second = Broken(10, 40, 1, 2, "it leaked too");
  second.same_scenario_as = 9;
  second.side_effects["outcome"] = 1;
  second.faults = {{"write EIO", 1}, {"mkdir EEXIST", 1}};
  second.errors["LIMIT"] = 3;
  second.unbound_metrics = SpillMetrics{.spills = 2, .spilled = 20, .peak = 20};
  second.bytes_written = 20;
  second.checks = 500;
  result.runs = {first, second};
  return result;
}

TEST(ModelSimulateTest, JsonSummaryAddsUpTheRuns) {
  SimulateOptions options;
  options.seed = 9;
  options.jobs = 2;
  options.steps = 60;
  options.forever_percent = 5;
  options.quirks = Quirk::kWriteLeak;
  const nlohmann::json json = nlohmann::json::parse(SimulateSummaryJson(options, TwoSeeds()));
  EXPECT_EQ(json["fs"], "mem");
  EXPECT_EQ(json["quirks"], nlohmann::json::array({"write_leak"}));
  EXPECT_EQ(json["steps_per_seed"], 60);
  EXPECT_EQ(json["forever_percent"], 5);
  EXPECT_EQ(json["seconds"], 2.3);
  const nlohmann::json& totals = json["totals"];
  EXPECT_EQ(totals["steps"], 100);
  EXPECT_EQ(totals["plans"], 6);
  EXPECT_EQ(totals["spills"], 9);
  EXPECT_EQ(totals["bytes_written"], 320);
  // Spills and spilled bytes add up over plans and runs; the peak is the highest.
  EXPECT_EQ(totals["metrics"], nlohmann::json::parse(R"({"spills":7,"spilled":110,"peak":45})"));
  EXPECT_EQ(totals["faults_injected"],
            nlohmann::json::parse(R"({"write EIO":3,"mkdir EEXIST":1})"));
  EXPECT_EQ(totals["errors"], nlohmann::json::parse(R"({"EIO":2,"LIMIT":3})"));
  EXPECT_EQ(totals["invariants_checked"], 1500);

  ASSERT_EQ(json["runs"].size(), 2u);
  const nlohmann::json& first = json["runs"][0];
  EXPECT_EQ(first["seed"], 9);
  EXPECT_EQ(first["metrics"], nlohmann::json::parse(R"({"spills":5,"spilled":90,"peak":45})"));
  EXPECT_TRUE(first["side_effects"].empty());
  const std::string leak(InvariantKindName(InvariantKind::kAccountingAfterDrops));
  EXPECT_EQ(first["violation"]["kind"], leak);
  EXPECT_EQ(first["violation"]["message"], "it leaked");
  EXPECT_EQ(first["violation"]["step"], 60);
  EXPECT_EQ(first["violation"]["commands_after_shrink"], 4);
  EXPECT_EQ(first["violation"]["replay"],
            "spillway run --fs mem --seed 9 /out/spillway-simulate-9.scenario");
  EXPECT_TRUE(first["violation"]["same_scenario_as"].is_null());
  const nlohmann::json& second = json["runs"][1];
  EXPECT_EQ(second["side_effects"], nlohmann::json::parse(R"({"outcome":1})"));
  // A shared file replays with the seed that wrote it.
  EXPECT_EQ(second["violation"]["same_scenario_as"], 9);
  EXPECT_EQ(second["violation"]["replay"],
            "spillway run --fs mem --seed 9 /out/spillway-simulate-9.scenario");

  // Without quirks there are no side effects to report; a run without a violation has null.
  SimulateResult clean = TwoSeeds();
  clean.runs[0].violation.reset();
  const nlohmann::json plain = nlohmann::json::parse(SimulateSummaryJson(SimulateOptions(), clean));
  EXPECT_FALSE(plain["runs"][0].contains("side_effects"));
  EXPECT_TRUE(plain["runs"][0]["violation"].is_null());
  EXPECT_EQ(plain["fs"], "mem");
  EXPECT_TRUE(plain["quirks"].empty());
}

TEST(ModelSimulateTest, TextSummaryNamesTheTotalsAndEachViolation) {
  SimulateOptions options;
  options.seed = 9;
  options.jobs = 2;
  options.steps = 60;
  options.fs = scenario::FsKind::kPosix;
  options.quirks = Quirk::kWriteLeak;
  const std::string text = SimulateSummaryText(options, TwoSeeds());
  const auto has = [&](const std::string& line) {
    EXPECT_NE(text.find(line), std::string::npos) << "no line '" << line << "' in\n" << text;
  };
  has("spillway simulate: 2 seeds from 9, 60 steps each, fs posix, quirks write_leak\n");
  has("  steps run           100 in 2.3 s\n");
  has("  plans built         6\n");
  has("  bytes written       320\n");
  has("  faults injected     mkdir EEXIST 1, write EIO 3\n");
  has("  errors surfaced     EIO 2, LIMIT 3\n");
  has("  side effects        outcome 1\n");
  has("  invariants checked  1500\n");
  const std::string leak(InvariantKindName(InvariantKind::kAccountingAfterDrops));
  has("seed 9: violation at step 60: [" + leak +
      "] it leaked\n"
      "  shrunk from 60 to 4 commands: /out/spillway-simulate-9.scenario\n"
      "  replay: spillway run --fs posix --seed 9 /out/spillway-simulate-9.scenario\n");
  has("seed 10: violation at step 40: [" + leak +
      "] it leaked too\n"
      "  shrunk from 40 to 4 commands, the program of seed 9: "
      "/out/spillway-simulate-9.scenario\n");
  EXPECT_EQ(text.find("violations          none"), std::string::npos);

  SimulateResult clean = TwoSeeds();
  for (SeedResult& r : clean.runs) r.violation.reset();
  const std::string none = SimulateSummaryText(SimulateOptions(), clean);
  EXPECT_NE(none.find("quirks none\n"), std::string::npos) << none;
  EXPECT_EQ(none.find("side effects"), std::string::npos) << none;
  EXPECT_NE(none.find("\n  violations          none\n"), std::string::npos) << none;
}

}  // namespace
}  // namespace spillway::model
