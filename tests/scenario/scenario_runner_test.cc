// Tests of the scenario runner: how commands map onto the spill manager and the
// filesystems, the messages and exit codes of RunScenarioText, name errors, and the
// lifetime of the private posix root. scenario_runner_step_test.cc drives a Runner one
// step at a time.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <ostream>
#include <sstream>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <variant>
#include <vector>

#include "spillway/scenario/scenario.h"
#include "support/scenario_test_support.h"
#include "support/temp_dir.h"

namespace spillway::scenario {
namespace {

using test_support::FsKindParamName;
using test_support::kDocumentedExample;
using test_support::ReadText;
using test_support::RunnerOptionsOn;
using test_support::TempDir;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::StartsWith;

struct RunOutput {
  int code = -1;
  std::string out;
  std::string err;
};

std::string ReadBack(std::FILE* f) {
  std::string text;
  std::rewind(f);
  char buffer[4096];
  size_t n = 0;
  while ((n = std::fread(buffer, 1, sizeof(buffer), f)) > 0) text.append(buffer, n);
  std::fclose(f);
  return text;
}

// Calls `run(out, err)` with both streams going to temporary files, and returns its exit
// code and what it printed. Without the files the test fails and `run` is not called.
template <typename Run>
RunOutput Captured(const Run& run) {
  std::FILE* out = std::tmpfile();
  std::FILE* err = std::tmpfile();
  if (out == nullptr || err == nullptr) {
    ADD_FAILURE() << "tmpfile() failed";
    if (out != nullptr) std::fclose(out);
    if (err != nullptr) std::fclose(err);
    return RunOutput{};
  }
  RunOutput result;
  result.code = run(out, err);
  result.out = ReadBack(out);
  result.err = ReadBack(err);
  return result;
}

// Runs `text` as the file "t.scen" and captures what it prints.
RunOutput RunText(std::string_view text, const RunnerOptions& options, bool verbose = false) {
  return Captured([&](std::FILE* out, std::FILE* err) {
    return RunScenarioText(text, "t.scen", options, verbose, out, err);
  });
}

// Sets an environment variable for the life of the object.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    ::setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (old_.has_value()) {
      ::setenv(name_, old_->c_str(), 1);
    } else {
      ::unsetenv(name_);
    }
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

std::vector<std::string> Entries(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    names.push_back(entry.path().filename().string());
  }
  return names;
}

// Tests that hold on both filesystems.
class RunnerTest : public ::testing::TestWithParam<FsKind> {
 protected:
  RunOutput Run(std::string_view text, bool verbose = false) {
    return RunText(text, RunnerOptionsOn(GetParam()), verbose);
  }
};

INSTANTIATE_TEST_SUITE_P(BothFileSystems, RunnerTest,
                         ::testing::Values(FsKind::kMem, FsKind::kPosix), FsKindParamName);

// Scripts that must run to the end with exit code 0 and print nothing, on both
// filesystems. Each is named for what it shows.
struct Script {
  std::string_view name;
  std::string_view text;
};

void PrintTo(const Script& script, std::ostream* os) { *os << script.name; }

