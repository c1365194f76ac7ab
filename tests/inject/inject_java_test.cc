// Call sites in Java code (docs/inject.md#call-sites): the Java probe (java_probe/) under
// `spillway inject`, a site per Java call site whose id is the same in every run, with
// the interpreter only and with the JIT warmed up; `site=ID nth=1` failing exactly that
// Java call; frames lines naming the classes, methods and lines; --no-java-frames, and a
// sweep's reproducers with it.
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "support/inject_support.h"

namespace spillway::inject {
namespace {

namespace fs = std::filesystem;

const std::vector<std::string> kLabels = {"header1", "header2",   "body",
                                          "nio",     "pairFirst", "pairSecond"};

// The probe's call sites by label ("header1" -> "SpillA.header:14"): the `// site:NAME`
// markers of its sources, so that the expected lines come from the source, not the run.
std::map<std::string, std::string> CallSites() {
  std::map<std::string, std::string> marked;
  const std::regex marker(R"(// site:(\w+))");
  for (const char* name : {"SpillA", "SpillB"}) {
    std::ifstream in(fs::path(JAVA_PROBE_SOURCES) / (std::string(name) + ".java"));
    std::string method;
    int number = 0;
    for (std::string line; std::getline(in, line);) {
      ++number;
      std::smatch m;
      const std::regex declaration(R"(static void (\w+)\()");
      if (std::regex_search(line, m, declaration)) method = m[1];
      if (std::regex_search(line, m, marker)) {
        marked[m[1]] = std::string(name) + "." + method + ":" + std::to_string(number);
      }
    }
  }
  std::map<std::string, std::string> sites;
  for (const std::string& label : kLabels) {
    const std::string key = label.starts_with("header") ? "header" : label;
    if (marked.count(key) != 0) sites[label] = marked[key];
  }
  return sites;
}

struct ProbeRun {
  int exit_code = -1;
  std::string out;
  std::map<std::string, std::string> outcome;  // "header1" -> "ok" / "failed SpillA.header:14".
  std::map<std::string, std::string> site;     // "header1" -> its write's site id.
  std::map<std::string, std::vector<std::string>> frames;  // Site id -> frames.
};

class JavaSitesTest : public InjectTest {
 protected:
  void SetUp() override {
    if (std::string(JAVA_PROBE_CLASSES).empty()) {
      GTEST_SKIP() << "no javac, or the shim was built without the JDK's jvmti.h "
                      "(openjdk-17-jdk-headless)";
    }
    // The warm-up's files, out of scope, rewritten 20000 times: in tmpfs where there is one,
    // since ext4 flushes a file truncated and rewritten when it is closed.
    std::string warm = "/dev/shm/spillway-java-XXXXXX";
    warm_ =
        access("/dev/shm", W_OK) == 0 && mkdtemp(warm.data()) != nullptr ? fs::path(warm) : twin_;
  }
  void TearDown() override {
    if (!warm_.empty() && warm_ != twin_) fs::remove_all(warm_);
  }

  // Runs the probe under `spillway inject ARGS` (with `env` before it) with the JVM's
  // `jvm` options, after `warm` rounds of every write out of scope, and pairs its writes
  // in the scope (in order) with its output lines (in the same order).
  ProbeRun Run(const std::string& args, const std::string& jvm = "", int warm = 0,
               const std::string& env = "", const std::string& classes = JAVA_PROBE_CLASSES) {
    ProbeRun run;
    const std::string probe =
        fmt::format("{} {} -cp {} JavaProbe {} {} {}", JAVA_BINARY, jvm, classes,
                    ShellQuote(scope_.string()), ShellQuote(warm_.string()), warm);
    const CommandResult r = RunShell(env + " " + Inject(args, probe));
    run.exit_code = r.exit_code;
    run.out = r.out;
    std::vector<std::string> written;
    std::istringstream out(r.out);
    for (std::string line; std::getline(out, line);) {
      const size_t space = line.find(' ');
      const std::string label = line.substr(0, space);
      if (space == std::string::npos ||
          std::find(kLabels.begin(), kLabels.end(), label) == kLabels.end()) {
        continue;  // The JVM's own output (-XX:+PrintCompilation).
      }
      run.outcome[label] = line.substr(space + 1);
      written.push_back(label);
    }
    size_t write = 0;
    for (const nlohmann::json& line : ReadTrace(trace_)) {
      if (line["op"] == "write" && write < written.size()) {
        run.site[written[write++]] = line["site"].get<std::string>();
      }
    }
    for (const nlohmann::json& line : ReadSites(trace_)) {
      run.frames[line["site"].get<std::string>()] = line["frames"].get<std::vector<std::string>>();
    }
    for (const fs::path& dir : {scope_, warm_}) {
      for (const auto& entry : fs::directory_iterator(dir)) fs::remove_all(entry.path());
    }
    return run;
  }

