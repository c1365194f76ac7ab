// The plan of `spillway sweep -- CMD` (which runs, by site or by call number, sampled and
// sharded, streamed), the baseline's trace and --baseline file, its path patterns, the
// spool of finished runs and the merge of shards' reports, without running anything: the
// traces are written by the tests in inject's format.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "baseline.h"
#include "run_json.h"
#include "run_plan.h"
#include "run_spool.h"
#include "spillway/cmdsweep/cmd_sweep.h"
#include "spillway/cmdsweep/report.h"
#include "spillway/vfs/fault_rules.h"
#include "trace_reader.h"

namespace spillway::cmdsweep {
namespace {

namespace fs = std::filesystem;

const std::vector<FaultMode> kBoth = {FaultMode::kTransient, FaultMode::kPersistent};
const std::vector<FaultMode> kTransientOnly = {FaultMode::kTransient};

// A call of a synthetic trace: its operation, site (empty: none) and path under the scope.
struct Call {
  std::string op;
  std::string site;
  std::string path = "f";
};

class PlanTest : public ::testing::Test {
 protected:
  PlanTest() {
    std::string dir = (fs::temp_directory_path() / "spillway-plan-test-XXXXXX").string();
    EXPECT_NE(mkdtemp(dir.data()), nullptr);
    dir_ = dir;
  }
  ~PlanTest() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  // Writes `calls` as inject's trace (seq from 1, `swap` swapping each pair of lines as
  // two processes may), with a frames line for each site, and scans it as a baseline.
  Baseline MakeBaseline(const std::vector<Call>& calls, bool swap = false) {
    std::vector<std::string> lines;
    std::set<std::string> sites;
    for (size_t i = 0; i < calls.size(); ++i) {
      std::string line = "{\"seq\":" + std::to_string(i + 1) + ",\"pid\":1,\"tid\":1,\"op\":\"" +
                         calls[i].op + "\",\"call\":\"" + calls[i].op + "\",\"path\":\"" +
                         (dir_ / "scope" / calls[i].path).string() +
                         "\",\"result\":0,\"errno\":null,\"injected\":false";
      if (!calls[i].site.empty()) line += ",\"site\":\"" + calls[i].site + "\"";
      lines.push_back(line + "}");
      if (!calls[i].site.empty() && sites.insert(calls[i].site).second) {
        lines.push_back("{\"site\":\"" + calls[i].site + "\",\"frames\":[\"prog+0x1" +
                        calls[i].site.substr(0, 3) + " main\",\"libc.so.6+0x29d90\"]}");
      }
    }
    if (swap) {
      for (size_t i = 0; i + 1 < lines.size(); i += 2) std::swap(lines[i], lines[i + 1]);
    }
    std::ofstream out(dir_ / "trace");
    for (const std::string& line : lines) out << line << "\n";
    out.close();
    Baseline baseline;
    baseline.trace = (dir_ / "trace").string();
    baseline.scope = (dir_ / "scope").string();
    baseline.with_dir = true;
    EXPECT_TRUE(ScanBaselineTrace("trace", -1, &baseline).ok());
    return baseline;
  }

  // Every run the plan streams, the baseline's calls read again from its trace.
  std::vector<RunSpec> Plan(const Baseline& baseline, PlanOptions options,
                            uint64_t* planned = nullptr, uint64_t* pulled = nullptr) {
    RunPlan plan(baseline, std::move(options), [&baseline, pulled]() -> CallSource {
      auto calls = std::make_shared<std::vector<TracedCall>>();
      TraceReader reader(baseline.trace, 0, baseline.scope, true, nullptr);
      for (TracedCall call; reader.Next(&call);) calls->push_back(call);
      auto at = std::make_shared<size_t>(0);
      return [calls, at, pulled](TracedCall* call) {
        if (*at == calls->size()) return false;
        if (pulled != nullptr) ++*pulled;
        *call = (*calls)[(*at)++];
        return true;
      };
    });
    if (planned != nullptr) *planned = plan.planned();
    std::vector<RunSpec> runs;
    for (RunSpec spec; plan.Next(&spec);) runs.push_back(spec);
    EXPECT_EQ(runs.size(), plan.shard_runs());
    return runs;
  }

  std::vector<Call> Unsited(const std::vector<std::string>& ops) {
    std::vector<Call> calls;
    calls.reserve(ops.size());
    for (const std::string& op : ops) calls.push_back({op, ""});
    return calls;
  }

