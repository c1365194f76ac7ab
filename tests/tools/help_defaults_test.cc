// The defaults that the help texts of `spillway run`, `spillway sweep` and `spillway
// sweep-workload` state, and those docs/sweep.md and docs/inject.md state, are the code's:
// the option structs' initial values, DefaultErrnos(), DefaultErrnosFor(), the timeouts
// of program_sweep/defaults.h, the fault rules' own defaults. A help text shows a default as
// CLI11 does, `--name TYPE=DEFAULT`; every one it shows must be checked here.
#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>
#include <fstream>
#include <functional>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "spillway/program_sweep/cmd_sweep.h"
#include "spillway/program_sweep/defaults.h"
#include "spillway/scenario/scenario.h"
#include "spillway/vfs/fault_rules.h"
#include "spillway/vfs/status.h"
#include "spillway/vocab/names.h"
#include "spillway/vocab/vocab.h"
#include "spillway/workload_sweep/sweep.h"
#include "support/inject_support.h"

namespace spillway {
namespace {

using inject::RunShell;

std::string Join(const std::vector<int>& errnos) {
  std::string text;
  for (int e : errnos) text += (text.empty() ? "" : ",") + ErrnoName(e);
  return text;
}

// "both" for the errno modes, `all_name` (when the sweep has that word) for every mode,
// else the modes' names as a comma list.
template <typename FaultMode, typename NameOf>
std::string ModesName(const std::vector<FaultMode>& modes, NameOf name_of,
                      std::string_view all_name = "") {
  if (modes == std::vector<FaultMode>{FaultMode::kTransient, FaultMode::kPersistent}) {
    return "both";
  }
  if (!all_name.empty() &&
      modes == std::vector<FaultMode>{FaultMode::kTransient, FaultMode::kPersistent,
                                      FaultMode::kKill, FaultMode::kCorrupt, FaultMode::kLost}) {
    return std::string(all_name);
  }
  std::string text;
  for (FaultMode m : modes) text += (text.empty() ? "" : ",") + std::string(name_of(m));
  return text;
}

// A stated default, normalised, with where it was stated ("docs/sweep.md:19").
struct Stated {
  std::string value;
  std::string where;
};

// Checks one stated default; an empty string when it agrees with the code, else what the
// code says.
using Check = std::function<std::string(const std::string& stated)>;

Check Equals(const std::string& code) {
  return [code](const std::string& stated) {
    return stated == code ? "" : "the code's default is '" + code + "'";
  };
}

// The program sweep's errnos: "ENOSPC,EIO; plus ENOENT for create and mkdir" against
// DefaultErrnosFor, operation by operation.
std::string CheckProgramErrnos(const std::string& stated) {
  static const std::regex kForm(R"(([A-Z0-9,]+)(?:; plus ([A-Z0-9,]+) for (\w+(?: and \w+)*))?)");
  std::smatch m;
  if (!std::regex_match(stated, m, kForm)) return "not of the form 'E,E; plus E for OP and OP'";
  const std::string every = Join(program_sweep::DefaultErrnosFor(kFaultAnyOp));
  if (m[1] != every) return "the errnos of every operation are " + every;
  std::set<std::string> named;
  const std::string ops = m[3];
  static const std::regex kWord(R"(\w+)");
  for (std::sregex_iterator it(ops.begin(), ops.end(), kWord), end; it != end; ++it) {
    if (it->str() != "and") named.insert(it->str());
  }
  for (int op = 0; op < kFaultOpCount; ++op) {
    std::string name = FaultOpName(static_cast<FaultOp>(op));
    const std::string code = Join(program_sweep::DefaultErrnosFor(static_cast<uint8_t>(op)));
    const std::string said = named.contains(name) ? every + "," + m[2].str() : every;
    if (code != said) return name.append(" gets ").append(code);
  }
  return "";
}

// "10 x the baseline's time, at least 10 s (the baseline: 600 s)".
std::string TimeoutText() {
  char text[128];
  std::snprintf(text, sizeof(text), "%g x the baseline's time, at least %g s (the baseline: %g s)",
                program_sweep::kTimeoutFactor, program_sweep::kMinTimeoutSeconds,
                program_sweep::kBaselineTimeoutSeconds);
  return text;
}

// The checks of each command's defaults, by option.
std::map<std::string, Check> WorkloadChecks() {
  const workload_sweep::SweepOptions defaults;
  return {{"--fs", Equals(std::string(vocab::FsKindName(defaults.fs)))},
          {"--errno", Equals(Join(workload_sweep::DefaultErrnos()))},
          {"--mode", Equals(ModesName(defaults.modes, workload_sweep::FaultModeName, "all"))}};
}

std::map<std::string, Check> ProgramChecks() {
  const program_sweep::CmdSweepOptions defaults;
  return {{"--errno", defaults.errnos.empty() ? Check(CheckProgramErrnos) : Equals("empty")},
          {"--op",
           [every = defaults.ops.empty()](const std::string& stated) -> std::string {
             uint8_t code = 0;
             if (!every) return "the code's default is not every operation";
             if (!FaultOpCodeFromName(stated, &code) || code != kFaultAnyOp) {
               return "'" + stated + "' is not the name of every operation";
             }
             return "";
           }},
          {"--mode", Equals(ModesName(defaults.modes, program_sweep::FaultModeName))},
          {"--depth", Equals(std::string(program_sweep::DepthName(defaults.depth)))},
          {"--jobs", Equals(std::to_string(defaults.jobs))},
          {"--timeout", Equals(defaults.timeout == 0 ? TimeoutText() : "set")},
          {"--retries", Equals(std::to_string(defaults.retries))},
          {"--baselines", Equals(std::to_string(defaults.baselines))},
          {"--compare", Equals(defaults.compare_stdout ? "stdout" : "none")},
          {"--neighbours", Equals(std::to_string(defaults.neighbours))},
          {"--neighbour-rounds", Equals(std::to_string(defaults.neighbour_rounds))},
          {"--seed", Equals(std::to_string(defaults.seed))}};
}

std::map<std::string, Check> RunChecks() {
  const scenario::RunnerOptions defaults;
  return {{"--fs", Equals(std::string(vocab::FsKindName(defaults.fs)))},
          {"--seed", Equals(std::to_string(defaults.seed))}};
}

// `spillway WORDS --help`.
std::string Help(const std::string& words) {
  const inject::CommandResult help = RunShell(std::string(SPILLWAY_EXE) + " " + words + " --help");
  EXPECT_EQ(help.exit_code, 0) << words;
  return help.out;
}

// The defaults a help text shows: "  --name TYPE=DEFAULT[ ...]" in the first kColumn
// characters of a line, then the description; or the whole line, when the next one (the
// description) is indented by kColumn spaces.
std::map<std::string, Stated> HelpDefaults(const std::string& words) {
  constexpr size_t kColumn = 30;  // CLI11's column width.
  static const std::regex kName(R"(  (--[a-z-]+) [A-Z][^= ]*=(.*?)(?: \.\.\.)? *)");
  std::vector<std::string> lines;
  std::istringstream help(Help(words));
  for (std::string line; std::getline(help, line);) lines.push_back(line);
  std::map<std::string, Stated> stated;
  for (size_t i = 0; i < lines.size(); ++i) {
    const bool alone = i + 1 < lines.size() && lines[i + 1].starts_with(std::string(kColumn, ' '));
    const std::string name = alone ? lines[i] : lines[i].substr(0, kColumn);
    std::smatch m;
    if (std::regex_match(name, m, kName)) {
      stated[m[1]] = {m[2], "spillway " + words + " --help: " + lines[i]};
    }
  }
  return stated;
}

void ExpectAgree(const std::map<std::string, Check>& checks,
                 const std::map<std::string, Stated>& stated) {
  for (const auto& [option, said] : stated) {
    const auto check = checks.find(option);
    if (check == checks.end()) {
      ADD_FAILURE() << said.where << ": " << option << " states a default this test does not check";
      continue;
    }
    const std::string wrong = check->second(said.value);
    EXPECT_EQ(wrong, "") << said.where << ": " << option << " states '" << said.value << "'";
  }
}

TEST(HelpDefaultsTest, SweepWorkloadHelpStatesTheCodesDefaults) {
  const std::map<std::string, Stated> stated = HelpDefaults("sweep-workload");
  EXPECT_EQ(stated.size(), WorkloadChecks().size());
  ExpectAgree(WorkloadChecks(), stated);
}

TEST(HelpDefaultsTest, SweepHelpStatesTheCodesDefaults) {
  const std::map<std::string, Stated> stated = HelpDefaults("sweep");
  EXPECT_EQ(stated.size(), ProgramChecks().size());
  ExpectAgree(ProgramChecks(), stated);
}

TEST(HelpDefaultsTest, RunHelpStatesTheCodesDefaults) {
  const std::map<std::string, Stated> stated = HelpDefaults("run");
  EXPECT_EQ(stated.size(), RunChecks().size());
  ExpectAgree(RunChecks(), stated);
}

// The checks fail on a wrong default, so that the tests above can.
TEST(HelpDefaultsTest, ChecksRefuseAStaleDefault) {
  EXPECT_NE(WorkloadChecks().at("--errno")("ENOSPC,EIO,ENOENT,EACCES"), "");
  EXPECT_NE(ProgramChecks().at("--errno")("ENOSPC,EIO"), "");
  EXPECT_NE(ProgramChecks().at("--errno")("ENOSPC,EIO; plus ENOENT for create"), "");
  EXPECT_NE(ProgramChecks().at("--timeout")("10 x the baseline's time"), "");
  EXPECT_NE(ProgramChecks().at("--op")("write"), "");
  EXPECT_NE(RunChecks().at("--seed")("1"), "");
}

// A doc's lines, and where each option's row of an options table is in one of its
// sections (from the line starting `section` to the next line starting with "# ").
class Doc {
 public:
  explicit Doc(const std::string& name) : name_(name) {
    std::ifstream in(std::string(SPILLWAY_DOCS_DIR) + "/" + name);
    for (std::string line; std::getline(in, line);) lines_.push_back(line);
    EXPECT_FALSE(lines_.empty()) << "cannot read docs/" << name;
  }

