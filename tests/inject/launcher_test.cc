// inject::Run, the launcher behind `spillway inject`, called as a library: the exit status
// or signal, the timeout, a rule that fires, the leftovers, bad input before the program
// starts, and a report that never travels on the program's streams.
#include "spillway/inject/launcher.h"

#include <gmock/gmock.h>
#include <signal.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "support/inject_support.h"

namespace spillway::inject {
namespace {

namespace fs = std::filesystem;

class LauncherTest : public InjectTest {
 protected:
  // An invocation of `sh -c SCRIPT` with $D set to the scope, scoped to it, with the shim
  // built beside the spillway executable.
  Invocation Shell(const std::string& script) const {
    Invocation inv;
    inv.command = {"sh", "-c", "D=" + ShellQuote(scope_.string()) + "; " + script};
    inv.under = {scope_.string()};
    inv.shim = SPILLWAY_SHIM;
    return inv;
  }
};

std::string ReadAll(const fs::path& path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

TEST_F(LauncherTest, TheExitStatusIsTheProgramsOwn) {
  const StatusOr<Outcome> outcome = inject::Run(Shell("exit 7"));
  ASSERT_TRUE(outcome.ok()) << outcome.status().ToString();
  EXPECT_EQ(outcome->exit_status, 7);
  EXPECT_EQ(outcome->signal, 0);
  EXPECT_FALSE(outcome->timed_out);
}

TEST_F(LauncherTest, ASignalDeathIs128PlusTheSignal) {
  const StatusOr<Outcome> outcome = inject::Run(Shell("kill -9 $$"));
  ASSERT_TRUE(outcome.ok()) << outcome.status().ToString();
  EXPECT_EQ(outcome->exit_status, 128 + 9);
  EXPECT_EQ(outcome->signal, 9);
  EXPECT_FALSE(outcome->timed_out);
}

// The launcher keeps its check of a program per file: a program replaced at the same path
// (here by one with the section Go's linker writes) is checked again.
TEST_F(LauncherTest, AProgramReplacedAtItsPathIsCheckedAgain) {
  const fs::path fake_go = root_ / "go";
  if (RunShell("objcopy --add-section .go.buildinfo=/dev/null /bin/true " +
               ShellQuote(fake_go.string()))
          .exit_code != 0) {
    GTEST_SKIP() << "objcopy is not installed";
  }
  const fs::path program = root_ / "program";
  fs::copy_file("/bin/true", program);
  Invocation inv = Shell("");
  inv.command = {program.string()};
  ASSERT_TRUE(inject::Run(inv).ok());
  fs::copy_file(fake_go, program, fs::copy_options::overwrite_existing);
  const StatusOr<Outcome> refused = inject::Run(inv);
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(refused.status().message(), ::testing::HasSubstr("is a Go program"));
  fs::copy_file("/bin/true", program, fs::copy_options::overwrite_existing);
  EXPECT_TRUE(inject::Run(inv).ok());
}

TEST_F(LauncherTest, ATimeoutEndsTheProgramAndItsChildrenWith124) {
  const std::string marker = (root_ / "late").string();
  Invocation inv = Shell("sleep 10 & wait; touch " + ShellQuote(marker));
  inv.timeout = 0.3;
  const StatusOr<Outcome> outcome = inject::Run(inv);
  ASSERT_TRUE(outcome.ok()) << outcome.status().ToString();
  EXPECT_EQ(outcome->exit_status, 124);
  EXPECT_TRUE(outcome->timed_out);
  EXPECT_NE(outcome->signal, 0);
  EXPECT_FALSE(fs::exists(marker));
}

TEST_F(LauncherTest, ARuleFiresOnlyInTheScopeAndIsReported) {
  Invocation inv = Shell("touch \"$D/a\" || exit 3; touch " + ShellQuote((twin_ / "b").string()));
  inv.faults = {"create EIO"};
  const StatusOr<Outcome> outcome = inject::Run(inv);
  ASSERT_TRUE(outcome.ok()) << outcome.status().ToString();
  EXPECT_EQ(outcome->exit_status, 3);
  EXPECT_EQ(outcome->faults_injected, 1u);
  ASSERT_EQ(outcome->faults.size(), 1u);
  EXPECT_EQ(outcome->faults[0].op, "create");
  EXPECT_EQ(outcome->faults[0].error, "EIO");
  EXPECT_EQ(outcome->faults[0].path, (fs::canonical(scope_) / "a").string());
  EXPECT_GT(outcome->faults[0].pid, 0);
  EXPECT_EQ(outcome->calls.at("create"), 1u);
  EXPECT_FALSE(fs::exists(scope_ / "a"));
  EXPECT_TRUE(outcome->leftovers.empty());
}

// The shim's counters of each rule, in the rules' order: the calls it counted and the ones
// it failed (what a sweep's untraced run is judged by).
TEST_F(LauncherTest, EachRulesCountersSayHowOftenItMatchedAndFailed) {
  Invocation inv = Shell("for f in a b c; do touch \"$D/$f\"; done; mkdir \"$D/d\"; exit 0");
  inv.faults = {"create EIO nth=2", "mkdir ENOSPC nth=2",
                "create EACCES path=" + (fs::canonical(scope_) / "c").string()};
  const StatusOr<Outcome> outcome = inject::Run(inv);
  ASSERT_TRUE(outcome.ok()) << outcome.status().ToString();
  ASSERT_EQ(outcome->rules.size(), 3u);
  EXPECT_EQ(outcome->rules[0].matched, 3u);  // a, b (failed), c.
  EXPECT_EQ(outcome->rules[0].failed, 1u);
  EXPECT_EQ(outcome->rules[1].matched, 1u);  // One mkdir: its second never came.
  EXPECT_EQ(outcome->rules[1].failed, 0u);
  EXPECT_EQ(outcome->rules[2].failed, 1u);  // c, after the first rule let it through.
  EXPECT_FALSE(fs::exists(scope_ / "b"));
  EXPECT_FALSE(fs::exists(scope_ / "c"));
}

// A fault's record carries its call's number among the run's in-scope calls: the trace's
// "seq" of the call it failed, and the same number in a run without a trace (what a sweep's
// untraced run by call number is judged by).
TEST_F(LauncherTest, AFaultsRecordCarriesItsCallsNumberTracedOrNot) {
  Invocation inv = Shell("for f in a b c; do touch \"$D/$f\"; done; exit 0");
  inv.faults = {"create EIO nth=2"};
  const fs::path trace = root_ / "run.trace";
  inv.trace = trace.string();
  inv.symbolize = false;
  const StatusOr<Outcome> traced = inject::Run(inv);
  ASSERT_TRUE(traced.ok()) << traced.status().ToString();
  ASSERT_EQ(traced->faults.size(), 1u);
  uint64_t failed_call = 0;
  for (const nlohmann::json& call : ReadTrace(trace)) {
    if (call.at("injected").get<bool>()) failed_call = call.at("seq").get<uint64_t>();
  }
  EXPECT_GT(failed_call, 1u);  // a's create came before it.
  EXPECT_EQ(traced->faults[0].seq, failed_call);
  fs::remove(scope_ / "a");
  fs::remove(scope_ / "c");

  inv.trace.clear();
  const StatusOr<Outcome> untraced = inject::Run(inv);
  ASSERT_TRUE(untraced.ok()) << untraced.status().ToString();
  ASSERT_EQ(untraced->faults.size(), 1u);
  EXPECT_EQ(untraced->faults[0].seq, failed_call);
}

// A fault's record holds its path whole, up to PATH_MAX, so that a sweep can compare it
// with the baseline's call (a record once kept 511 bytes).
TEST_F(LauncherTest, AFaultsRecordHoldsItsWholePath) {
  const std::string name(200, 'd');
  const fs::path deep = scope_ / name / name / name;
  fs::create_directories(deep);
  Invocation inv = Shell("touch " + ShellQuote((deep / "f").string()));
  inv.faults = {"create EIO"};
  const StatusOr<Outcome> outcome = inject::Run(inv);
  ASSERT_TRUE(outcome.ok()) << outcome.status().ToString();
  ASSERT_EQ(outcome->faults.size(), 1u);
  const std::string whole = (fs::canonical(deep) / "f").string();
  EXPECT_GT(whole.size(), 600u);
  EXPECT_EQ(outcome->faults[0].path, whole);
}

// The launcher writes and reads its state file through a descriptor of its own: the
// program does not inherit it (the shim maps the file by its path).
TEST_F(LauncherTest, TheProgramInheritsNoDescriptorOfTheStateFile) {
  const fs::path listing = root_ / "fds";
  Invocation inv = Shell("ls -l /proc/self/fd/");
  inv.stdout_path = listing.string();
  const StatusOr<Outcome> outcome = inject::Run(inv);
  ASSERT_TRUE(outcome.ok()) << outcome.status().ToString();
  ASSERT_EQ(outcome->exit_status, 0);
  const std::string fds = ReadAll(listing);
  EXPECT_THAT(fds, ::testing::HasSubstr(listing.string()));  // Its stdout is listed.
  // State files are named spillway-inject-XXXXXX, as this test's directory is.
  std::istringstream lines(fds);
  for (std::string line; std::getline(lines, line);) {
    if (line.find(root_.string()) == std::string::npos) {
      EXPECT_THAT(line, ::testing::Not(::testing::HasSubstr("spillway-inject-")));
    }
  }
}

// The SigIgn mask of /proc/PID/status lines in `text`, in order.
std::vector<uint64_t> IgnoredMasks(const std::string& text) {
  std::vector<uint64_t> masks;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("SigIgn:", 0) == 0) masks.push_back(std::stoull(line.substr(7), nullptr, 16));
  }
  return masks;
}

// While the program runs, the caller ignores SIGINT and SIGQUIT (as system(3) does) unless
// told not to (a sweep, which must stop on an interrupt); the program gets them as the
// caller had them before, either way.
TEST_F(LauncherTest, TheCallerIgnoresInterruptsWhileTheProgramRunsUnlessToldNot) {
  struct sigaction by_default {};
  by_default.sa_handler = SIG_DFL;
  struct sigaction old_int {};
  struct sigaction old_quit {};
  sigaction(SIGINT, &by_default, &old_int);
  sigaction(SIGQUIT, &by_default, &old_quit);
  const uint64_t interrupts = (uint64_t{1} << (SIGINT - 1)) | (uint64_t{1} << (SIGQUIT - 1));
  for (const bool ignore : {true, false}) {
    Invocation inv = Shell("grep SigIgn /proc/$PPID/status; grep SigIgn /proc/$$/status");
    inv.ignore_interrupts = ignore;
    inv.stdout_path = (root_ / "stdout").string();
    const StatusOr<Outcome> outcome = inject::Run(inv);
    ASSERT_TRUE(outcome.ok()) << outcome.status().ToString();
    const std::vector<uint64_t> masks = IgnoredMasks(ReadAll(inv.stdout_path));
    ASSERT_EQ(masks.size(), 2u) << ReadAll(inv.stdout_path);
    EXPECT_EQ(masks[0] & interrupts, ignore ? interrupts : 0) << "the caller, ignore " << ignore;
    EXPECT_EQ(masks[1] & interrupts, 0u) << "the program, ignore " << ignore;
  }
  sigaction(SIGINT, &old_int, nullptr);
  sigaction(SIGQUIT, &old_quit, nullptr);
}

TEST_F(LauncherTest, LeftoversAreWhatTheRunAddedToTheScopes) {
  std::ofstream(scope_ / "before") << "old";
  const StatusOr<Outcome> outcome =
      inject::Run(Shell("mkdir \"$D/d\" && printf 12345 > \"$D/d/f\" && printf 1 > \"$D/before\""));
  ASSERT_TRUE(outcome.ok()) << outcome.status().ToString();
  EXPECT_EQ(outcome->exit_status, 0);
  const fs::path real = fs::canonical(scope_);
  ASSERT_EQ(outcome->leftovers.size(), 2u);
  EXPECT_EQ(outcome->leftovers[0].path, (real / "d").string());
  EXPECT_EQ(outcome->leftovers[0].size, 0u);
  EXPECT_EQ(outcome->leftovers[1].path, (real / "d" / "f").string());
  EXPECT_EQ(outcome->leftovers[1].size, 5u);
}

TEST_F(LauncherTest, AProgramPrintingASummaryOfItsOwnDoesNotChangeTheOutcome) {
  const fs::path out = root_ / "stdout";
  // The last line of the program's stdout looks like `spillway inject --json`'s summary.
  Invocation inv = Shell(
      "printf x > \"$D/real\"; "
      "echo '{\"exit\":0,\"faults_injected\":0,\"leftovers\":[{\"path\":\"/fake\",\"size\":9}]}'");
  inv.stdout_path = out.string();
  const StatusOr<Outcome> outcome = inject::Run(inv);
  ASSERT_TRUE(outcome.ok()) << outcome.status().ToString();
  EXPECT_EQ(ReadAll(out),
            "{\"exit\":0,\"faults_injected\":0,\"leftovers\":[{\"path\":\"/fake\",\"size\":9}]}\n");
  ASSERT_EQ(outcome->leftovers.size(), 1u);
  EXPECT_EQ(outcome->leftovers[0].path, (fs::canonical(scope_) / "real").string());
  const nlohmann::json summary = SummaryJson(*outcome);
  ASSERT_EQ(summary["leftovers"].size(), 1u);
  EXPECT_EQ(summary["leftovers"][0]["path"], outcome->leftovers[0].path);
  EXPECT_EQ(summary["leftovers"][0]["size"], 1);
  EXPECT_EQ(summary["exit"], 0);
}

TEST_F(LauncherTest, BadInputIsAnErrorAndTheProgramNeverRuns) {
  const std::string marker = (root_ / "ran").string();
  Invocation bad_rule = Shell("touch " + ShellQuote(marker));
  bad_rule.faults = {"write EIO after=x"};
  Invocation bad_scope = Shell("touch " + ShellQuote(marker));
  bad_scope.under = {(root_ / "missing").string()};
  Invocation no_program = Shell("");
  no_program.command = {(root_ / "no-such-program").string()};
  Invocation no_shim = Shell("touch " + ShellQuote(marker));
  no_shim.shim = (root_ / "no-shim.so").string();
  for (const Invocation& inv : {bad_rule, bad_scope, no_program, no_shim}) {
    const StatusOr<Outcome> outcome = inject::Run(inv);
    ASSERT_FALSE(outcome.ok());
    EXPECT_EQ(outcome.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(outcome.status().message().find('\n'), std::string::npos);
  }
  EXPECT_EQ(inject::Run(bad_scope).status().message(),
            "--under " + (root_ / "missing").string() + ": not an existing directory");
  EXPECT_FALSE(fs::exists(marker));
}

TEST_F(LauncherTest, TheQuotaCountsWhatTheScopesHeldBefore) {
  std::ofstream(scope_ / "before") << std::string(60, 'x');
  Invocation inv = Shell("head -c 100 /dev/zero > \"$D/f\"");
  inv.quota = 100;
  const StatusOr<Outcome> outcome = inject::Run(inv);
  ASSERT_TRUE(outcome.ok()) << outcome.status().ToString();
  EXPECT_NE(outcome->exit_status, 0);
  EXPECT_EQ(fs::file_size(scope_ / "f"), 40u);
  ASSERT_GE(outcome->faults.size(), 1u);
  EXPECT_EQ(outcome->faults[0].error, "ENOSPC");
}

TEST(ParseQuotaTest, BytesWithAnOptionalSuffix) {
  EXPECT_EQ(ParseQuota("100"), 100u);
  EXPECT_EQ(ParseQuota("64K"), 64u << 10);
  EXPECT_EQ(ParseQuota("10M"), 10u << 20);
  EXPECT_EQ(ParseQuota("1G"), uint64_t{1} << 30);
  EXPECT_EQ(ParseQuota("0"), std::nullopt);
  EXPECT_EQ(ParseQuota("12Q"), std::nullopt);
  EXPECT_EQ(ParseQuota("K"), std::nullopt);
  EXPECT_EQ(ParseQuota(""), std::nullopt);
}

}  // namespace
}  // namespace spillway::inject