const Script kScripts[] = {
    {"TheDocumentedExampleHolds", kDocumentedExample},
    {"ALostOrCorruptWriteSucceedsKeepsTheSizeAndTakesItsCallsFromLaterRules",
     "dir /l\n"
     "plan p /l\n"
     "spill f p\n"
     "fault write lost\n"
     "write f 8\n"
     "expect ok\n"
     "expect size f 8\n"
     "expect used p 8\n"
     "fault write corrupt times=2 delay=5\n"
     "fault write EIO\n"
     "write f 4\n"
     "expect ok\n"
     "write f 4\n"
     "expect ok\n"
     "write f 1\n"
     "expect error EIO\n"
     "fault mkdir ok delay=5\n"
     "plan q /l\n"
     "spill g q\n"
     "expect ok\n"
     "expect size f 16\n"},
    {"AFreshFileSystemHoldsAnEmptyTmpAndNothingElse",
     "dir /x\n"
     "expect exists /tmp\n"
     "expect count /tmp/* 0\n"
     "expect count /* 2\n"},  // /tmp and /x.
    {"AFailedBindingLeavesTheNameFreeForALaterOne",
     "dir /l\n"
     "plan p /l\n"
     "fault create EIO\n"
     "spill f p\n"
     "expect error EIO\n"
     "spill f p\n"
     "expect ok\n"
     "expect files p 1\n"},
    {"AFailingCommandWithoutExpectErrorDoesNotStopTheScenario",
     "plan p disabled\n"
     "spill f p\n"  // Fails with DISABLED; nothing checks it.
     "plan q os_tmp\n"
     "spill g q\n"
     "expect ok\n"
     "expect count /tmp/.tmp*/* 1\n"},
    {"SetUpCommandsReportTheirOutcome",
     "file /x\n"
     "dir /x\n"
     "expect error EEXIST\n"
     "dir /x/y\n"
     "expect error ENOTDIR\n"
     "file /x\n"
     "expect error EEXIST\n"
     "file /d/e/f\n"  // Parents are made.
     "expect ok\n"
     "expect exists /d/e\n"
     "dir /d/e\n"  // An existing directory is fine.
     "expect ok\n"
     "clean /d\n"
     "expect missing /d/e/f\n"
     "expect missing /d\n"
     "clean /nothing*\n"  // Matching nothing is not an error.
     "expect ok\n"
     "expect exists /x\n"},
    {"SetUpCommandsGoAroundTheFaultRules",
     "fault mkdir EIO\n"
     "dir /l\n"  // Not faulted and not counted: the rule is still pending.
     "expect ok\n"
     "plan p /l\n"
     "spill f p\n"
     "expect error EIO\n"
     "spill f p\n"
     "expect ok\n"},
    {"AShortWriteHitsOnlyTheNamedFile",
     "dir /l\n"
     "plan p /l\n"
     "spill f p\n"
     "spill g p\n"
     "short_write g 2\n"
     "write f 8\n"
     "expect ok\n"
     "write g 8\n"
     "expect error EIO\n"
     "expect size f 8\n"
     "expect size g 2\n"
     "expect used p 10\n"},
    {"AWriteFarOverTheLimitIsRefusedWithoutWritingIt",
     "dir /l\n"
     "plan p /l limit=1G\n"
     "spill f p\n"
     "write f 200G\n"
     "expect error LIMIT\n"
     "expect used p 0\n"
     "expect size f 0\n"},
    {"AQuirkLineAppliesToPlansBuiltAfterIt",
     "dir /l\n"
     "plan p /l\n"
     "quirk outer_accounting\n"
     "plan q /l\n"
     "spill f p\n"
     "write f 8\n"
     "spill g q\n"
     "write g 8\n"
     "expect used p 8\n"
     "expect used q 0\n"},
};

class RunnerScriptTest : public ::testing::TestWithParam<std::tuple<Script, FsKind>> {};

TEST_P(RunnerScriptTest, RunsCleanly) {
  const auto& [script, fs] = GetParam();
  const RunOutput r = RunText(script.text, RunnerOptionsOn(fs));
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.err, IsEmpty());
  EXPECT_THAT(r.out, IsEmpty());
}

INSTANTIATE_TEST_SUITE_P(
    BothFileSystems, RunnerScriptTest,
    ::testing::Combine(::testing::ValuesIn(kScripts),
                       ::testing::Values(FsKind::kMem, FsKind::kPosix)),
    [](const ::testing::TestParamInfo<std::tuple<Script, FsKind>>& param_info) {
      const std::string_view name = std::get<Script>(param_info.param).name;
      return std::string(name) +
             (std::get<FsKind>(param_info.param) == FsKind::kMem ? "_Mem" : "_Posix");
    });

TEST_P(RunnerTest, AFailedExpectationPrintsFileLineAndStops) {
  const RunOutput r =
      Run("dir /l\n"
          "plan p /l\n"
          "spill f p\n"
          "write f 8\n"
          "expect used p 16\n"
          "expect used p 99\n");
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err, "t.scen:5: expected used p 16, got 8\n");
}

