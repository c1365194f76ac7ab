#include "spillway/cmdsweep/report.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>

namespace spillway::cmdsweep {
namespace {

std::string Describe(const RunSpec& spec) {
  return fmt::format("call {} ({} {} {}) {} {}", spec.n, spec.call.op, spec.call.call,
                     spec.call.path, ErrnoName(spec.error_number), FaultModeName(spec.mode));
}

std::string VerdictList(const RunResult& run) {
  std::string out;
  for (Verdict v : run.verdicts) out += (out.empty() ? "" : ", ") + std::string(VerdictName(v));
  return out;
}

std::string HowItEnded(const RunResult& run) {
  if (run.exit_code) return fmt::format("exit {}", *run.exit_code);
  if (run.signal) return fmt::format("killed by signal {}", *run.signal);
  return "stopped at the timeout";
}

nlohmann::ordered_json LeftoversJson(const std::vector<Leftover>& leftovers) {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const Leftover& left : leftovers) {
    list.push_back(
        {{"path", left.path}, {"size", left.size}, {"kind", LeftoverKindName(left.kind)}});
  }
  return list;
}

nlohmann::ordered_json RunJson(const RunResult& run) {
  nlohmann::ordered_json j;
  j["n"] = run.spec.n;
  j["op"] = run.spec.call.op;
  j["call"] = run.spec.call.call;
  j["path"] = run.spec.call.path;
  j["errno"] = ErrnoName(run.spec.error_number);
  j["mode"] = FaultModeName(run.spec.mode);
  j["exit"] = run.exit_code ? nlohmann::ordered_json(*run.exit_code) : nullptr;
  j["signal"] = run.signal ? nlohmann::ordered_json(*run.signal) : nullptr;
  j["verdicts"] = nlohmann::ordered_json::array();
  for (Verdict v : run.verdicts) j["verdicts"].push_back(VerdictName(v));
  j["leftovers"] = LeftoversJson(run.leftovers);
  j["reproducer"] = run.reproducer;
  return j;
}

nlohmann::ordered_json BaselineJson(const CmdSweepOptions& options, const CmdSweepResult& result) {
  std::map<std::string, uint64_t> by_op;
  for (const TracedCall& call : result.baseline.calls) ++by_op[call.op];
  nlohmann::ordered_json j;
  j["command"] = options.command;
  j["exit"] = result.baseline.exit_code;
  j["calls"] = result.baseline.calls.size();
  j["calls_by_op"] = by_op;
  j["leftovers"] = LeftoversJson(result.baseline.leftovers);
  j["seconds"] = result.baseline.seconds;
  j["timeout"] = result.timeout;
  j["planned_runs"] = result.planned_runs;
  j["sampled_runs"] = result.sampled_runs;
  j["shard"] = fmt::format("{}/{}", options.shard_index, options.shard_count);
  return j;
}

std::string XmlEscape(std::string_view text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

void PrintPlan(std::FILE* out, const CmdSweepOptions& options, const CmdSweepResult& result) {
  std::fprintf(
      out,
      "runs: %llu planned (in-scope calls x errnos each call's operation can return x modes)\n",
      static_cast<unsigned long long>(result.planned_runs));
  if (result.sampled_runs != result.planned_runs) {
    std::fprintf(out,
                 "sampled: %llu of %llu runs (--max-runs %llu), spread evenly over the calls, "
                 "the first call of each operation always included\n",
                 static_cast<unsigned long long>(result.sampled_runs),
                 static_cast<unsigned long long>(result.planned_runs),
                 static_cast<unsigned long long>(options.max_runs));
  }
  if (options.shard_count > 1) {
    std::fprintf(out, "shard %d/%d: %zu of %llu runs\n", options.shard_index, options.shard_count,
                 result.runs.size(), static_cast<unsigned long long>(result.sampled_runs));
  }
}

void PrintViolation(std::FILE* out, const RunResult& run) {
  std::fprintf(out, "violation: %s: %s (%s)\n", Describe(run.spec).c_str(),
               VerdictList(run).c_str(), HowItEnded(run).c_str());
  for (const Leftover& left : run.leftovers) {
    std::fprintf(out, "  left %s (%llu bytes): %s\n", left.path.c_str(),
                 static_cast<unsigned long long>(left.size), LeftoverKindName(left.kind));
  }
  std::fprintf(out, "  reproduce: %s\n", run.reproducer.c_str());
  if (!run.kept_as.empty()) {
    std::fprintf(out, "  kept: %s.{sh,stdout,stderr,trace}\n", run.kept_as.c_str());
  }
}

}  // namespace

void PrintText(std::FILE* out, const CmdSweepOptions& options, const CmdSweepResult& result) {
  std::map<std::string, uint64_t> by_op;
  for (const TracedCall& call : result.baseline.calls) ++by_op[call.op];
  std::string ops;
  for (const auto& [op, n] : by_op) ops += fmt::format("{}{} {}", ops.empty() ? "" : ", ", op, n);
  std::fprintf(out, "baseline: exit %d, %zu in-scope calls (%s), %zu leftovers, %.2f s\n",
               result.baseline.exit_code, result.baseline.calls.size(),
               ops.empty() ? "none" : ops.c_str(), result.baseline.leftovers.size(),
               result.baseline.seconds);
  PrintPlan(out, options, result);
  for (const RunResult& run : result.runs) {
    if (std::any_of(run.verdicts.begin(), run.verdicts.end(), IsViolation))
      PrintViolation(out, run);
  }
  std::string counts;
  for (int v = 0; v < kVerdictCount; ++v) {
    counts += fmt::format("{}{} {}", v == 0 ? "" : ", ", VerdictName(static_cast<Verdict>(v)),
                          result.by_verdict[v]);
  }
  std::fprintf(out, "verdicts: %s\n", counts.c_str());
  std::fprintf(out, "violations: %llu of %zu runs (timeout %.3g s per run)\n",
               static_cast<unsigned long long>(result.violations), result.runs.size(),
               result.timeout);
}

std::string ToJson(const CmdSweepOptions& options, const CmdSweepResult& result) {
  nlohmann::ordered_json j;
  j["baseline"] = BaselineJson(options, result);
  j["runs"] = nlohmann::ordered_json::array();
  for (const RunResult& run : result.runs) j["runs"].push_back(RunJson(run));
  nlohmann::ordered_json by_verdict;
  for (int v = 0; v < kVerdictCount; ++v) {
    by_verdict[VerdictName(static_cast<Verdict>(v))] = result.by_verdict[v];
  }
  j["summary"] = {{"calls", result.baseline.calls.size()},
                  {"runs", result.runs.size()},
                  {"violations", result.violations},
                  {"by_verdict", by_verdict}};
  return j.dump();
}

std::string ToJunit(const CmdSweepResult& result) {
  uint64_t skipped = result.by_verdict[static_cast<int>(Verdict::kDiverged)];
  std::string xml = fmt::format(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n"
      "<testsuite name=\"spillway sweep\" tests=\"{}\" failures=\"{}\" skipped=\"{}\">\n",
      result.runs.size(), result.violations, skipped);
  for (const RunResult& run : result.runs) {
    xml += fmt::format("<testcase classname=\"spillway.sweep\" name=\"{}\">",
                       XmlEscape(Describe(run.spec)));
    if (std::any_of(run.verdicts.begin(), run.verdicts.end(), IsViolation)) {
      xml += fmt::format("<failure message=\"{}\">{}\nreproduce: {}</failure>",
                         XmlEscape(VerdictList(run)), XmlEscape(HowItEnded(run)),
                         XmlEscape(run.reproducer));
    } else if (!run.diverged_at.empty()) {
      xml += fmt::format("<skipped message=\"diverged: {}\"/>", XmlEscape(run.diverged_at));
    }
    xml += "</testcase>\n";
  }
  return xml + "</testsuite>\n</testsuites>\n";
}

}  // namespace spillway::cmdsweep
