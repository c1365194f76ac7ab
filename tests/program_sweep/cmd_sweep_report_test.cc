// The runs a sweep has finished and its reports: the spool that holds the runs, and the
// merge of shards' reports back into the report of the unsharded sweep, with every check
// merge makes on the reports it is given. Nothing is run: the runs are made up.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "run_json.h"
#include "run_spool.h"
#include "spillway/program_sweep/cmd_sweep.h"
#include "spillway/program_sweep/report.h"
#include "support/temp_dir.h"

namespace spillway::program_sweep {
namespace {

namespace fs = std::filesystem;

class ReportTest : public ::testing::Test {
 protected:
  ReportTest() { EXPECT_TRUE(temp_.ok()) << temp_.error(); }

  // Writes `result` as the JSON report `name` in the test's directory; returns its path.
  std::string Write(const CmdSweepResult& result, const std::string& name) const {
    std::string file = (dir_ / name).string();
    std::FILE* out = std::fopen(file.c_str(), "w");
    EXPECT_TRUE(WriteJson(out, result).ok());
    std::fclose(out);
    return file;
  }

  test_support::TempDir temp_;
  fs::path dir_ = temp_.path();
};

// Run `index` of a site plan over sites a and b, its every field chosen by its index so
// that neighbours differ (the text has characters XML and JSON escape).
RunResult SampleRun(uint64_t index) {
  RunResult run;
  RunSpec& spec = run.spec;
  spec.index = index;
  spec.site = index % 2 == 0 ? "00000000000a" : "00000000000b";
  spec.nth = index / 2 + 1;
  spec.by_site = true;
  spec.call = {"write", "pwrite64", "{dir}/f" + std::to_string(index), false, spec.site};
  spec.error_number = index % 3 == 0 ? EIO : ENOSPC;
  spec.mode = index % 2 == 0 ? FaultMode::kTransient : FaultMode::kPersistent;
  if (index % 4 == 3) {
    run.signal = 6;
    run.verdicts = {Verdict::kCrash};
  } else if (index % 4 == 0) {
    run.exit_code = 1;
    run.verdicts = {Verdict::kCleanError};
  } else {
    run.exit_code = 0;
    run.verdicts = {Verdict::kSilentWrongOutput};
  }
  if (index % 5 == 0) {
    run.leftovers = {
        {{"{dir}/left<\"&" + std::to_string(index), index}, SweepLeftover::Kind::kLeak}};
    run.verdicts.push_back(Verdict::kLeak);
  }
  if (index == 7) run.verdicts = {Verdict::kDiverged};
  if (index == 7) run.diverged_at = "call 3 was \"read\"";
  // Damage runs: 2 a corrupted write, 6 a lost one (both silent_wrong_output).
  if (index == 2 || index == 6) {
    spec.error_number = 0;
    spec.mode = index == 2 ? FaultMode::kCorrupt : FaultMode::kLost;
    run.damage.emplace();
    run.damage->op = "write";
    run.damage->path = spec.call.path;
    run.damage->action = index == 2 ? "corrupt" : "lost";
    run.damage->offset = static_cast<int64_t>(index * 100);
    if (index == 2) run.damage->bit = 3;
    if (index == 6) run.damage->lost_bytes = 512;
  }
  run.reproducer = "spillway inject --fault '" + FaultRuleFor(spec) + "' -- prog \"$d\"";
  return run;
}

// Runs held in memory, to write reports from.
class RunList final : public RunSource {
 public:
  explicit RunList(std::vector<RunResult> runs) : runs_(std::move(runs)) {}
  Status ForEach(const std::function<void(const RunResult&)>& visit) const override {
    for (const RunResult& run : runs_) visit(run);
    return OkStatus();
  }