TEST_P(RunnerTest, ExpectationMessagesSayWhatWasFound) {
  const std::string setup =
      "dir /l\n"
      "plan p /l\n"
      "spill f p\n"
      "write f 8\n";
  EXPECT_EQ(Run(setup + "expect files p 2").err, "t.scen:5: expected files p 2, got 1\n");
  EXPECT_EQ(Run(setup + "expect size f 3").err, "t.scen:5: expected size f 3, got 8\n");
  EXPECT_THAT(Run(setup + "expect count /l/* 0").err,
              StartsWith("t.scen:5: expected count /l/* 0, got 1: /l/datafusion-"));
  EXPECT_EQ(Run(setup + "expect exists /nope").err,
            "t.scen:5: expected exists /nope, got missing (ENOENT)\n");
  EXPECT_EQ(Run(setup + "expect missing /l").err,
            "t.scen:5: expected missing /l, got exists (a directory)\n");
  EXPECT_EQ(Run(setup + "expect error LIMIT").err, "t.scen:5: expected error LIMIT, got ok\n");
  EXPECT_THAT(Run(setup + "write f 8\nset_limit p 1\nwrite f 1\nexpect ok").err,
              StartsWith("t.scen:8: expected ok, got LIMIT ("));
  EXPECT_THAT(Run(setup + "fault write EIO\nwrite f 1\nexpect error ENOSPC").err,
              StartsWith("t.scen:7: expected error ENOSPC, got EIO (write "));
}

TEST_P(RunnerTest, NameErrorsStopTheFileWithExitCode2) {
  struct Case {
    std::string text;
    std::string err;
  };
  const std::vector<Case> cases = {
      {"dir /l\nwrite f 8\n", "t.scen:2: unknown name \"f\" (no file is bound to it)\n"},
      {"plan p disabled\nspill f q\n", "t.scen:2: unknown name \"q\" (no plan is bound to it)\n"},
      {"plan p disabled\ndrop p\nexpect used p 0\n", "t.scen:3: \"p\" was dropped\n"},
      {"plan p os_tmp\nspill f p\ndrop f\nspill f p\n",
       "t.scen:4: \"f\" was dropped; a name cannot be used again after drop\n"},
      {"plan p os_tmp\nplan p os_tmp\n", "t.scen:2: \"p\" is already bound to a plan\n"},
      {"plan p os_tmp\nspill p p\n", "t.scen:2: \"p\" is already bound to a plan\n"},
      {"plan p os_tmp\nspill f p\nclone f f\n", "t.scen:3: \"f\" is already bound to a file\n"},
      {"plan p os_tmp\nwrite p 8\n", "t.scen:2: \"p\" is a plan, not a file\n"},
      {"plan p os_tmp\nspill f p\nexpect used f 0\n", "t.scen:3: \"f\" is a file, not a plan\n"},
      {"plan p os_tmp\ndrop q\n",
       "t.scen:2: unknown name \"q\" (no plan, file or budget is bound to it)\n"},
      // A plan that fails binds no name.
      {"file /x\nplan p /x mode=eager\nexpect error ENOTDIR\nspill f p\n",
       "t.scen:4: unknown name \"p\" (no plan is bound to it)\n"},
  };
  for (const Case& c : cases) {
    const RunOutput r = Run(c.text);
    EXPECT_EQ(r.code, 2) << c.text;
    EXPECT_EQ(r.err, c.err) << c.text;
  }
}

TEST_P(RunnerTest, VerboseEchoesEachCommandWithItsOutcome) {
  const RunOutput r =
      Run("dir /l   # a comment is not echoed\n"
          "expect ok\n"
          "plan p disabled\n"
          "spill f p\n"
          "expect files p 1\n",
          /*verbose=*/true);
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.out, HasSubstr("t.scen:1: dir /l -> ok\n"));
  EXPECT_THAT(r.out, HasSubstr("t.scen:2: expect ok -> held\n"));
  EXPECT_THAT(r.out, HasSubstr("t.scen:4: spill f p -> DISABLED ("));
  EXPECT_THAT(r.out, HasSubstr("t.scen:5: expect files p 1 -> FAILED\n"));
  EXPECT_EQ(r.err, "t.scen:5: expected files p 1, got 0\n");
}

TEST_P(RunnerTest, QuirksFromTheOptionsActAsIfTheFileOpenedWithThem) {
  const std::string counterexample =
      "dir /l\n"
      "plan p /l\n"
      "spill f p\n"
      "fault write EIO\n"
      "write f 8\n"
      "expect used p 8\n";
  RunnerOptions options = RunnerOptionsOn(GetParam());
  EXPECT_EQ(RunText(counterexample, options).code, 1);
  options.quirks = Quirks(Quirk::kWriteLeak);
  const RunOutput r = RunText(counterexample, options);
  EXPECT_EQ(r.code, 0) << r.err;
}

