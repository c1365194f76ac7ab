// The JSON report of `spillway sweep -- CMD`, written as its runs are read back.
#include <fmt/format.h>

#include "run_json.h"
#include "spillway/program_sweep/report.h"

namespace spillway::program_sweep {
namespace {

Json CountsJson(const std::array<uint64_t, kVerdictCount>& counts) {
  Json j = Json::object();
  for (Verdict v : vocab::AllValues<VerdictName>()) {
    j[std::string(VerdictName(v))] = counts[static_cast<size_t>(v)];
  }
  return j;
}

Json BaselineJson(const CmdSweepResult& result) {
  const Baseline& baseline = result.baseline;
  Json j;
  j["command"] = result.command;
  j["runs"] = baseline.runs;
  j["exit"] = baseline.exit_code;
  j["calls"] = baseline.calls;
  j["calls_by_op"] = baseline.calls_by_op;
  j["leftovers"] = LeftoversJson(baseline.leftovers);
  j["leaks"] = result.scratch ? LeftoversJson(baseline.leftovers) : Json::array();
  j["scratch"] = result.scratch;
  j["seconds"] = baseline.seconds;
  j["timeout"] = result.timeout;
  j["planned_runs"] = result.planned_runs;
  j["sampled_runs"] = result.sampled_runs;
  j["max_runs"] = result.max_runs;
  j["shard"] = fmt::format("{}/{}", result.shard_index, result.shard_count);
  return j;
}

Json SitesJson(const CmdSweepResult& result) {
  Json sites = Json::array();
  for (const SiteInfo& site : result.baseline.sites) {
    const auto it = result.by_site.find(site.id);
    Json j = SiteJson(site);
    j["verdicts"] =
        CountsJson(it == result.by_site.end() ? std::array<uint64_t, kVerdictCount>{} : it->second);
    sites.push_back(std::move(j));
  }
  return sites;
}

Json SummaryJson(const CmdSweepResult& result) {
  Json sizes;
  for (Depth d : vocab::AllValues<DepthName>()) {
    sizes[std::string(DepthName(d))] = result.plan_sizes[static_cast<size_t>(d)];
  }
  return {{"calls", result.baseline.calls},
          {"sites", result.baseline.sites.size()},
          {"depth", DepthName(result.depth)},
          {"planned_runs", result.planned_runs},
          {"plan_sizes", sizes},
          {"sampled_runs", result.sampled_runs},
          {"runs", result.run_count},
          {"violations", result.violations},
          {"neighbour_violations", result.neighbours.violations},
          {"baseline_leaks", result.scratch ? result.baseline.leftovers.size() : 0},
          {"by_verdict", CountsJson(result.by_verdict)},
          {"damage_runs", result.damage_runs},
          {"damage_by_verdict", CountsJson(result.damage_by_verdict)}};
}

// `{"instances", "rounds", "seed", "violations", "by_verdict", "runs": [{"round",
// "instance", "offset", "exit", "signal", "reported_error", "verdicts", "leftovers",
// "reproducer"}]}`; report_merge.cc reads it back.
Json NeighboursJson(const NeighbourResult& neighbours) {
  Json runs = Json::array();
  for (const NeighbourRun& n : neighbours.runs) {
    const Json run = RunJson(n.run);
    Json j = {{"round", n.round}, {"instance", n.instance}, {"offset", n.offset}};
    for (const char* key :
         {"exit", "signal", "reported_error", "verdicts", "leftovers", "reproducer"}) {
      j[key] = run.at(key);
    }
    runs.push_back(std::move(j));
  }
  return {{"instances", neighbours.instances},
          {"rounds", neighbours.rounds},
          {"seed", neighbours.seed},
          {"violations", neighbours.violations},
          {"by_verdict", CountsJson(neighbours.by_verdict)},
          {"runs", std::move(runs)}};
}

}  // namespace

Status WriteJson(std::FILE* out, const CmdSweepResult& result) {
  // The object's members written one by one, as dump() would write the whole.
  const std::string head = fmt::format(R"({{"baseline":{},"sites":{},"neighbours":{},"runs":[)",
                                       BaselineJson(result).dump(), SitesJson(result).dump(),
                                       NeighboursJson(result.neighbours).dump());
  std::fputs(head.c_str(), out);
  bool first = true;
  SPILLWAY_RETURN_IF_ERROR(result.runs->ForEach([out, &first](const RunResult& run) {
    if (!first) std::fputc(',', out);
    std::fputs(RunJson(run).dump().c_str(), out);
    first = false;
  }));
  const std::string tail = fmt::format(R"(],"summary":{}}})", SummaryJson(result).dump());
  std::fputs(tail.c_str(), out);
  return OkStatus();
}

}  // namespace spillway::program_sweep