  fs::path dir_;
};

PlanOptions All(std::vector<int> errnos, std::vector<FaultMode> modes) {
  PlanOptions options;
  options.depth = Depth::kAll;
  options.errnos = std::move(errnos);
  options.modes = std::move(modes);
  return options;
}

TEST_F(PlanTest, DefaultErrnosAreThoseEachOperationCanReturn) {
  const std::vector<RunSpec> runs =
      Plan(MakeBaseline(Unsited({"create", "write", "read", "mkdir"})), All({}, kTransientOnly));
  std::vector<std::pair<uint64_t, int>> got;
  got.reserve(runs.size());
  for (const RunSpec& run : runs) got.emplace_back(run.n, run.error_number);
  const std::vector<std::pair<uint64_t, int>> want = {{1, ENOSPC}, {1, EIO}, {1, ENOENT},
                                                      {2, ENOSPC}, {2, EIO}, {3, EIO},
                                                      {4, ENOSPC}, {4, EIO}, {4, ENOENT}};
  EXPECT_EQ(got, want);
}

TEST_F(PlanTest, AfterCountsEarlierCallsOfTheSameOperation) {
  const std::vector<RunSpec> runs = Plan(MakeBaseline(Unsited({"write", "read", "write", "write"})),
                                         All({EIO}, {FaultMode::kPersistent}));
  ASSERT_EQ(runs.size(), 4u);
  EXPECT_EQ(FaultRuleFor(runs[0]), "write EIO after=0 times=forever");
  EXPECT_EQ(FaultRuleFor(runs[1]), "read EIO after=0 times=forever");
  EXPECT_EQ(FaultRuleFor(runs[3]), "write EIO after=2 times=forever");
}

TEST_F(PlanTest, OpsRestrictTheCallsSwept) {
  PlanOptions options = All({EIO}, kBoth);
  options.ops = {static_cast<uint8_t>(FaultOp::kWrite)};
  const std::vector<RunSpec> runs =
      Plan(MakeBaseline(Unsited({"write", "read", "write"})), options);
  ASSERT_EQ(runs.size(), 4u);
  for (const RunSpec& run : runs) EXPECT_EQ(run.call.op, "write");
}

TEST_F(PlanTest, SampleKeepsTheFirstCallOfEachOperationAndSpreadsTheRest) {
  std::vector<std::string> ops(200, "write");
  ops[50] = "read";
  ops[120] = "remove";
  const Baseline baseline = MakeBaseline(Unsited(ops));
  PlanOptions options = All({EIO}, kBoth);
  options.max_runs = 20;
  const std::vector<RunSpec> sample = Plan(baseline, options);
  ASSERT_EQ(sample.size(), 20u);
  std::set<uint64_t> calls;
  for (const RunSpec& run : sample) calls.insert(run.n);
  EXPECT_TRUE(calls.count(1) && calls.count(51) && calls.count(121));
  EXPECT_GT(*calls.rbegin(), 180u);  // Spread to the end, not the first 20.
  options.max_runs = 1000;
  EXPECT_EQ(Plan(baseline, options).size(), 400u);
  // Fewer runs than operations: one run of each first call still.
  options.max_runs = 2;
  EXPECT_EQ(Plan(baseline, options).size(), 3u);
}

TEST_F(PlanTest, ShardsAreContiguousAndCoverEveryRunOnce) {
  const Baseline baseline = MakeBaseline(Unsited(std::vector<std::string>(7, "write")));
  size_t total = 0;
  uint64_t next = 1;
  for (int k = 1; k <= 3; ++k) {
    PlanOptions options = All({EIO}, kTransientOnly);
    options.shard_index = k;
    options.shard_count = 3;
    for (const RunSpec& run : Plan(baseline, options)) {
      EXPECT_EQ(run.n, next++);
      ++total;
    }
  }
  EXPECT_EQ(total, 7u);
}

// Site a: 3 writes; b: 1 read; c: 2 writes; d: 4 writes (one on another path).
std::vector<Call> Sited() {
  return {{"write", "00000000000a"},         {"read", "00000000000b"},  {"write", "00000000000a"},
          {"write", "00000000000c"},         {"write", "00000000000d"}, {"write", "00000000000c"},
          {"write", "00000000000a"},         {"write", "00000000000d"}, {"write", "00000000000d"},
          {"write", "00000000000d", "sub/g"}};
}

TEST_F(PlanTest, FirstDepthFailsEachSitesFirstCallBySite) {
  const Baseline baseline = MakeBaseline(Sited(), /*swap=*/true);
  ASSERT_EQ(baseline.calls, 10u);
  ASSERT_EQ(baseline.sites.size(), 4u);
  EXPECT_EQ(baseline.sites[0].id, "00000000000a");  // In the order of first calls.
  EXPECT_EQ(baseline.sites[0].calls, 3u);
  EXPECT_EQ(baseline.sites[3].calls, 4u);
  EXPECT_EQ(baseline.sites[0].path, "{dir}/f");
  EXPECT_EQ(baseline.sites[3].path, "{dir}/*/**");
  EXPECT_EQ(baseline.sites[1].frames,
            (std::vector<std::string>{"prog+0x1000 main", "libc.so.6+0x29d90"}));
  PlanOptions options;
  options.errnos = {EIO};
  uint64_t planned = 0;
  const std::vector<RunSpec> runs = Plan(baseline, options, &planned);
  ASSERT_EQ(runs.size(), 8u);  // 4 sites x 1 errno x 2 modes.
  EXPECT_EQ(planned, 8u);
  EXPECT_EQ(FaultRuleFor(runs[0]), "write EIO site=00000000000a nth=1");
  EXPECT_EQ(FaultRuleFor(runs[1]), "write EIO site=00000000000a nth=1 times=forever then=any");
  EXPECT_EQ(FaultRuleFor(runs[2]), "read EIO site=00000000000b nth=1");
  for (const RunSpec& run : runs) EXPECT_EQ(run.n, 0u);
}

TEST_F(PlanTest, EdgesAddEachSitesSecondAndLastCallsAndAllEveryCall) {
  const Baseline baseline = MakeBaseline(Sited());
  PlanOptions options;
  options.errnos = {EIO};
  options.modes = kTransientOnly;
  options.depth = Depth::kEdges;
  std::vector<std::pair<std::string, uint64_t>> got;
  for (const RunSpec& run : Plan(baseline, options)) got.emplace_back(run.site, run.nth);
  const std::vector<std::pair<std::string, uint64_t>> want = {
      {"00000000000a", 1}, {"00000000000a", 2}, {"00000000000a", 3},
      {"00000000000b", 1}, {"00000000000c", 1}, {"00000000000c", 2},
      {"00000000000d", 1}, {"00000000000d", 2}, {"00000000000d", 4}};
  EXPECT_EQ(got, want);
  RunPlan plan(baseline, options, nullptr);
  EXPECT_EQ(plan.sizes()[static_cast<int>(Depth::kFirst)], 4u);
  EXPECT_EQ(plan.sizes()[static_cast<int>(Depth::kEdges)], 9u);
  EXPECT_EQ(plan.sizes()[static_cast<int>(Depth::kAll)], 10u);
  // By call number, each run still names its site and which of the site's calls it is.
  options.depth = Depth::kAll;
  const std::vector<RunSpec> all = Plan(baseline, options);
  ASSERT_EQ(all.size(), 10u);
  EXPECT_EQ(all[6].site, "00000000000a");
  EXPECT_EQ(all[6].nth, 3u);
  EXPECT_EQ(FaultRuleFor(all[6]), "write EIO after=5");
}

TEST_F(PlanTest, ABaselineWithoutSitesIsPlannedByCallNumber) {
  const Baseline baseline = MakeBaseline(Unsited({"write", "write"}));
  PlanOptions options;
  options.errnos = {EIO};
  RunPlan plan(baseline, options, nullptr);
  EXPECT_EQ(plan.depth(), Depth::kAll);
  EXPECT_EQ(Plan(baseline, options).size(), 4u);
}

TEST_F(PlanTest, ThePlanIsAStreamThatReadsTheBaselineOnlyAsFarAsItGoes) {
  std::vector<std::string> ops(5000, "write");
  const Baseline baseline = MakeBaseline(Unsited(ops));
  PlanOptions options = All({}, kBoth);
  uint64_t pulled = 0;
  RunPlan plan(baseline, options, [&baseline, &pulled]() -> CallSource {
    auto reader = std::make_shared<TraceReader>(baseline.trace, 0, baseline.scope, true, nullptr);
    return [reader, &pulled](TracedCall* call) {
      ++pulled;
      return reader->Next(call);
    };
  });
  EXPECT_EQ(plan.planned(), 20000u);
  RunSpec spec;
  ASSERT_TRUE(plan.Next(&spec));
  EXPECT_EQ(pulled, 1u);
  for (int i = 0; i < 4; ++i) ASSERT_TRUE(plan.Next(&spec));
  EXPECT_EQ(pulled, 2u);
  EXPECT_EQ(spec.n, 2u);
}

TEST_F(PlanTest, SampledSitePlanShardsAgreeAndCoverTheSample) {
  std::vector<Call> calls;
  for (int i = 0; i < 60; ++i) {
    char id[13];
    std::snprintf(id, sizeof(id), "%012x", i);
    calls.push_back({i % 7 == 3 ? "read" : "write", id});
  }
  const Baseline baseline = MakeBaseline(calls);
  PlanOptions options;
  options.max_runs = 25;
  const std::vector<RunSpec> whole = Plan(baseline, options);
  ASSERT_EQ(whole.size(), 25u);
  std::vector<uint64_t> joined;
  for (int k = 1; k <= 3; ++k) {
    options.shard_index = k;
    options.shard_count = 3;
    for (const RunSpec& run : Plan(baseline, options)) joined.push_back(run.index);
  }
  std::vector<uint64_t> indexes;
  indexes.reserve(whole.size());
  for (const RunSpec& run : whole) indexes.push_back(run.index);
  EXPECT_EQ(joined, indexes);
  std::set<std::string> ops;
  for (const RunSpec& run : whole) ops.insert(run.call.op);
  EXPECT_EQ(ops.size(), 2u);
}

TEST_F(PlanTest, BaselineFileRoundTripsAndRefusesAnotherCommandOrDamage) {
  Baseline baseline = MakeBaseline(Sited());
  baseline.stdout_text = "out {dir}\n";
  baseline.leftovers = {{"{dir}/left", 3, Leftover::Kind::kBaseline}};
  const std::string file = (dir_ / "baseline.jsonl").string();
  const std::vector<std::string> command = {"prog", "{dir}"};
  ASSERT_TRUE(WriteBaselineFile(file, command, baseline).ok());
  StatusOr<Baseline> read = ReadBaselineFile(file, command);
  ASSERT_TRUE(read.ok()) << read.status().message();
  EXPECT_EQ(read->calls, 10u);
  EXPECT_EQ(read->sites.size(), 4u);
  EXPECT_EQ(read->sites[3].path, baseline.sites[3].path);
  EXPECT_EQ(read->stdout_text, baseline.stdout_text);
  EXPECT_EQ(read->leftovers.size(), 1u);
  EXPECT_FALSE(ReadBaselineFile(file, {"prog", "other"}).ok());
  EXPECT_FALSE(ReadBaselineFile(baseline.trace, command).ok());  // A trace, not a baseline.
  // A site reached by none of the runs, or by more runs than there were.
  for (const int reached : {0, 3}) {
    Baseline odd = baseline;
    odd.runs = 2;
    odd.sites[1].baselines = reached;
    const std::string odd_file = (dir_ / "odd.jsonl").string();
    ASSERT_TRUE(WriteBaselineFile(odd_file, command, odd).ok());
    const StatusOr<Baseline> refused = ReadBaselineFile(odd_file, command);
    ASSERT_FALSE(refused.ok()) << reached;
    const std::string expected = "reached by " + std::to_string(reached) + " of 2 runs";
    EXPECT_NE(refused.status().message().find(expected), std::string::npos)
        << refused.status().message();
  }
  // Cut short, or a line damaged.
  std::ifstream in(file);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  std::ofstream(file) << lines[0] << "\n" << lines[1] << "\n";
  EXPECT_FALSE(ReadBaselineFile(file, command).ok());
  std::ofstream damaged(file);
  for (size_t i = 0; i < lines.size(); ++i) damaged << (i == 4 ? "{\"seq\":" : lines[i]) << "\n";
  damaged.close();
  const StatusOr<Baseline> bad = ReadBaselineFile(file, command);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("line 5"), std::string::npos) << bad.status().message();
}

TEST_F(PlanTest, TraceLinesWithEscapesOrOutOfOrderReadAsTheParserReadsThem) {
  std::ofstream(dir_ / "t")
      << "{\"seq\":2,\"op\":\"write\",\"call\":\"write\",\"path\":\"/s/a\\\"b\","
         "\"injected\":true,\"site\":\"00000000000e\"}\n"
      << "{\"seq\":1,\"pid\":1,\"op\":\"read\",\"call\":\"pread64\",\"path\":\"/s/c\","
         "\"injected\":false}\n";
  TraceReader reader((dir_ / "t").string(), 0, "/s", true, nullptr);
  TracedCall call;
  ASSERT_TRUE(reader.Next(&call));
  EXPECT_EQ(call.op, "read");
  EXPECT_EQ(call.call, "pread64");
  EXPECT_EQ(call.path, "{dir}/c");
  EXPECT_FALSE(call.injected);
  EXPECT_EQ(call.site, "");
  ASSERT_TRUE(reader.Next(&call));
  EXPECT_EQ(call.path, "{dir}/a\"b");
  EXPECT_TRUE(call.injected);
  EXPECT_EQ(call.site, "00000000000e");
  EXPECT_FALSE(reader.Next(&call));
  EXPECT_EQ(reader.bad_line(), 0u);
}

TEST(CmdSweepPlanTest, DepthNamesAreTheThree) {
  Depth depth = Depth::kAll;
  EXPECT_TRUE(DepthFromName("first", &depth));
  EXPECT_EQ(depth, Depth::kFirst);
  EXPECT_TRUE(DepthFromName("edges", &depth));
  EXPECT_EQ(depth, Depth::kEdges);
  EXPECT_FALSE(DepthFromName("some", &depth));
  EXPECT_EQ(DepthName(Depth::kAll), "all");
}

TEST(CmdSweepPlanTest, PathPatternsIgnoreRandomPartsAndNumbersOnly) {
  EXPECT_TRUE(SamePathPattern("{dir}/sortAbc123", "{dir}/sortXyZ789"));
  EXPECT_TRUE(SamePathPattern("{dir}/.tmpAbCdEf", "{dir}/.tmpq1w2e3"));
  EXPECT_TRUE(SamePathPattern("{dir}/pgsql_tmp/pgsql_tmp812.0", "{dir}/pgsql_tmp/pgsql_tmp1234.0"));
  EXPECT_FALSE(SamePathPattern("{dir}/a.txt", "{dir}/b.txt"));
  EXPECT_FALSE(SamePathPattern("{dir}/run0-abc123", "{dir}/run1-xyz789"));
  EXPECT_FALSE(SamePathPattern("{dir}/sortAbc123", "{dir}/x/sortAbc123"));
  EXPECT_FALSE(SamePathPattern("{dir}/sortAbc123", "{dir}/sortAbc123x"));
  EXPECT_EQ(WidenPathPattern("{dir}/a.txt", "{dir}/b.txt"), "{dir}/*");
  EXPECT_EQ(WidenPathPattern("{dir}/sortAbc123", "{dir}/sortXyZ789"), "{dir}/sortAbc123");
  EXPECT_EQ(WidenPathPattern("{dir}/d/a", "{dir}/e/a"), "{dir}/*/a");
}

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
    run.leftovers = {{"{dir}/left<\"&" + std::to_string(index), index, Leftover::Kind::kLeak}};
    run.verdicts.push_back(Verdict::kLeak);
  }
  if (index == 7) run.verdicts = {Verdict::kDiverged};
  if (index == 7) run.diverged_at = "call 3 was \"read\"";
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

