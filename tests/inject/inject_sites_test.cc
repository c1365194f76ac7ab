// Call sites (docs/inject.md#call-sites): stable ids across runs with ASLR on, one id per
// call path, `site=ID nth=K` rules, the frames lines and their symbols, and the frame-size
// cache giving the sites a full unwind gives.
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "support/inject_support.h"

namespace spillway::inject {
namespace {

namespace fs = std::filesystem;

// One run of sites_probe: its output lines by label and, for each of its writes in order,
// the label and the site the trace gives it.
struct ProbeRun {
  int exit_code = -1;
  std::map<std::string, std::string> outcome;  // "one1" -> "ok" / "ENOSPC"; "main" -> address.
  std::map<std::string, std::string> site;     // "one1" -> site id.
  std::map<std::string, std::vector<std::string>> frames;  // Site id -> frames.
};

class SitesTest : public InjectTest {
 protected:
  // Runs the probe under `spillway inject ARGS` (with `env` before it), writing into the
  // scope, and pairs its writes (in order) with its output lines (in the same order).
  ProbeRun Run(const std::string& args, const std::string& env = "") {
    ProbeRun run;
    const CommandResult r = RunShell(
        env + " " +
        Inject(args, std::string(SITES_PROBE) + " " + ShellQuote((scope_ / "f").string())));
    run.exit_code = r.exit_code;
    std::vector<std::string> labels;
    std::istringstream out(r.out);
    for (std::string label, value; out >> label >> value;) {
      run.outcome[label] = value;
      if (label != "main") labels.push_back(label);
    }
    size_t write = 0;
    for (const nlohmann::json& line : ReadTrace(trace_)) {
      if (line["op"] == "write" && write < labels.size()) {
        run.site[labels[write++]] = line["site"].get<std::string>();
      }
    }
    for (const nlohmann::json& line : ReadSites(trace_)) {
      run.frames[line["site"].get<std::string>()] = line["frames"].get<std::vector<std::string>>();
    }
    return run;
  }
};

bool AslrOn() {
  std::ifstream in("/proc/sys/kernel/randomize_va_space");
  int level = 0;
  return in >> level && level != 0;
}

TEST_F(SitesTest, ASiteIsTheSameInEveryRunAndOneIdPerCallPath) {
  const ProbeRun first = Run("");
  const ProbeRun second = Run("");
  ASSERT_EQ(first.exit_code, 0);
  ASSERT_EQ(first.site.size(), 6u);
  if (AslrOn()) {
    EXPECT_NE(first.outcome.at("main"), second.outcome.at("main"));
  }
  EXPECT_EQ(first.site, second.site);
  for (const auto& [label, id] : first.site) {
    EXPECT_EQ(id.size(), 12u);
    EXPECT_EQ(id.find_first_not_of("0123456789abcdef"), std::string::npos) << id;
  }
  // The same source line reached the same way: one site; from another caller, or another
  // line: another site.
  EXPECT_EQ(first.site.at("one1"), first.site.at("one2"));
  EXPECT_EQ(first.site.at("one1"), first.site.at("one3"));
  const std::set<std::string> distinct = {first.site.at("one1"), first.site.at("two1"),
                                          first.site.at("b1"), first.site.at("b2")};
  EXPECT_EQ(distinct.size(), 4u);
}

TEST_F(SitesTest, TheCacheGivesTheSitesAFullUnwindGives) {
  const ProbeRun cached = Run("");
  const ProbeRun unwound = Run("", "SPILLWAY_INJECT_SITE_CACHE=0");
  ASSERT_EQ(cached.site.size(), 6u);
  EXPECT_EQ(cached.site, unwound.site);
}

TEST_F(SitesTest, TheCacheGivesGnuSortTheSitesAFullUnwindGives) {
  // A spilling sort: some 40,000 fwrite_unlocked calls from a stripped, optimised program.
  const fs::path input = root_ / "input";
  {
    std::ofstream out(input);
    uint64_t x = 88172645463325252ULL;
    for (int i = 0; i < 20000; ++i) {
      x ^= x << 13;
      x ^= x >> 7;
      x ^= x << 17;
      out << x % 1000000007ULL << " row " << i << "\n";
    }
  }
  const std::string sort = "sort -S 100K --parallel=1 -T " + ShellQuote(scope_.string()) + " " +
                           ShellQuote(input.string()) + " >/dev/null";
  const auto sites = [&](const std::string& env) {
    EXPECT_EQ(RunShell(env + " " + Inject("--no-symbolize", "sh -c " + ShellQuote(sort))).exit_code,
              0);
    std::vector<std::string> out;
    for (const nlohmann::json& line : ReadTrace(trace_))
      out.push_back(line["site"].get<std::string>());
    return out;
  };
  const std::vector<std::string> cached = sites("");
  ASSERT_GT(cached.size(), 1000u);
  EXPECT_EQ(cached, sites("SPILLWAY_INJECT_SITE_CACHE=0"));
  EXPECT_GT(std::set<std::string>(cached.begin(), cached.end()).size(), 3u);
}

TEST_F(SitesTest, ASiteRuleFailsThatSitesKthCallAndNoOtherSites) {
  const ProbeRun baseline = Run("");
  const std::string one = baseline.site.at("one1");
  const ProbeRun transient = Run("--fault 'write ENOSPC site=" + one + " nth=2'");
  EXPECT_EQ(transient.outcome,
            (std::map<std::string, std::string>{{"one1", "ok"},
                                                {"one2", "ENOSPC"},
                                                {"one3", "ok"},
                                                {"b1", "ok"},
                                                {"two1", "ok"},
                                                {"b2", "ok"},
                                                {"main", transient.outcome.at("main")}}));
  const ProbeRun persistent = Run("--fault 'write ENOSPC site=" + one + " nth=2 times=forever'");
  EXPECT_EQ(persistent.outcome.at("one1"), "ok");
  EXPECT_EQ(persistent.outcome.at("one2"), "ENOSPC");
  EXPECT_EQ(persistent.outcome.at("one3"), "ENOSPC");
  for (const char* other : {"b1", "two1", "b2"}) EXPECT_EQ(persistent.outcome.at(other), "ok");
  // nth= counts that site's calls only: two1 is its site's first call, though four
  // writes came before it.
  const ProbeRun first = Run("--fault 'write ENOSPC site=" + baseline.site.at("two1") + " nth=1'");
  for (const char* label : {"one1", "one2", "one3", "b1", "b2"}) {
    EXPECT_EQ(first.outcome.at(label), "ok") << label;
  }
  EXPECT_EQ(first.outcome.at("two1"), "ENOSPC");
}

TEST_F(SitesTest, AThenAnyRuleTriggersAtItsSiteAndThenFailsEverySitesCalls) {
  const ProbeRun baseline = Run("");
  const std::string b = baseline.site.at("b1");
  // Before b1 (its site's first call) the other site's writes pass; from it on, every write
  // fails, from write_a's site too.
  const ProbeRun spread = Run("--fault 'write ENOSPC site=" + b + " nth=1 times=forever then=any'");
  for (const char* label : {"one1", "one2", "one3"}) EXPECT_EQ(spread.outcome.at(label), "ok");
  for (const char* label : {"b1", "two1", "b2"}) EXPECT_EQ(spread.outcome.at(label), "ENOSPC");
  // times= counts the failures of every site: b1 and two1.
  const ProbeRun two = Run("--fault 'write ENOSPC site=" + b + " nth=1 times=2 then=any'");
  EXPECT_EQ(two.outcome.at("b1"), "ENOSPC");
  EXPECT_EQ(two.outcome.at("two1"), "ENOSPC");
  EXPECT_EQ(two.outcome.at("b2"), "ok");
  EXPECT_EQ(two.outcome.at("one3"), "ok");
}

TEST_F(SitesTest, EverySiteHasSymbolizedFramesNamingTheProbe) {
  const ProbeRun run = Run("");
  ASSERT_EQ(run.exit_code, 0);
  for (const auto& [label, id] : run.site) {
    ASSERT_EQ(run.frames.count(id), 1u) << label << " " << id;
    const std::vector<std::string>& frames = run.frames.at(id);
    ASSERT_FALSE(frames.empty());
    EXPECT_LE(frames.size(), 8u);
    // Innermost first: the probe's function that called write, with its source line.
    EXPECT_EQ(frames[0].rfind(fs::canonical(SITES_PROBE).string() + "+0x", 0), 0u) << frames[0];
    const std::string writer = label[0] == 'b' ? " write_b " : " write_a ";
    EXPECT_NE(frames[0].find(writer), std::string::npos) << frames[0];
    EXPECT_NE(frames[0].find("sites_probe.c:"), std::string::npos) << frames[0];
  }
  EXPECT_NE(run.frames.at(run.site.at("two1"))[1].find(" via_two "), std::string::npos);
  // Without symbolizing, the frames are bare MODULE+0xOFFSET.
  const ProbeRun bare = Run("--no-symbolize");
  for (const auto& [id, frames] : bare.frames) {
    EXPECT_EQ(frames[0].find(' '), std::string::npos) << frames[0];
  }
}

}  // namespace
}  // namespace spillway::inject
