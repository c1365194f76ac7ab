// Kill runs of `spillway sweep -- CMD` on kill_probe.c, built three ways: the process is
// killed at each site's first call and restarted in the same scope, and the verdicts say
// what the restart made of what the killed run left (orphan, reclaimed, restart_failed).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <vector>

#include "support/inject_support.h"

namespace spillway::inject {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr int kSigKill = 9;
constexpr uint64_t kFileSize = 4096;  // kill_probe.c's FILE_SIZE.

class KillSweepTest : public InjectTest {
 protected:
  // `spillway sweep --json --mode kill ARGS -- PROGRAM {dir}` (SweepJson).
  json SweepKill(const std::string& args, const std::string& program, int expected_exit) const {
    return SweepJson("--mode kill " + args, program, expected_exit);
  }
};

std::vector<std::string> Verdicts(const json& run) {
  return run["verdicts"].get<std::vector<std::string>>();
}

// The run killed at the first call of the site whose calls are `op` on `path_prefix`.
json RunAt(const json& result, const std::string& op, const std::string& path_prefix) {
  for (const json& run : result["runs"]) {
    if (run["op"] == op && run["path"].get<std::string>().rfind(path_prefix, 0) == 0) return run;
  }
  ADD_FAILURE() << "no " << op << " run on " << path_prefix;
  return json::object();
}

// The spill files under `dir` and its directories, with their sizes.
std::vector<uint64_t> SpillFileSizes(const fs::path& dir) {
  std::vector<uint64_t> sizes;
  for (const fs::directory_entry& e : fs::recursive_directory_iterator(dir)) {
    if (e.path().filename().string().rfind("spill-", 0) == 0) sizes.push_back(e.file_size());
  }
  return sizes;
}

// A program that never looks for stale files: each kill after its first create leaves
// them, and they are still there after the restart, each named and sized.
TEST_F(KillSweepTest, FilesTheRestartNeverTakesBackAreOrphans) {
  const fs::path junit = root_ / "junit.xml";
  const json result = SweepKill("--junit " + ShellQuote(junit.string()), KILL_ORPHAN, 1);
  ASSERT_TRUE(result.is_object());
  // Killed at the first unlink: both files, whole, are left to the restart, which makes
  // and removes two of its own and leaves those.
  const json at_remove = RunAt(result, "remove", "{dir}/spill-");
  EXPECT_EQ(at_remove["mode"], "kill");
  EXPECT_TRUE(at_remove["errno"].is_null());
  EXPECT_EQ(at_remove["signal"], kSigKill);
  EXPECT_EQ(Verdicts(at_remove), std::vector<std::string>{"orphan"});
  EXPECT_EQ(at_remove["restart"]["exit"], 0);
  EXPECT_EQ(at_remove["restart"]["output_matches"], true);
  ASSERT_EQ(at_remove["orphans"].size(), 2u);
  const std::regex spill_name(R"(\{dir\}/spill-[A-Za-z0-9]{6})");
  for (const json& orphan : at_remove["orphans"]) {
    EXPECT_TRUE(std::regex_match(orphan["path"].get<std::string>(), spill_name)) << orphan;
    EXPECT_EQ(orphan["size"], kFileSize);
  }
  EXPECT_NE(at_remove["reproducer"].get<std::string>().find("--fault 'remove kill site="),
            std::string::npos);
  // Killed at its first write: one empty file.
  const json at_write = RunAt(result, "write", "{dir}/spill-");
  ASSERT_EQ(at_write["orphans"].size(), 1u);
  EXPECT_EQ(at_write["orphans"][0]["size"], 0);
  // Killed before its first create: nothing to take back.
  EXPECT_EQ(Verdicts(RunAt(result, "create", "{dir}/spill-")),
            std::vector<std::string>{"tolerated"});
  const json& counts = result["summary"]["by_verdict"];
  EXPECT_EQ(counts["orphan"], 3);  // Killed at the write, the close and the unlink.
  EXPECT_EQ(counts["tolerated"], 1);
  EXPECT_EQ(counts["reclaimed"], 0);
  EXPECT_EQ(counts["restart_failed"], 0);
  std::ifstream xml(junit);
  const std::string text((std::istreambuf_iterator<char>(xml)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("<failure message=\"orphan\">"), std::string::npos);
  EXPECT_NE(text.find("bytes still held"), std::string::npos);
  // The reproducer kills and restarts as the run did: the two whole files stay.
  const fs::path replay = root_ / "replay";
  fs::create_directories(replay);
  std::string line = at_remove["reproducer"].get<std::string>();
  const std::string scope = fs::canonical(scope_).string();
  ASSERT_NE(line.find(scope), std::string::npos) << line;
  line.replace(line.find(scope), scope.size(), replay.string());
  RunShell("(" + line + ") >/dev/null 2>&1");
  EXPECT_EQ(SpillFileSizes(replay), (std::vector<uint64_t>{kFileSize, kFileSize}));
}

// A program that removes stale files of its own name pattern at start takes back what
// every killed run left.
TEST_F(KillSweepTest, ARestartThatRemovesStaleFilesReclaimsThem) {
  const json result = SweepKill("", KILL_RECLAIM, 0);
  ASSERT_TRUE(result.is_object());
  const json at_remove = RunAt(result, "remove", "{dir}/spill-");
  EXPECT_EQ(Verdicts(at_remove), std::vector<std::string>{"reclaimed"});
  EXPECT_TRUE(at_remove["orphans"].empty());
  EXPECT_EQ(at_remove["restart"]["exit"], 0);
  const json& counts = result["summary"]["by_verdict"];
  EXPECT_EQ(counts["reclaimed"], 3);  // Killed at the first write, close and unlink.
  EXPECT_EQ(counts["orphan"], 0);
  EXPECT_EQ(result["summary"]["violations"], 0);
}

// A program that refuses to start while a stale lock exists: every run killed while it
// held the lock breaks the next one.
TEST_F(KillSweepTest, AStaleLockThatStopsTheRestartIsRestartFailed) {
  const json result = SweepKill("", KILL_LOCK, 1);
  ASSERT_TRUE(result.is_object());
  const json at_create = RunAt(result, "create", "{dir}/spill-");
  EXPECT_EQ(Verdicts(at_create), (std::vector<std::string>{"restart_failed", "orphan"}));
  EXPECT_EQ(at_create["restart"]["exit"], 3);
  EXPECT_EQ(at_create["restart"]["output_matches"], false);
  ASSERT_EQ(at_create["orphans"].size(), 1u);
  EXPECT_EQ(at_create["orphans"][0]["path"], "{dir}/probe.lock");
  // Killed before it took the lock, the restart runs.
  EXPECT_EQ(Verdicts(RunAt(result, "create", "{dir}/probe.lock")),
            std::vector<std::string>{"tolerated"});
  // Every site after the lock's create: its close, then mkstemp, write, close and unlink of
  // the spill files, and the lock's own unlink.
  EXPECT_EQ(result["summary"]["by_verdict"]["restart_failed"], 6);
}

// --restart runs another command as the restart: one that clears the lock first starts.
TEST_F(KillSweepTest, RestartRunsItsOwnCommandInTheKilledRunsScope) {
  const std::string restart = std::string("rm -f {dir}/probe.lock && ") + KILL_LOCK + " {dir}";
  // Still exit 1: the lock is gone, the spill files stay.
  const json result = SweepKill("--restart " + ShellQuote(restart), KILL_LOCK, 1);
  ASSERT_TRUE(result.is_object());
  EXPECT_EQ(result["summary"]["by_verdict"]["restart_failed"], 0);
  const json at_remove = RunAt(result, "remove", "{dir}/spill-");
  EXPECT_EQ(at_remove["restart"]["exit"], 0);
  EXPECT_EQ(Verdicts(at_remove), std::vector<std::string>{"orphan"});  // Its spill files.
  EXPECT_NE(at_remove["reproducer"].get<std::string>().find(
                "-- /bin/sh -c 'rm -f '\"$d\"'/probe.lock && "),
            std::string::npos)
      << at_remove["reproducer"];
}

// `spillway sweep merge` keeps the kill runs' orphans, restarts and counts.
TEST_F(KillSweepTest, MergeKeepsOrphansAndRestarts) {
  std::vector<std::string> reports;
  const std::string baseline = ShellQuote((root_ / "baseline").string());
  for (const char* shard : {"1/2", "2/2"}) {
    const fs::path report = root_ / (std::string("shard") + shard[0] + ".json");
    RunShell(std::string(SPILLWAY_BINARY) + " sweep --under " + ShellQuote(scope_) +
             " --json --mode kill --baseline " + baseline + " --shard " + shard + " -- " +
             KILL_ORPHAN + " '{dir}' > " + ShellQuote(report.string()));
    reports.push_back(ShellQuote(report.string()));
  }
  const CommandResult merged = RunShell(std::string(SPILLWAY_BINARY) + " sweep merge --json " +
                                        reports[0] + " " + reports[1]);
  EXPECT_EQ(merged.exit_code, 1);
  const json result = json::parse(merged.out, nullptr, false);
  ASSERT_FALSE(result.is_discarded());
  EXPECT_EQ(result["summary"]["by_verdict"]["orphan"], 3);
  const json at_remove = RunAt(result, "remove", "{dir}/spill-");
  EXPECT_EQ(at_remove["orphans"].size(), 2u);
  EXPECT_EQ(at_remove["restart"]["output_matches"], true);
}

}  // namespace
}  // namespace spillway::inject
