// The plan of `spillway sweep -- CMD` (which runs, by site or by call number, sampled and
// sharded, streamed), the baseline's trace and --baseline file and its path patterns,
// without running anything: the traces are written by the tests in inject's format.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "baseline.h"
#include "run_plan.h"
#include "spillway/program_sweep/cmd_sweep.h"
#include "spillway/vfs/fault_rules.h"
#include "trace_reader.h"

namespace spillway::program_sweep {
namespace {

namespace fs = std::filesystem;

const std::vector<FaultMode> kBoth = {FaultMode::kTransient, FaultMode::kPersistent};
const std::vector<FaultMode> kTransientOnly = {FaultMode::kTransient};

// A call of a synthetic trace: its operation, site (empty: none) and path under the scope.
struct Call {
  std::string op;
  std::string site;
  std::string path = "f";
  std::string call{};  // The C library function; empty: the operation's name.
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
                         calls[i].op + "\",\"call\":\"" +
                         (calls[i].call.empty() ? calls[i].op : calls[i].call) + "\",\"path\":\"" +
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
  // By default, 3 write sites x (1 errno x 2 modes + kill + corrupt + lost) and the read
  // site's 1 x 2 + kill + corrupt.
  ASSERT_EQ(runs.size(), 19u);
  EXPECT_EQ(planned, 19u);
  EXPECT_EQ(FaultRuleFor(runs[0]), "write EIO site=00000000000a nth=1");
  EXPECT_EQ(FaultRuleFor(runs[1]), "write EIO site=00000000000a nth=1 times=forever then=any");
  EXPECT_EQ(FaultRuleFor(runs[2]), "write kill site=00000000000a nth=1");
  EXPECT_EQ(runs[2].mode, FaultMode::kKill);
  EXPECT_EQ(FaultRuleFor(runs[3]), "write corrupt site=00000000000a nth=1");
  EXPECT_EQ(FaultRuleFor(runs[4]), "write lost site=00000000000a nth=1");
  EXPECT_EQ(FaultRuleFor(runs[5]), "read EIO site=00000000000b nth=1");
  EXPECT_EQ(FaultRuleFor(runs[8]), "read corrupt site=00000000000b nth=1");
  EXPECT_EQ(FaultRuleFor(runs[9]), "write EIO site=00000000000c nth=1");
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

// A kill run is one per planned call, not one per errno, and needs no errno the
// operation can return: with edges each site's first, second and last calls.
TEST_F(PlanTest, KillIsOneRunPerPlannedCallWhateverTheErrnos) {
  const Baseline baseline = MakeBaseline(Sited());
  PlanOptions options;
  options.errnos = {ENOSPC, EIO};
  options.modes = {FaultMode::kKill};
  options.depth = Depth::kEdges;
  uint64_t planned = 0;
  const std::vector<RunSpec> runs = Plan(baseline, options, &planned);
  ASSERT_EQ(runs.size(), 9u);
  EXPECT_EQ(planned, 9u);
  EXPECT_EQ(FaultRuleFor(runs[1]), "write kill site=00000000000a nth=2");
  EXPECT_EQ(FaultRuleFor(runs[3]), "read kill site=00000000000b nth=1");
  EXPECT_EQ(FaultRuleFor(runs[8]), "write kill site=00000000000d nth=4");
  for (const RunSpec& run : runs) EXPECT_EQ(run.error_number, 0);
  // An errno no operation here can return leaves only the kill runs.
  options.errnos = {ENOTDIR};
  options.modes = {FaultMode::kTransient, FaultMode::kKill};
  options.depth = Depth::kAll;
  const std::vector<RunSpec> all = Plan(baseline, options);
  ASSERT_EQ(all.size(), 10u);
  EXPECT_EQ(FaultRuleFor(all[6]), "write kill after=5");
  // --op keeps kill runs to its operations: the one read call.
  options.ops = {static_cast<uint8_t>(FaultOp::kRead)};
  EXPECT_EQ(Plan(baseline, options).size(), 1u);
}

// Damage runs: corrupt one per planned read or write call, lost one per planned write
// call, whatever the errnos; none for the other operations.
TEST_F(PlanTest, CorruptIsOneRunPerReadOrWriteCallAndLostPerWriteCall) {
  const Baseline baseline = MakeBaseline({{"create", "000000000001"},
                                          {"write", "000000000002"},
                                          {"write", "000000000002"},
                                          {"read", "000000000003"},
                                          {"remove", "000000000004"}});
  PlanOptions options;
  options.errnos = {ENOTDIR};
  options.modes = {FaultMode::kCorrupt, FaultMode::kLost};
  uint64_t planned = 0;
  const std::vector<RunSpec> runs = Plan(baseline, options, &planned);
  ASSERT_EQ(runs.size(), 3u);
  EXPECT_EQ(planned, 3u);
  EXPECT_EQ(FaultRuleFor(runs[0]), "write corrupt site=000000000002 nth=1");
  EXPECT_EQ(FaultRuleFor(runs[1]), "write lost site=000000000002 nth=1");
  EXPECT_EQ(FaultRuleFor(runs[2]), "read corrupt site=000000000003 nth=1");
  for (const RunSpec& run : runs) EXPECT_EQ(run.error_number, 0);
  EXPECT_EQ(runs[1].mode, FaultMode::kLost);
  options.depth = Depth::kEdges;
  EXPECT_EQ(Plan(baseline, options).size(), 5u);  // The write site's second call too.
  options.depth = Depth::kAll;
  const std::vector<RunSpec> all = Plan(baseline, options);
  ASSERT_EQ(all.size(), 5u);
  EXPECT_EQ(FaultRuleFor(all[3]), "write lost after=1");
  EXPECT_EQ(FaultRuleFor(all[4]), "read corrupt after=0");
  // Only lost, on a program without writes: nothing to run.
  options.modes = {FaultMode::kLost};
  options.ops = {static_cast<uint8_t>(FaultOp::kRead)};
  EXPECT_TRUE(Plan(baseline, options).empty());
}

// fflush, fclose and ftruncate are write calls whose bytes were damaged, if at all, where
// they were handed over: no damage run is planned at them, by site or by call number, and
// the plan's size and its sample count the runs that are made.
TEST_F(PlanTest, CallsThatMoveNoBytesGetNoDamageRuns) {
  const Baseline baseline = MakeBaseline({{"write", "000000000001", "f", "fflush"},
                                          {"write", "000000000002", "f", "fwrite"},
                                          {"write", "000000000003", "f", "fclose"},
                                          {"write", "000000000004", "f", "ftruncate"},
                                          {"read", "000000000005", "f", "fread"}});
  PlanOptions options;
  options.errnos = {ENOSPC};
  options.modes = {FaultMode::kTransient, FaultMode::kCorrupt, FaultMode::kLost};
  uint64_t planned = 0;
  std::vector<std::string> rules;
  for (const RunSpec& run : Plan(baseline, options, &planned)) rules.push_back(FaultRuleFor(run));
  const std::vector<std::string> expected = {
      "write ENOSPC site=000000000001 nth=1",  "write ENOSPC site=000000000002 nth=1",
      "write corrupt site=000000000002 nth=1", "write lost site=000000000002 nth=1",
      "write ENOSPC site=000000000003 nth=1",  "write ENOSPC site=000000000004 nth=1",
      "read corrupt site=000000000005 nth=1"};
  EXPECT_EQ(rules, expected);
  EXPECT_EQ(planned, expected.size());
  options.depth = Depth::kAll;
  EXPECT_EQ(Plan(baseline, options, &planned).size(), expected.size());
  EXPECT_EQ(planned, expected.size());
  EXPECT_FALSE(FaultCallMovesBytes("fclose"));
  EXPECT_TRUE(FaultCallMovesBytes("fwrite"));
  // Only damage runs: the first write call (fflush) has none, so the sample keeps the
  // first write call that has them, and every shard of a sample agrees on its size.
  options.modes = {FaultMode::kCorrupt, FaultMode::kLost};
  for (Depth depth : {Depth::kFirst, Depth::kAll}) {
    options.depth = depth;
    options.max_runs = 2;
    std::vector<std::string> sampled;
    for (const RunSpec& run : Plan(baseline, options)) sampled.push_back(FaultRuleFor(run));
    ASSERT_EQ(sampled.size(), 2u) << DepthName(depth);
    EXPECT_NE(sampled[0].find("write corrupt"), std::string::npos) << sampled[0];
    EXPECT_NE(sampled[1].find("read corrupt"), std::string::npos) << sampled[1];
  }
}

TEST_F(PlanTest, ABaselineWithoutSitesIsPlannedByCallNumber) {
  const Baseline baseline = MakeBaseline(Unsited({"write", "write"}));
  PlanOptions options;
  options.errnos = {EIO};
  RunPlan plan(baseline, options, nullptr);
  EXPECT_EQ(plan.depth(), Depth::kAll);
  // 2 calls x (1 errno x 2 modes + kill + corrupt + lost).
  EXPECT_EQ(Plan(baseline, options).size(), 10u);
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
  baseline.leftovers = {{{"{dir}/left", 3}, SweepLeftover::Kind::kBaseline}};
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

// With --baselines, a leftover of any baseline run is the baseline's: each run's own
// leftovers are added once, those of a path already left are not.
TEST(CmdSweepPlanTest, EveryBaselineRunsLeftoversAreTheBaselines) {
  Baseline baseline;
  baseline.leftovers = {{{"{dir}/tmpAbc123", 1}, SweepLeftover::Kind::kBaseline}};
  Baseline other;
  other.leftovers = {{{"{dir}/tmpXyz789", 1}, SweepLeftover::Kind::kBaseline},
                     {{"{dir}/lock", 2}, SweepLeftover::Kind::kBaseline}};
  AddBaselineRun(other, &baseline);
  EXPECT_EQ(baseline.runs, 2);
  ASSERT_EQ(baseline.leftovers.size(), 2u);
  EXPECT_EQ(baseline.leftovers[0].path, "{dir}/tmpAbc123");
  EXPECT_EQ(baseline.leftovers[1].path, "{dir}/lock");
}

// A recorded baseline whose header has one thing changed is refused, saying why.
TEST_F(PlanTest, BaselineFileRefusesAnotherVersionOrADamagedHeader) {
  const Baseline baseline = MakeBaseline(Sited());
  const std::string file = (dir_ / "baseline.jsonl").string();
  const std::vector<std::string> command = {"prog", "{dir}"};
  ASSERT_TRUE(WriteBaselineFile(file, command, baseline).ok());
  std::ifstream in(file);
  std::string header;
  std::getline(in, header);
  const std::string trace((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // `from` replaced by `to` in the header, then read.
  auto read_with = [&](const std::string& from, const std::string& to) {
    std::string changed = header;
    const size_t at = changed.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    if (at != std::string::npos) changed.replace(at, from.size(), to);
    const std::string path = (dir_ / "changed.jsonl").string();
    std::ofstream(path) << changed << "\n" << trace;
    const StatusOr<Baseline> read = ReadBaselineFile(path, command);
    return read.ok() ? std::string() : std::string(read.status().message());
  };
  EXPECT_EQ(read_with("\"runs\":1", "\"runs\":1"), "");
  EXPECT_NE(read_with("\"runs\":1", "\"runs\":0").find("damaged: 0 runs"), std::string::npos);
  EXPECT_NE(read_with("\"spillway_sweep_baseline\":1", "\"spillway_sweep_baseline\":2")
                .find("format version 2, not 1"),
            std::string::npos);
  EXPECT_NE(read_with("\"spillway_sweep_baseline\":1", "\"a_trace\":1")
                .find("not a baseline recorded by spillway sweep"),
            std::string::npos);
  EXPECT_NE(read_with("\"exit\":", "\"status\":").find("damaged header"), std::string::npos);
  EXPECT_NE(read_with("\"calls\":10", "\"calls\":11").find("11 calls recorded, 10 found"),
            std::string::npos);
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

}  // namespace
}  // namespace spillway::program_sweep