TEST_F(PlanTest, SpooledRunsComeBackInPlanOrderFromFilesAlreadyUnlinked) {
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

TEST_F(PlanTest, MergedShardReportsGiveTheUnshardedReportsAndRefuseRunsOutOfPlanOrder) {
  auto write = [this](const CmdSweepResult& result, const std::string& name) {
    std::string file = (dir_ / name).string();
    std::FILE* out = std::fopen(file.c_str(), "w");
    EXPECT_TRUE(WriteJson(out, result).ok());
    std::fclose(out);
    return file;
  };
  const CmdSweepResult whole = SampleResult({0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, 1, 1);
  // Given in any order; shard 2 has no run.
  const std::vector<std::string> files = {write(SampleResult({4, 5, 6, 7, 8, 9}, 3, 3), "3.json"),
                                          write(SampleResult({}, 2, 3), "2.json"),
                                          write(SampleResult({0, 1, 2, 3}, 1, 3), "1.json")};
  StatusOr<CmdSweepResult> merged = MergeReports(files);
  ASSERT_TRUE(merged.ok()) << merged.status().message();
  EXPECT_EQ(merged->run_count, 10u);
  EXPECT_EQ(merged->violations, whole.violations);
  EXPECT_EQ(Reports(*merged), Reports(whole));
  // Read again: the same.
  EXPECT_EQ(Reports(*merged), Reports(whole));

  const std::vector<std::vector<std::vector<uint64_t>>> out_of_order = {
      {{0, 2, 1}, {}, {3}},       // Within a shard.
      {{4, 5}, {0, 1, 2, 3}, {}}  // Shard 2's runs before shard 1's.
  };
  for (const auto& shards : out_of_order) {
    std::vector<std::string> bad;
    for (int k = 1; k <= 3; ++k) {
      bad.push_back(write(SampleResult(shards[static_cast<size_t>(k - 1)], k, 3),
                          "bad" + std::to_string(k) + ".json"));
    }
    const StatusOr<CmdSweepResult> refused = MergeReports(bad);
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(refused.status().message().find("plan order"), std::string::npos)
        << refused.status().message();
  }
}

}  // namespace
}  // namespace spillway::cmdsweep