  fs::path warm_;
};

TEST_F(JavaSitesTest, OneSitePerJavaCallSiteTheSameInEveryRunInterpretedOrCompiled) {
  const ProbeRun first = Run("");
  ASSERT_EQ(first.exit_code, 0) << first.out;
  ASSERT_EQ(first.site.size(), kLabels.size()) << first.out;
  // The same line reached the same way: one site; another method, class or line: another.
  EXPECT_EQ(first.site.at("header1"), first.site.at("header2"));
  const std::set<std::string> distinct = {first.site.at("header1"), first.site.at("body"),
                                          first.site.at("nio"), first.site.at("pairFirst"),
                                          first.site.at("pairSecond")};
  EXPECT_EQ(distinct.size(), 5u);
  EXPECT_EQ(Run("").site, first.site) << "a second run";
  EXPECT_EQ(Run("").site, first.site) << "a third run";
  EXPECT_EQ(Run("", "-Xint").site, first.site) << "with the interpreter only";
  // Every write compiled before the measured ones: -Xbatch waits for each compilation,
  // and -XX:+PrintCompilation shows that the probe's writing methods were compiled.
  const ProbeRun warm = Run("", "-Xbatch -XX:+PrintCompilation", 20000);
  EXPECT_THAT(warm.out, testing::HasSubstr("SpillA::header"));
  EXPECT_THAT(warm.out, testing::HasSubstr("SpillB::pair"));
  EXPECT_EQ(warm.site, first.site) << "with the JIT warmed up";
}

TEST_F(JavaSitesTest, FramesLinesNameTheJniMethodThenTheClassesMethodsAndLines) {
  const ProbeRun run = Run("");
  ASSERT_EQ(run.exit_code, 0) << run.out;
  const std::map<std::string, std::string> sites = CallSites();
  ASSERT_EQ(sites.size(), kLabels.size());
  for (const std::string& label : kLabels) {
    SCOPED_TRACE(label);
    ASSERT_EQ(run.frames.count(run.site.at(label)), 1u);
    const std::vector<std::string>& frames = run.frames.at(run.site.at(label));
    // Native frames in the JDK's libraries, the last of them the JNI method, then the
    // Java frames, innermost first: the JDK's, then the probe's own call site.
    const auto java = std::find_if(frames.begin(), frames.end(),
                                   [](const std::string& f) { return f.starts_with("java:"); });
    ASSERT_NE(java, frames.begin());
    ASSERT_NE(java, frames.end());
    EXPECT_THAT(*(java - 1), testing::MatchesRegex(".*/lib(java|nio)\\.so\\+0x[0-9a-f]+ Java_.*"));
    EXPECT_THAT(*java, testing::EndsWith(":native"));
    EXPECT_THAT(frames, testing::Contains("java:" + sites.at(label)));
    EXPECT_THAT(frames, testing::Not(testing::Contains("[anonymous]")));
    // Everything after the native frames is a Java frame.
    EXPECT_TRUE(std::all_of(java, frames.end(),
                            [](const std::string& f) { return f.starts_with("java:"); }));
  }
}

TEST_F(JavaSitesTest, WithoutALineTableAFrameIsNamedByItsBytecodeIndex) {
  // The bytecode index of SpillA.header's FileOutputStream.write call, from javap.
  const std::string javap = (fs::path(JAVA_BINARY).parent_path() / "javap").string();
  const CommandResult code =
      RunShell(javap + " -c -cp " + std::string(JAVA_PROBE_NO_LINES) + " SpillA");
  ASSERT_EQ(code.exit_code, 0);
  const size_t header = code.out.find("void header(");
  ASSERT_NE(header, std::string::npos) << code.out;
  const std::string disassembly = code.out.substr(header);
  std::smatch m;
  ASSERT_TRUE(std::regex_search(
      disassembly, m, std::regex(R"((\d+): invokevirtual .*java/io/FileOutputStream\.write)")))
      << disassembly;
  const ProbeRun run = Run("", "", 0, "", JAVA_PROBE_NO_LINES);
  ASSERT_EQ(run.exit_code, 0) << run.out;
  ASSERT_EQ(run.frames.count(run.site.at("header1")), 1u);
  EXPECT_THAT(run.frames.at(run.site.at("header1")),
              testing::Contains("java:SpillA.header:bci=" + m[1].str()));
  EXPECT_EQ(run.site.at("header1"), run.site.at("header2"));
  EXPECT_NE(run.site.at("header1"), Run("").site.at("header1")) << "named by line there";
}

TEST_F(JavaSitesTest, ASiteRuleFailsExactlyThatJavaCall) {
  const ProbeRun plain = Run("");
  ASSERT_EQ(plain.exit_code, 0) << plain.out;
  const std::map<std::string, std::string> sites = CallSites();
  for (const std::string label : {"header1", "body", "nio", "pairFirst", "pairSecond"}) {
    SCOPED_TRACE(label);
    const ProbeRun run =
        Run("--fault " + ShellQuote("write EIO site=" + plain.site.at(label) + " nth=1"));
    ASSERT_EQ(run.exit_code, 0) << run.out;
    for (const std::string& other : kLabels) {
      // nth=1: header2, the same site's second call, goes through.
      EXPECT_EQ(run.outcome.at(other), other == label ? "failed " + sites.at(label) : "ok")
          << other;
    }
  }
}

TEST_F(JavaSitesTest, NoJavaFramesKeepsTheNativeSites) {
  const ProbeRun java = Run("");
  for (const ProbeRun& run :
       {Run("--no-java-frames"), Run("", "", 0, "SPILLWAY_INJECT_JAVA_FRAMES=0")}) {
    ASSERT_EQ(run.exit_code, 0) << run.out;
    ASSERT_EQ(run.site.size(), kLabels.size());
    // Every java.io write is one site, every java.nio write another.
    EXPECT_EQ(run.site.at("header1"), run.site.at("body"));
    EXPECT_EQ(run.site.at("nio"), run.site.at("pairFirst"));
    EXPECT_EQ(run.site.at("nio"), run.site.at("pairSecond"));
    EXPECT_NE(run.site.at("header1"), run.site.at("nio"));
    EXPECT_NE(run.site.at("header1"), java.site.at("header1"));
    for (const auto& [site, frames] : run.frames) {
      for (const std::string& frame : frames) EXPECT_FALSE(frame.starts_with("java:")) << frame;
    }
  }
}

// A sweep by native frames gives reproducers that fail the call its run failed: they carry
// --no-java-frames, without which their site id (a native one) would name no site.
TEST_F(JavaSitesTest, SweepWithoutJavaFramesGivesReproducersOfTheSameSites) {
  const fs::path out = root_ / "kept";
  const CommandResult sweep = RunShell(fmt::format(
      "{} sweep --under {} --no-java-frames --op write --errno EIO --mode transient --json "
      "--out {} -- {} -cp {} JavaProbe {{dir}} {} 0",
      SPILLWAY_BINARY, ShellQuote(scope_.string()), ShellQuote(out.string()), JAVA_BINARY,
      JAVA_PROBE_CLASSES, ShellQuote(twin_.string())));
  ASSERT_EQ(sweep.exit_code, 1) << sweep.out;
  const nlohmann::json report = nlohmann::json::parse(sweep.out);
  // By native frames: one site for java.io's writes, one for java.nio's.
  ASSERT_EQ(report["runs"].size(), 2u) << sweep.out;
  for (const nlohmann::json& run : report["runs"]) {
    const std::string line = run["reproducer"].get<std::string>();
    EXPECT_THAT(line, testing::HasSubstr(" --no-java-frames --")) << line;
    ASSERT_TRUE(run["kept"].is_string()) << run;
    const std::string kept = run["kept"].get<std::string>();
    std::ifstream in(kept.substr(0, kept.find(".{")) + ".stdout");
    const std::string stdout_of_run{std::istreambuf_iterator<char>(in),
                                    std::istreambuf_iterator<char>()};
    ASSERT_THAT(stdout_of_run, testing::HasSubstr(" failed ")) << kept;
    EXPECT_EQ(RunShell("(" + line + ") 2>/dev/null").out, stdout_of_run) << line;
  }
}

}  // namespace
}  // namespace spillway::inject