 private:
  std::vector<RunResult> runs_;
};

// Shard `shard` of `shards` of a sweep of 10 runs, holding SampleRun of each of `indexes`.
CmdSweepResult SampleResult(const std::vector<uint64_t>& indexes, int shard, int shards) {
  CmdSweepResult result;
  result.command = {"prog", "{dir}"};
  result.baseline.calls = 10;
  result.baseline.calls_by_op = {{"write", 10}};
  // Two baseline runs, one of which alone reached the second site.
  result.baseline.runs = 2;
  result.baseline.sites = {{"00000000000a", "write", "pwrite64", "{dir}/*", 5, {"prog+0x10"}, 2},
                           {"00000000000b", "write", "pwrite64", "{dir}/*", 5, {"prog+0x20"}, 1}};
  result.timeout = 10;
  result.plan_sizes = {10, 10, 20};
  result.planned_runs = 10;
  result.sampled_runs = 10;
  result.shard_index = shard;
  result.shard_count = shards;
  std::vector<RunResult> runs;
  for (uint64_t index : indexes) {
    runs.push_back(SampleRun(index));
    result.Count(runs.back());
  }
  result.runs = std::make_shared<RunList>(std::move(runs));
  return result;
}

// The JSON object, the JUnit file and the text of `result`, one after the other.
std::string Reports(const CmdSweepResult& result) {
  char* text = nullptr;
  size_t size = 0;
  std::FILE* out = open_memstream(&text, &size);
  EXPECT_TRUE(WriteJson(out, result).ok());
  EXPECT_TRUE(WriteJunit(out, result).ok());
  EXPECT_TRUE(PrintText(out, result).ok());
  std::fclose(out);
  std::string reports(text, size);
  free(text);
  return reports;
}

TEST_F(ReportTest, SpooledRunsComeBackInPlanOrderFromFilesAlreadyUnlinked) {
  const fs::path dir = dir_ / "work";
  fs::create_directories(dir);
  StatusOr<std::shared_ptr<RunSpool>> spool = RunSpool::Create(dir, 3, Depth::kFirst);
  ASSERT_TRUE(spool.ok()) << spool.status().ToString();
  EXPECT_TRUE(fs::is_empty(dir));
  // Each writer's runs in plan order; the writers' interleaved, as parallel runs finish.
  const std::vector<std::vector<uint64_t>> by_writer = {{0, 3, 4, 8}, {1, 5, 6}, {2, 7, 9}};
  for (size_t at = 0; at < 4; ++at) {
    for (size_t w = by_writer.size(); w-- > 0;) {
      if (at < by_writer[w].size()) {
        ASSERT_TRUE((*spool)->Append(static_cast<int>(w), SampleRun(by_writer[w][at])).ok());
      }
    }
  }
  ASSERT_TRUE((*spool)->Flush().ok());
  std::vector<std::string> want;
  for (uint64_t index = 0; index < 10; ++index) want.push_back(RunJson(SampleRun(index)).dump());
  for (int pass = 0; pass < 2; ++pass) {
    std::vector<std::string> got;
    ASSERT_TRUE((*spool)
                    ->ForEach([&got](const RunResult& run) {
                      EXPECT_TRUE(run.spec.by_site);
                      got.push_back(RunJson(run).dump());
                    })
                    .ok());
    EXPECT_EQ(got, want) << "pass " << pass;
  }
  EXPECT_TRUE(fs::is_empty(dir));
}

TEST_F(ReportTest, MergedShardReportsGiveTheUnshardedReportsAndRefuseRunsOutOfPlanOrder) {
  const CmdSweepResult whole = SampleResult({0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, 1, 1);
  // Given in any order; shard 2 has no run.
  const std::vector<std::string> files = {Write(SampleResult({4, 5, 6, 7, 8, 9}, 3, 3), "3.json"),
                                          Write(SampleResult({}, 2, 3), "2.json"),
                                          Write(SampleResult({0, 1, 2, 3}, 1, 3), "1.json")};
  StatusOr<CmdSweepResult> merged = MergeReports(files);
  ASSERT_TRUE(merged.ok()) << merged.status().message();
  EXPECT_EQ(merged->run_count, 10u);
  EXPECT_EQ(merged->violations, whole.violations);
  EXPECT_EQ(Reports(*merged), Reports(whole));
  // Read again: the same.
  EXPECT_EQ(Reports(*merged), Reports(whole));

  const std::vector<std::vector<std::vector<uint64_t>>> out_of_order = {
      {{0, 2, 1}, {}, {3}},          // Within a shard.
      {{0, 1, 1}, {2}, {3}},         // A run twice in a shard.
      {{4, 5}, {0, 1, 2, 3}, {}},    // Shard 2's runs before shard 1's.
      {{0, 1, 2, 3}, {3, 4}, {5}}};  // A run in two shards.
  for (const auto& shards : out_of_order) {
    std::vector<std::string> bad;
    for (int k = 1; k <= 3; ++k) {
      bad.push_back(Write(SampleResult(shards[static_cast<size_t>(k - 1)], k, 3),
                          "bad" + std::to_string(k) + ".json"));
    }
    const StatusOr<CmdSweepResult> refused = MergeReports(bad);
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(refused.status().message().find("plan order"), std::string::npos)
        << refused.status().message();
  }
}

// Damage runs carry their damage through the spool and merge (the tests above), and every
// report says which runs they were.
TEST_F(ReportTest, ReportsSayWhichRunsDamagedData) {
  const CmdSweepResult result = SampleResult({0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, 1, 1);
  EXPECT_EQ(result.damage_runs, 2u);
  const std::string reports = Reports(result);
  EXPECT_NE(reports.find(R"("damage":{"op":"write","path":"{dir}/f2","offset":200,"bit":3})"),
            std::string::npos);
  EXPECT_NE(
      reports.find(R"("damage":{"op":"write","path":"{dir}/f6","offset":600,"lost_bytes":512})"),
      std::string::npos);
  EXPECT_NE(reports.find(R"("damage_runs":2,"damage_by_verdict":{"clean_error":0,)"),
            std::string::npos);
  EXPECT_NE(reports.find("<testcase classname=\"spillway.sweep.damage\" name=\"site "
                         "00000000000a call 2 (write pwrite64 {dir}/f2) corrupt\">"),
            std::string::npos);
  EXPECT_NE(reports.find("damage: bit 3 of byte 200 of {dir}/f2 flipped by a write\n"),
            std::string::npos);
  EXPECT_NE(reports.find("damage: 512 bytes of a write at 600 of {dir}/f6 lost\n"),
            std::string::npos);
  EXPECT_NE(reports.find("damage runs (corrupt, lost): 2: silent_wrong_output 2\n"),
            std::string::npos);
}

// The error MergeReports gives for `files` (empty when it merged them).
std::string MergeError(const std::vector<std::string>& files) {
  const StatusOr<CmdSweepResult> merged = MergeReports(files);
  if (merged.ok()) return "";
  EXPECT_EQ(merged.status().code(), StatusCode::kInvalidArgument);
  return std::string(merged.status().message());
}

TEST_F(ReportTest, MergeRefusesShardsMissingGivenTwiceOrOutOfRange) {
  const std::string one = Write(SampleResult({0, 1, 2, 3}, 1, 3), "1.json");
  const std::string two = Write(SampleResult({4, 5}, 2, 3), "2.json");
  const std::string three = Write(SampleResult({6, 7, 8, 9}, 3, 3), "3.json");
  ASSERT_EQ(MergeError({one, two, three}), "");
  EXPECT_NE(MergeError({}).find("no report given"), std::string::npos);
  EXPECT_NE(MergeError({one, three}).find("2 of 3 shards given"), std::string::npos);
  EXPECT_NE(MergeError({one, two, two}).find("shard 2/3 is out of range or given twice"),
            std::string::npos);
  EXPECT_NE(MergeError({one, two, three, two}).find("given twice"), std::string::npos);
  // Shards 0/3 and 4/3 are no shards of three, in place of one of the three or beside them.
  const std::string zero = Write(SampleResult({}, 0, 3), "0.json");
  const std::string four = Write(SampleResult({}, 4, 3), "4.json");
  EXPECT_NE(MergeError({zero, two, three}).find("shard 0/3 is out of range"), std::string::npos);
  EXPECT_NE(MergeError({one, two, four}).find("shard 4/3 is out of range"), std::string::npos);
  EXPECT_NE(MergeError({one, two, three, four}).find("out of range"), std::string::npos);
}

TEST_F(ReportTest, MergeRefusesReportsOfDifferentPlansOrBaselines) {
  const std::string one = Write(SampleResult({0, 1, 2, 3}, 1, 2), "1.json");
  const CmdSweepResult two = SampleResult({4, 5, 6, 7, 8, 9}, 2, 2);
  ASSERT_EQ(MergeError({one, Write(two, "2.json")}), "");
  // Each thing a plan depends on, changed in shard 2 alone.
  const std::vector<std::pair<std::string, std::function<void(CmdSweepResult*)>>> changes = {
      {"command", [](CmdSweepResult* r) { r->command.back() = "{dir}/x"; }},
      {"baseline exit", [](CmdSweepResult* r) { r->baseline.exit_code = 3; }},
      {"baseline calls", [](CmdSweepResult* r) { r->baseline.calls_by_op["write"] = 9; }},
      {"baseline leftovers",
       [](CmdSweepResult* r) {
         r->baseline.leftovers = {{{"{dir}/t", 1}, SweepLeftover::Kind::kLeak}};
       }},
      {"scratch", [](CmdSweepResult* r) { r->scratch = true; }},
      {"max runs", [](CmdSweepResult* r) { r->max_runs = 5; }},
      {"a site", [](CmdSweepResult* r) { r->baseline.sites[1].calls = 4; }},
      {"depth", [](CmdSweepResult* r) { r->depth = Depth::kEdges; }},
      {"plan sizes", [](CmdSweepResult* r) { r->plan_sizes[2] = 21; }},
      {"shard count", [](CmdSweepResult* r) { r->shard_count = 3; }},
  };
  for (const auto& [what, change] : changes) {
    CmdSweepResult changed = SampleResult({4, 5, 6, 7, 8, 9}, 2, 2);
    change(&changed);
    EXPECT_NE(MergeError({one, Write(changed, "changed.json")}).find("different plans"),
              std::string::npos)
        << what;
  }
}

TEST_F(ReportTest, MergeRefusesWhatIsNoShardReport) {
  const std::string one = Write(SampleResult({0, 1, 2, 3}, 1, 2), "1.json");
  const std::string two = Write(SampleResult({4, 5, 6, 7, 8, 9}, 2, 2), "2.json");
  // `file` with `edit` applied to its JSON, as `name`.
  auto edited = [this](const std::string& file, const std::string& name,
                       const std::function<void(nlohmann::json*)>& edit) {
    std::ifstream in(file);
    nlohmann::json report = nlohmann::json::parse(in);
    edit(&report);
    std::string path = (dir_ / name).string();
    std::ofstream(path) << report.dump();
    return path;
  };
  std::ofstream(dir_ / "text") << "violations: 0\n";
  std::ofstream(dir_ / "array") << "[1, 2]\n";
  EXPECT_NE(MergeError({one, (dir_ / "missing").string()}).find("not a JSON report"),
            std::string::npos);
  EXPECT_NE(MergeError({one, (dir_ / "text").string()}).find("not a JSON report"),
            std::string::npos);
  EXPECT_NE(MergeError({one, (dir_ / "array").string()}).find("not a JSON report"),
            std::string::npos);
  const std::vector<std::pair<std::string, std::function<void(nlohmann::json*)>>> damages = {
      {"no baseline", [](nlohmann::json* j) { j->erase("baseline"); }},
      {"no summary", [](nlohmann::json* j) { j->erase("summary"); }},
      {"runs no list", [](nlohmann::json* j) { (*j)["runs"] = nlohmann::json::object(); }},
      {"shard not K/N", [](nlohmann::json* j) { (*j)["baseline"]["shard"] = "2"; }},
      {"shard with more", [](nlohmann::json* j) { (*j)["baseline"]["shard"] = "2/2x"; }},
      {"unknown depth", [](nlohmann::json* j) { (*j)["summary"]["depth"] = "deep"; }},
      {"a run with no verdicts", [](nlohmann::json* j) { (*j)["runs"][0].erase("verdicts"); }},
  };
  for (const auto& [what, damage] : damages) {
    const std::string damaged = edited(two, "damaged.json", damage);
    EXPECT_NE(MergeError({one, damaged}).find("damaged.json: not a"), std::string::npos) << what;
  }
}

}  // namespace
}  // namespace spillway::program_sweep
