// `spillway inject` as docs/inject.md defines it: bad input, exit statuses, rule options, the
// scope through symlinks, counting across processes and threads, the quota.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "support/inject_support.h"

namespace spillway::inject {
namespace {

namespace fs = std::filesystem;

class CommandTest : public InjectTest {
 protected:
  // Runs `script` with $D set to the scope, under `spillway inject ARGS --json`; returns
  // the summary (the last line of stdout) and leaves the program's own stdout in out_.
  nlohmann::json RunJson(const std::string& args, const std::string& script, int* exit_code) {
    const CommandResult r = RunShell("D=" + ShellQuote(scope_) + " " +
                                     Inject(args + " --json", "sh -c " + ShellQuote(script)));
    *exit_code = r.exit_code;
    const size_t last = r.out.find_last_of('\n', r.out.size() - 2);
    out_ = last == std::string::npos ? "" : r.out.substr(0, last + 1);
    return nlohmann::json::parse(last == std::string::npos ? r.out : r.out.substr(last + 1));
  }
  std::string out_;
};

TEST_F(CommandTest, BadInputExitsTwoWithoutRunningTheProgram) {
  const std::string marker = (root_ / "ran").string();
  for (const std::string& args :
       {std::string("--fault 'frobnicate EIO'"), std::string("--fault 'read ENOSPC'"),
        std::string("--fault 'write EIO after=x'"), std::string("--fault 'write ENOSPC bogus=1'"),
        // Call sites (inject_sites_test.cc): a malformed site=, nth=0, nth= with after=,
        // then= without a site or with a bad value.
        std::string("--fault 'write ENOSPC site=xyz'"),
        std::string("--fault 'write ENOSPC then=any'"),
        std::string("--fault 'write ENOSPC site=9f3a1c0b77e2 then=every'"),
        std::string("--fault 'write ENOSPC site=9F3A1C0B77E2'"),
        std::string("--fault 'write ENOSPC site=9f3a1c0b77e'"),
        std::string("--fault 'write ENOSPC nth=0'"),
        std::string("--fault 'write ENOSPC nth=1 after=0'"), std::string("--quota 12Q"),
        std::string("--under /nonexistent/dir")}) {
    ExpectUsageError(RunShellWithStderr(Inject(args, "touch " + ShellQuote(marker))), "inject",
                     args);
    EXPECT_FALSE(fs::exists(marker)) << args;
  }
  ExpectUsageError(RunShellWithStderr(Inject("", "/nonexistent/program")), "inject",
                   "/nonexistent/program");
}

TEST_F(CommandTest, AStaticBinaryIsRefused) {
  const fs::path source = root_ / "s.c";
  std::ofstream(source) << "int main(void) { return 0; }\n";
  const std::string binary = (root_ / "static").string();
  if (RunShell("cc -static -o " + ShellQuote(binary) + " " + ShellQuote(source)).exit_code != 0) {
    GTEST_SKIP() << "cannot link a static binary here (no static libc)";
  }
  EXPECT_EQ(RunShell(Inject("", binary)).exit_code, 2);
}

TEST_F(CommandTest, GoAndSetuidProgramsAreRefused) {
  // A dynamically linked ELF with the section Go's linker writes.
  const std::string fake_go = (root_ / "go").string();
  if (RunShell("objcopy --add-section .go.buildinfo=/dev/null /bin/true " + ShellQuote(fake_go))
          .exit_code != 0) {
    GTEST_SKIP() << "objcopy is not installed";
  }
  EXPECT_EQ(RunShell(Inject("", fake_go)).exit_code, 2);
  const std::string setuid = (root_ / "setuid").string();
  fs::copy_file("/bin/true", setuid);
  fs::permissions(setuid, fs::perms::set_uid | fs::perms::owner_all);
  EXPECT_EQ(RunShell(Inject("", setuid)).exit_code, 2);
  EXPECT_EQ(RunShell(Inject("", "/bin/true")).exit_code, 0);
}

TEST_F(CommandTest, ExitStatusIsTheProgramsOrSignalOrTimeout) {
  EXPECT_EQ(RunShell(Inject("", "sh -c 'exit 7'")).exit_code, 7);
  EXPECT_EQ(RunShell(Inject("", "sh -c 'kill -9 $$'")).exit_code, 128 + 9);
  EXPECT_EQ(RunShell(Inject("--timeout 0.3", "sleep 10")).exit_code, 124);
}

TEST_F(CommandTest, PathGlobLimitsARule) {
  int code;
  const nlohmann::json s =
      RunJson("--fault 'create EIO path=" + scope_.string() + "/*.tmp'",
              "touch \"$D/a.tmp\"; echo $?; touch \"$D/b.dat\"; echo $?", &code);
  EXPECT_EQ(out_, "1\n0\n");
  ASSERT_EQ(s["faults"].size(), 1u);
  EXPECT_EQ(s["faults"][0]["path"], (scope_ / "a.tmp").string());
  EXPECT_EQ(s["leftovers"].size(), 1u);  // b.dat
}

TEST_F(CommandTest, AScopeReachedThroughASymlinkIsTheSameScope) {
  const fs::path link = root_ / "link";
  fs::create_directory_symlink(scope_, link);
  // The scope named through the link, the file reached through the real path.
  const CommandResult named_by_link = RunShell(
      std::string(SPILLWAY_BINARY) + " inject --json --under " + ShellQuote(link) +
      " --fault 'create EIO' -- sh -c " +
      ShellQuote("touch " + ShellQuote((scope_ / "x").string()) + " 2>/dev/null; echo $?"));
  EXPECT_EQ(named_by_link.out.substr(0, 2), "1\n");
  // The scope named by its real path, the file reached through the link.
  int code;
  const nlohmann::json s = RunJson(
      "--fault 'create EIO'", "touch " + ShellQuote((link / "y").string()) + "; echo $?", &code);
  EXPECT_EQ(out_, "1\n");
  ASSERT_EQ(s["faults"].size(), 1u);
  EXPECT_EQ(s["faults"][0]["path"], (scope_ / "y").string());
}

TEST_F(CommandTest, AfterNHitsTheSameCallAcrossForkedAndExecedChildrenEveryRun) {
  // Files 1..12 made alternately by an exec'd child (sh -c) and a forked subshell.
  const std::string script =
      "for i in 1 2 3 4 5 6 7 8 9 10 11 12; do if [ $((i % 2)) = 0 ]; then "
      "sh -c \"echo x > $D/f$i\" 2>/dev/null; else (echo x > \"$D/f$i\") 2>/dev/null; fi; done; "
      "ls \"$D\" | sort -V | tr '\\n' ' '; echo";
  for (int run = 0; run < 3; ++run) {
    fs::remove_all(scope_);
    fs::create_directory(scope_);
    int code;
    const nlohmann::json s = RunJson("--fault 'create EIO after=6'", script, &code);
    ASSERT_EQ(s["faults"].size(), 1u);
    EXPECT_EQ(s["faults"][0]["path"], (scope_ / "f7").string()) << "run " << run;
    EXPECT_EQ(s["calls"]["create"], 12);
    EXPECT_EQ(out_, "f1 f2 f3 f4 f5 f6 f8 f9 f10 f11 f12 \n");
  }
}

TEST_F(CommandTest, AProgramThatScrubsItsEnvironmentStillGetsTheRules) {
  int code;
  const nlohmann::json s =
      RunJson("--fault 'create EIO'",
              "env -i /bin/sh -c 'touch " + scope_.string() + "/z'; echo $?", &code);
  EXPECT_EQ(out_, "1\n");
  EXPECT_EQ(s["faults"].size(), 1u);
}

// Every exec wrapper puts the shim back for a child started from a scrubbed environment:
// the child's create fails under the rule, and succeeds without it.
TEST_F(CommandTest, EveryExecVariantCarriesTheRulesIntoTheChild) {
  for (const char* call : {"execl", "execlp", "execle", "posix_spawn", "posix_spawnp"}) {
    SCOPED_TRACE(call);
    const std::string probe = std::string(EXEC_PROBE) + " " + call + " \"$D/z\"; echo $?";
    fs::remove_all(scope_);
    fs::create_directory(scope_);
    int code;
    nlohmann::json s = RunJson("--fault 'create EIO'", probe, &code);
    EXPECT_EQ(out_, "1\n");
    EXPECT_EQ(s["faults"].size(), 1u);
    EXPECT_FALSE(fs::exists(scope_ / "z"));

    s = RunJson("", probe, &code);
    EXPECT_EQ(out_, "0\n");
    EXPECT_EQ(s["calls"]["create"], 1);
    EXPECT_TRUE(fs::exists(scope_ / "z"));
  }
}

// A process of the run that switches users (as PostgreSQL's server does under runuser)
// can use the run's state only when it is handed to that user: the files are 0600, so no
// other user can change a run's counters.
class ShareWithTest : public CommandTest {
 protected:
  void SetUp() override {
    if (geteuid() != 0) GTEST_SKIP() << "switching users needs root";
    fs::permissions(root_, fs::perms::owner_all | fs::perms::others_exec);
    fs::permissions(scope_, fs::perms::all);
  }
  // Makes $D/z as user nobody; prints its exit status, and its stderr to $D/../err.
  static std::string AsNobody() {
    return "setpriv --reuid=65534 --regid=65534 --clear-groups touch \"$D/z\" "
           "2>\"$D/../err\"; echo $?";
  }
  std::string Err() const {
    std::ifstream in(root_ / "err");
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  }
};

TEST_F(ShareWithTest, WithoutItAnotherUsersCallsAreNotFaultedAndItSaysSo) {
  int code;
  const nlohmann::json s = RunJson("--fault 'create EIO'", AsNobody(), &code);
  EXPECT_EQ(out_, "0\n");
  EXPECT_EQ(s["faults"].size(), 0u);
  EXPECT_NE(Err().find("cannot open the run's state file"), std::string::npos) << Err();
  EXPECT_EQ(fs::status(trace_).permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write);
}

TEST_F(ShareWithTest, HandedToTheUserItsCallsAreCountedAndFaulted) {
  int code;
  const nlohmann::json s = RunJson("--share-with nobody --fault 'create EIO'", AsNobody(), &code);
  EXPECT_EQ(out_, "1\n");
  ASSERT_EQ(s["faults"].size(), 1u);
  EXPECT_EQ(s["faults"][0]["path"], (scope_ / "z").string());
  EXPECT_EQ(Err().find("state file"), std::string::npos) << Err();
  EXPECT_FALSE(ReadTrace(trace_).empty());
  EXPECT_EQ(fs::status(trace_).permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write);
}

TEST_F(ShareWithTest, AnUnknownUserIsBadInput) {
  const std::string marker = (root_ / "ran").string();
  EXPECT_EQ(
      RunShell(Inject("--share-with no-such-user-here", "touch " + ShellQuote(marker))).exit_code,
      2);
  EXPECT_FALSE(fs::exists(marker));
}

TEST_F(CommandTest, EightThreadsCountExactly) {
  int code;
  const std::string probe = std::string(THREADS_PROBE) + " \"$D\" 8 2000";
  nlohmann::json s = RunJson("", probe, &code);
  EXPECT_EQ(s["calls"]["write"], 8 * 2000);
  EXPECT_EQ(out_, "0\n");
  std::set<uint64_t> seqs;
  for (const nlohmann::json& line : ReadTrace(trace_)) seqs.insert(line["seq"].get<uint64_t>());
  EXPECT_EQ(seqs.size(), 8u * 2000 + 16);  // Every call once: writes, creates, closes.
  EXPECT_EQ(*seqs.rbegin(), 8u * 2000 + 16);

  s = RunJson("--fault 'write EIO after=5000 times=300'", probe, &code);
  EXPECT_EQ(out_, "300\n");
  EXPECT_EQ(s["faults_injected"], 300);
}

TEST_F(CommandTest, QuotaStoresWhatFitsThenFailsWithEnospc) {
  int code;
  nlohmann::json s = RunJson("--quota 10K", "head -c 20000 /dev/zero > \"$D/f\"; echo $?", &code);
  EXPECT_EQ(fs::file_size(scope_ / "f"), 10240u);
  EXPECT_NE(out_, "0\n");
  ASSERT_GE(s["faults"].size(), 1u);
  EXPECT_EQ(s["faults"][0]["errno"], "ENOSPC");

  fs::remove_all(scope_);
  fs::create_directory(scope_);
  // Removed files give their bytes back.
  s = RunJson("--quota 10K",
              "head -c 10240 /dev/zero > \"$D/a\" && rm \"$D/a\" && head -c 10240 /dev/zero > "
              "\"$D/b\"; echo $?",
              &code);
  EXPECT_EQ(out_, "0\n");
  EXPECT_EQ(s["faults_injected"], 0);
}

TEST_F(CommandTest, TheFdTableFollowsDuplicatesAndExec) {
  int code;
  // fd 5 opened by the shell, duplicated to 7, closed; 7 written by this shell and then by
  // an exec'd child that inherited it.
  const nlohmann::json s =
      RunJson("--fault 'write EIO times=forever'",
              "exec 5>\"$D/x\"; exec 7>&5; exec 5>&-; (echo a >&7) 2>/dev/null; echo $?; "
              "sh -c 'echo b >&7' 2>/dev/null; echo $?",
              &code);
  EXPECT_EQ(out_, "1\n1\n");  // Both echos failed.
  EXPECT_EQ(s["faults_injected"], 2);
}

TEST_F(CommandTest, InjectedEnoentAndEexistMakeTheWorldAgree) {
  std::ofstream(scope_ / "f") << "x";
  int code;
  RunJson("--fault 'stat ENOENT'", "stat \"$D/f\" >/dev/null 2>&1; echo $?", &code);
  EXPECT_EQ(out_, "1\n");
  EXPECT_FALSE(fs::exists(scope_ / "f")) << "an injected ENOENT removes what the call names";
  RunJson("--fault 'mkdir EEXIST'", "mkdir \"$D/d\" 2>/dev/null; echo $?", &code);
  EXPECT_EQ(out_, "1\n");
  EXPECT_TRUE(fs::is_directory(scope_ / "d")) << "an injected EEXIST creates it";
}

TEST_F(CommandTest, ProbabilityReplaysFromTheSeed) {
  const std::string script =
      "for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do touch \"$D/f$i\" "
      "2>/dev/null || printf '%s ' $i; done; echo";
  const auto failed = [&](int seed) {
    fs::remove_all(scope_);
    fs::create_directory(scope_);
    int code;
    RunJson(
        "--seed " + std::to_string(seed) + " --fault 'create EIO times=forever probability=0.5'",
        script, &code);
    return out_;
  };
  const std::string first = failed(3);
  EXPECT_EQ(first, failed(3));
  EXPECT_NE(first, "\n");
  EXPECT_NE(first, failed(4));
}

}  // namespace
}  // namespace spillway::inject
