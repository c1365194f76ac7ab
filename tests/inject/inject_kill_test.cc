// `OP kill` rules (docs/inject.md, "Rules"): the calling process dies by SIGKILL just before
// the call a rule names, and only that process.
#include <filesystem>
#include <string>

#include "support/inject_support.h"

namespace spillway::inject {
namespace {

namespace fs = std::filesystem;

class InjectKillTest : public InjectTest {
 protected:
  CommandResult Probe(const std::string& args) {
    std::string command = KILL_PROBE;
    command += ' ';
    command += ShellQuote((scope_ / "f").string());
    return RunShellWithStderr(Inject(args, command));
  }
  // The site of each of the child's writes, in order, from the last run's trace.
  std::vector<std::string> WriteSites() {
    std::vector<std::string> sites;
    for (const nlohmann::json& line : ReadTrace(trace_)) {
      if (line["op"] == "write") sites.push_back(line["site"].get<std::string>());
    }
    return sites;
  }
};

TEST_F(InjectKillTest, ASiteKillRuleKillsTheChildJustBeforeThatCallAndTheParentGoesOn) {
  const CommandResult baseline = Probe("");
  ASSERT_EQ(baseline.exit_code, 0) << baseline.err;
  EXPECT_EQ(baseline.out, "a1 ok\na2 ok\na3 ok\nb1 ok\nchild exit 0\nfile aaab\n");
  const std::vector<std::string> sites = WriteSites();
  ASSERT_EQ(sites.size(), 4u);
  ASSERT_EQ(sites[0], sites[1]);
  ASSERT_NE(sites[0], sites[3]);

  // The second call of write_a's site: the first write landed, the second never happened,
  // and the parent, which the rule does not kill, reports its child's SIGKILL.
  const CommandResult killed = Probe("--fault 'write kill site=" + sites[0] + " nth=2'");
  EXPECT_EQ(killed.exit_code, 0) << killed.err;
  EXPECT_EQ(killed.out, "a1 ok\nchild signal 9\nfile a\n");
  EXPECT_NE(killed.err.find("write kill " + (fs::canonical(scope_) / "f").string()),
            std::string::npos)
      << killed.err;
  // The trace says so: the killed call is injected with the action, and is the last write.
  const std::vector<nlohmann::json> trace = ReadTrace(trace_);
  int writes = 0;
  for (const nlohmann::json& line : trace) {
    if (line["op"] != "write") continue;
    ++writes;
    if (writes == 2) {
      EXPECT_EQ(line["injected"], true);
      EXPECT_EQ(line["action"], "kill");
      EXPECT_EQ(line["errno"], nullptr);
    }
  }
  EXPECT_EQ(writes, 2);

  // write_b's site, first call: all three of write_a's writes landed.
  const CommandResult at_b = Probe("--fault 'write kill site=" + sites[3] + " nth=1'");
  EXPECT_EQ(at_b.out, "a1 ok\na2 ok\na3 ok\nchild signal 9\nfile aaa\n");
}

TEST_F(InjectKillTest, AKillOfTheProgramItselfIsItsExitStatus) {
  // The parent's own first create: the program spillway started dies by SIGKILL.
  const CommandResult r = RunShellWithStderr(
      Inject("--fault 'create kill'",
             "sh -c " + ShellQuote("echo x > " + ShellQuote((scope_ / "g").string()))));
  EXPECT_EQ(r.exit_code, 128 + 9) << r.err;
  EXPECT_FALSE(fs::exists(scope_ / "g"));
}

TEST_F(InjectKillTest, KillWithAnErrnoOrTimesIsBadInput) {
  for (const char* rule :
       {"write kill EIO", "write EIO kill", "write kill times=2", "write kill times=forever"}) {
    const CommandResult r = RunShellWithStderr(Inject(
        std::string("--fault '") + rule + "'", "touch " + ShellQuote((scope_ / "never").string())));
    ExpectUsageError(r, "inject", "kill");
    EXPECT_FALSE(fs::exists(scope_ / "never")) << rule;
  }
}

}  // namespace
}  // namespace spillway::inject