  // The first line of `section` that, without its backticks, starts with `prefix`: that
  // text, and where it is as "docs/NAME:LINE"; empty when there is none.
  Stated Find(const std::string& section, const std::string& prefix) const {
    bool inside = false;
    for (size_t i = 0; i < lines_.size(); ++i) {
      std::string text = lines_[i];
      std::erase(text, '`');
      if (text.starts_with("# ")) inside = text.starts_with(section);
      if (inside && text.starts_with(prefix)) {
        return {text, "docs/" + name_ + ":" + std::to_string(i + 1)};
      }
    }
    ADD_FAILURE() << "docs/" << name_ << ": no line starting '" << prefix << "' in section '"
                  << section << "'";
    return {};
  }

 private:
  std::string name_;
  std::vector<std::string> lines_;
};

// The default a doc line states, normalised: `pattern`'s groups, joined with `join`, then
// `suffix`.
Stated DocDefault(const Stated& line, const std::string& pattern,
                  const std::vector<std::string>& join = {}, const std::string& suffix = "") {
  std::smatch m;
  if (line.where.empty()) return {};  // Find has failed already.
  if (!std::regex_search(line.value, m, std::regex(pattern))) {
    ADD_FAILURE() << line.where << ": states no default matching /" << pattern << "/:\n"
                  << line.value;
    return {"", line.where};
  }
  std::string value = m[1];
  for (size_t i = 0; i < join.size() && i + 2 < m.size(); ++i) value += join[i] + m[i + 2].str();
  return {value + suffix, line.where};
}

void ExpectDocAgrees(const std::map<std::string, Check>& checks, const std::string& option,
                     const Stated& stated) {
  if (stated.where.empty()) return;
  EXPECT_EQ(checks.at(option)(stated.value), "")
      << stated.where << ": " << option << " states '" << stated.value << "'";
}

TEST(DocDefaultsTest, SweepMdStatesTheWorkloadSweepsDefaults) {
  const Doc doc("sweep.md");
  const std::string section = "# spillway sweep-workload";
  const std::map<std::string, Check> checks = WorkloadChecks();
  ExpectDocAgrees(checks, "--fs", DocDefault(doc.Find(section, "| --fs "), R"(\(default (\w+)\))"));
  ExpectDocAgrees(checks, "--errno",
                  DocDefault(doc.Find(section, "| --errno "), R"(\(default ([A-Z0-9,]+)\))"));
  ExpectDocAgrees(checks, "--mode",
                  DocDefault(doc.Find(section, "| --mode "), R"((\w+) \(default\))"));
}

TEST(DocDefaultsTest, SweepMdStatesTheProgramSweepsDefaults) {
  const Doc doc("sweep.md");
  const std::string section = "# spillway sweep -- CMD";
  const std::map<std::string, Check> checks = ProgramChecks();
  ExpectDocAgrees(checks, "--errno",
                  DocDefault(doc.Find(section, "| --errno "),
                             R"(default ([A-Z0-9,]+), plus ([A-Z0-9,]+) for (\w+ and \w+))",
                             {"; plus ", " for "}));
  ExpectDocAgrees(checks, "--op",
                  DocDefault(doc.Find(section, "| --op "), R"((\w+): all, the default)"));
  ExpectDocAgrees(checks, "--mode",
                  DocDefault(doc.Find(section, "| --mode "), R"(([\w,]+) \(default\))"));
  ExpectDocAgrees(checks, "--depth",
                  DocDefault(doc.Find(section, "| --depth "), R"((\w+) \(default\))"));
  ExpectDocAgrees(checks, "--jobs",
                  DocDefault(doc.Find(section, "| --jobs "), R"(\(default (\d+)\))"));
  ExpectDocAgrees(
      checks, "--timeout",
      DocDefault(
          doc.Find(section, "| --timeout "),
          R"(Default: ([\d.]+) × the baseline's time, at least ([\d.]+) s\. The baseline itself gets S, or ([\d.]+) s)",
          {" x the baseline's time, at least ", " s (the baseline: "}, " s)"));
  ExpectDocAgrees(checks, "--retries",
                  DocDefault(doc.Find(section, "| --retries "), R"(\(default (\d+)[,)])"));
  ExpectDocAgrees(checks, "--baselines",
                  DocDefault(doc.Find(section, "| --baselines "), R"(\(default (\d+)\))"));
  ExpectDocAgrees(checks, "--compare",
                  DocDefault(doc.Find(section, "| --compare "), R"(\(default (\w+)\))"));
  ExpectDocAgrees(checks, "--neighbours",
                  DocDefault(doc.Find(section, "| --neighbours "), R"(\(default (\d+)[,)])"));
  ExpectDocAgrees(checks, "--neighbour-rounds",
                  DocDefault(doc.Find(section, "| --neighbour-rounds "), R"(\(default (\d+)\))"));
  ExpectDocAgrees(checks, "--seed",
                  DocDefault(doc.Find(section, "| --seed "), R"(\(default (\d+)\))"));
}

TEST(DocDefaultsTest, InjectMdStatesTheFaultRulesDefaults) {
  FaultRuleSpec rule;
  char error[256];
  ASSERT_TRUE(ParseFaultRule("write EIO", &rule, error, sizeof(error))) << error;
  const Doc doc("inject.md");
  const Stated times = DocDefault(doc.Find("# spillway inject", "  fails the next times"),
                                  R"(times \(default (\d+);)");
  EXPECT_FALSE(rule.forever);
  EXPECT_EQ(times.value, std::to_string(rule.times)) << times.where << ": times";
  const Stated probability =
      DocDefault(doc.Find("# spillway inject", "  P (default"), R"(P \(default ([\d.]+)\))");
  EXPECT_EQ(probability.value, "1") << probability.where << ": probability";
  EXPECT_EQ(rule.probability, 1.0);
  const Stated then = DocDefault(doc.Find("# spillway inject", "  then=any (with site= only"),
                                 R"(then=(\w+) is the default)");
  EXPECT_EQ(then.value, rule.then_any_site ? "any" : "site") << then.where << ": then=";
}

}  // namespace
}  // namespace spillway