TEST_P(RunnerTest, AnyMatchesOnlyTheCallsThatCanReturnItsErrno) {
  // unlink(2), opendir(3) and rmdir(2) never return ENOSPC: the drops remove everything and
  // the rule is still due for the next mkdir, which can.
  const RunOutput r =
      Run("dir /l\n"
          "plan p /l\n"
          "spill f p\n"
          "fault any ENOSPC\n"
          "drop f\n"
          "drop p\n"
          "expect count /l/* 0\n"
          "plan q /l\n"
          "spill g q\n"
          "expect error ENOSPC\n");
  EXPECT_EQ(r.code, 0) << r.err;
}

TEST_P(RunnerTest, AFaultLinuxCannotProduceIsExitCode2NamingTheAllowedErrnos) {
  const RunOutput r = Run("dir /l\nfault remove ENOSPC\n");
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.err, StartsWith("t.scen:2: remove cannot fail with ENOSPC; it can fail with: "));
  EXPECT_THAT(r.err, HasSubstr(" EACCES"));
}

TEST(RunnerMemTest, CapacityLimitsTheInMemoryFileSystem) {
  const RunOutput r = RunText(
      "capacity 4\n"
      "dir /l\n"
      "plan p /l\n"
      "spill f p\n"
      "write f 8\n"
      "expect error ENOSPC\n"
      "expect size f 4\n",
      RunnerOptionsOn(FsKind::kMem));
  EXPECT_EQ(r.code, 0) << r.err;
}

TEST(RunnerPosixTest, CapacityIsIgnoredOnARealDisk) {
  const RunOutput r = RunText(
      "capacity 4\n"
      "expect ok\n"
      "dir /l\n"
      "plan p /l\n"
      "spill f p\n"
      "write f 8\n"
      "expect ok\n",
      RunnerOptionsOn(FsKind::kPosix));
  EXPECT_EQ(r.code, 0) << r.err;
}

// Runs on the POSIX filesystem under a root the test gives: root_, a fresh temp dir.
class RunnerGivenRootTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(root_.ok()) << root_.error();
    options_.posix_root = root_.path();
  }

  TempDir root_;
  RunnerOptions options_ = RunnerOptionsOn(FsKind::kPosix);
};

TEST_F(RunnerGivenRootTest, ASyntaxErrorRunsNothing) {
  const RunOutput r = RunText("dir /made\nbogus\n", options_);
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, "t.scen:2: unknown command \"bogus\"\n");
  EXPECT_FALSE(std::filesystem::exists(root_.path() + "/made"));
}

TEST_F(RunnerGivenRootTest, ANameErrorIsFoundWhenItsLineIsReached) {
  const RunOutput r = RunText("dir /made\nwrite f 8\ndir /after\n", options_);
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(std::filesystem::is_directory(root_.path() + "/made"));
  EXPECT_FALSE(std::filesystem::exists(root_.path() + "/after"));
}

TEST_F(RunnerGivenRootTest, AGivenRootIsUsedAndKept) {
  const RunOutput r = RunText("file /a/b\nexpect exists /a/b\n", options_);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(std::filesystem::is_regular_file(root_.path() + "/a/b"));
  EXPECT_TRUE(std::filesystem::is_directory(root_.path() + "/tmp"));
}

TEST_F(RunnerGivenRootTest, ARootThatIsNotADirectoryIsRefused) {
  options_.posix_root = root_.path() + "/missing";
  StatusOr<std::unique_ptr<Runner>> runner = Runner::Create(options_);
  ASSERT_FALSE(runner.ok());
  EXPECT_EQ(runner.status().code(), StatusCode::kInvalidArgument);
  const RunOutput r = RunText("dir /a\n", options_);
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.err, StartsWith("t.scen: cannot set up the filesystem: "));
}

TEST(RunnerPosixTest, ThePrivateRootIsRemovedEvenAfterAFailedExpectation) {
  TempDir tmp;
  ASSERT_TRUE(tmp.ok()) << tmp.error();
  ScopedEnv env("TMPDIR", tmp.path());
  const RunOutput r = RunText(
      "dir /l\n"
      "plan p /l\n"
      "spill f p\n"
      "write f 8\n"
      "expect used p 9\n",
      RunnerOptionsOn(FsKind::kPosix));
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(Entries(tmp.path()), IsEmpty());
}

TEST(RunnerPosixTest, RemovingThePrivateRootNeverFollowsASymlink) {
  TempDir tmp, outside;
  ASSERT_TRUE(tmp.ok()) << tmp.error();
  ASSERT_TRUE(outside.ok()) << outside.error();
  { std::ofstream(outside.path() + "/precious") << "keep me"; }
  ScopedEnv env("TMPDIR", tmp.path());
  {
    StatusOr<std::unique_ptr<Runner>> runner = Runner::Create(RunnerOptionsOn(FsKind::kPosix));
    ASSERT_TRUE(runner.ok()) << runner.status().ToString();
    const std::vector<std::string> roots = Entries(tmp.path());
    ASSERT_EQ(roots.size(), 1u);
    const std::string root = tmp.path() + "/" + roots[0];
    EXPECT_TRUE(std::filesystem::is_directory(root + "/tmp"));
    std::filesystem::create_directory_symlink(outside.path(), root + "/tmp/link");
  }
  EXPECT_THAT(Entries(tmp.path()), IsEmpty());
  EXPECT_TRUE(std::filesystem::exists(outside.path() + "/precious"));
}

TEST(RunScenarioFileTest, AMissingFileIsExitCode2) {
  const RunOutput r = Captured([](std::FILE* out, std::FILE* err) {
    return RunScenarioFile("/nonexistent/x.scen", RunnerOptions{}, false, out, err);
  });
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_THAT(r.err, StartsWith("/nonexistent/x.scen: cannot read the file: ENOENT"));
}

TEST(RunScenarioFileTest, RunsAShippedScenario) {
  const RunOutput r = Captured([](std::FILE* out, std::FILE* err) {
    return RunScenarioFile(std::string(SPILLWAY_SCENARIO_DIR) + "/readme_example.scen",
                           RunnerOptions{}, true, out, err);
  });
  EXPECT_EQ(r.code, 0);
  EXPECT_THAT(r.out, HasSubstr("readme_example.scen:18: expect count"));
  EXPECT_EQ(r.err, "");
}

// The bodies of the ```scenario blocks of a Markdown file.
std::vector<std::string> ScenarioBlocks(const std::string& markdown) {
  std::vector<std::string> blocks;
  std::istringstream in(markdown);
  std::string line;
  std::optional<std::string> block;
  while (std::getline(in, line)) {
    if (block.has_value()) {
      if (line == "```") {
        blocks.push_back(std::move(*block));
        block.reset();
      } else {
        *block += line + "\n";
      }
    } else if (line == "```scenario") {
      block.emplace();
    }
  }
  EXPECT_FALSE(block.has_value()) << "unterminated block";
  return blocks;
}

const std::string kDocs = std::string(SPILLWAY_SCENARIO_DIR) + "/../docs/scenarios.md";

TEST(ScenarioDocsTest, EveryScenarioInTheDocsRunsOnBothFileSystems) {
  const std::vector<std::string> blocks = ScenarioBlocks(ReadText(kDocs));
  ASSERT_GE(blocks.size(), 3u);
  for (const std::string& block : blocks) {
    for (FsKind fs : {FsKind::kMem, FsKind::kPosix}) {
      const RunOutput r = RunText(block, RunnerOptionsOn(fs));
      EXPECT_EQ(r.code, 0) << r.err << "in:\n" << block;
    }
  }
}

TEST(ScenarioDocsTest, TheDocsFirstExampleIsTheShippedReadmeExample) {
  const std::vector<std::string> blocks = ScenarioBlocks(ReadText(kDocs));
  ASSERT_FALSE(blocks.empty());
  std::variant<Scenario, ParseError> doc = Parse(blocks[0], "doc");
  std::variant<Scenario, ParseError> shipped =
      Parse(ReadText(std::string(SPILLWAY_SCENARIO_DIR) + "/readme_example.scen"), "shipped");
  ASSERT_TRUE(std::holds_alternative<Scenario>(doc));
  ASSERT_TRUE(std::holds_alternative<Scenario>(shipped));
  EXPECT_EQ(ToText(std::get<Scenario>(doc).commands), ToText(std::get<Scenario>(shipped).commands));
}

}  // namespace
}  // namespace spillway::scenario
