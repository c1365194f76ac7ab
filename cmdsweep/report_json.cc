// The JSON report of `spillway sweep -- CMD`, and reading shards' reports back for
// `spillway sweep merge`.
#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "spillway/cmdsweep/report.h"

namespace spillway::cmdsweep {
namespace {

using Json = nlohmann::ordered_json;

Json LeftoversJson(const std::vector<Leftover>& leftovers) {
  Json list = Json::array();
  for (const Leftover& left : leftovers) {
    list.push_back(
        {{"path", left.path}, {"size", left.size}, {"kind", LeftoverKindName(left.kind)}});
  }
  return list;
}

Json CountsJson(const std::array<uint64_t, kVerdictCount>& counts) {
  Json j = Json::object();
  for (int v = 0; v < kVerdictCount; ++v) j[VerdictName(static_cast<Verdict>(v))] = counts[v];
  return j;
}

Json RunJson(const RunResult& run) {
  Json j;
  j["index"] = run.spec.index;
  j["n"] = run.spec.n;
  j["site"] = run.spec.site.empty() ? Json(nullptr) : Json(run.spec.site);
  j["nth"] = run.spec.nth;
  j["op"] = run.spec.call.op;
  j["call"] = run.spec.call.call;
  j["path"] = run.spec.call.path;
  j["errno"] = ErrnoName(run.spec.error_number);
  j["mode"] = FaultModeName(run.spec.mode);
  j["exit"] = run.exit_code ? Json(*run.exit_code) : nullptr;
  j["signal"] = run.signal ? Json(*run.signal) : nullptr;
  j["reported_error"] = run.reported_error;
  j["verdicts"] = Json::array();
  for (Verdict v : run.verdicts) j["verdicts"].push_back(VerdictName(v));
  j["leftovers"] = LeftoversJson(run.leftovers);
  j["diverged_at"] = run.diverged_at.empty() ? Json(nullptr) : Json(run.diverged_at);
  j["reproducer"] = run.reproducer;
  j["kept"] = run.kept_as.empty() ? Json(nullptr) : Json(run.kept_as);
  return j;
}

Json BaselineJson(const CmdSweepResult& result) {
  const Baseline& baseline = result.baseline;
  Json j;
  j["command"] = result.command;
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

template <typename Enum, int kCount>
Enum FromName(const std::string& name, const char* (*name_of)(Enum)) {
  for (int i = 0; i < kCount; ++i) {
    if (name == name_of(static_cast<Enum>(i))) return static_cast<Enum>(i);
  }
  throw std::invalid_argument("unknown name '" + name + "'");
}

std::vector<Leftover> LeftoversFrom(const nlohmann::json& list) {
  std::vector<Leftover> leftovers;
  for (const nlohmann::json& l : list) {
    leftovers.push_back(
        {l.at("path").get<std::string>(), l.at("size").get<uint64_t>(),
         FromName<Leftover::Kind, 3>(l.at("kind").get<std::string>(), LeftoverKindName)});
  }
  return leftovers;
}

std::string StringOr(const nlohmann::json& j, const char* key) {
  return j.at(key).is_null() ? std::string() : j.at(key).get<std::string>();
}

RunResult RunFrom(const nlohmann::json& j, Depth depth) {
  RunResult run;
  RunSpec& spec = run.spec;
  spec.index = j.at("index").get<uint64_t>();
  spec.n = j.at("n").get<uint64_t>();
  spec.site = StringOr(j, "site");
  spec.nth = j.at("nth").get<uint64_t>();
  spec.by_site = depth != Depth::kAll;
  spec.call = {j.at("op").get<std::string>(), j.at("call").get<std::string>(),
               j.at("path").get<std::string>(), false, spec.site};
  const std::optional<int> e = ErrnoFromName(j.at("errno").get<std::string>());
  if (!e) throw std::invalid_argument("unknown errno " + j.at("errno").dump());
  spec.error_number = *e;
  spec.mode = FromName<FaultMode, 2>(j.at("mode").get<std::string>(), FaultModeName);
  if (!j.at("exit").is_null()) run.exit_code = j.at("exit").get<int>();
  if (!j.at("signal").is_null()) run.signal = j.at("signal").get<int>();
  run.reported_error = j.at("reported_error").get<bool>();
  for (const nlohmann::json& v : j.at("verdicts")) {
    run.verdicts.push_back(FromName<Verdict, kVerdictCount>(v.get<std::string>(), VerdictName));
  }
  run.leftovers = LeftoversFrom(j.at("leftovers"));
  run.diverged_at = StringOr(j, "diverged_at");
  run.reproducer = j.at("reproducer").get<std::string>();
  run.kept_as = StringOr(j, "kept");
  return run;
}

// One shard's report, and what must be equal in every shard of one plan.
struct Shard {
  CmdSweepResult result;
  std::string plan;
};

Shard ShardFrom(const nlohmann::json& report) {
  Shard shard;
  CmdSweepResult& r = shard.result;
  const nlohmann::json& b = report.at("baseline");
  const nlohmann::json& summary = report.at("summary");
  r.command = b.at("command").get<std::vector<std::string>>();
  r.baseline.exit_code = b.at("exit").get<int>();
  r.baseline.calls = b.at("calls").get<uint64_t>();
  r.baseline.calls_by_op = b.at("calls_by_op").get<std::map<std::string, uint64_t>>();
  r.baseline.leftovers = LeftoversFrom(b.at("leftovers"));
  r.baseline.seconds = b.at("seconds").get<double>();
  r.scratch = b.at("scratch").get<bool>();
  r.timeout = b.at("timeout").get<double>();
  r.planned_runs = b.at("planned_runs").get<uint64_t>();
  r.sampled_runs = b.at("sampled_runs").get<uint64_t>();
  r.max_runs = b.at("max_runs").get<uint64_t>();
  const std::string where = b.at("shard").get<std::string>();
  char extra = 0;
  if (std::sscanf(where.c_str(), "%d/%d%c", &r.shard_index, &r.shard_count, &extra) != 2) {
    throw std::invalid_argument("shard '" + where + "' is not K/N");
  }
  r.depth = FromName<Depth, kDepthCount>(summary.at("depth").get<std::string>(), DepthName);
  for (int d = 0; d < kDepthCount; ++d) {
    r.plan_sizes[d] = summary.at("plan_sizes").at(DepthName(static_cast<Depth>(d))).get<uint64_t>();
  }
  nlohmann::json sites = report.at("sites");
  for (nlohmann::json& s : sites) {
    r.baseline.sites.push_back({s.at("id").get<std::string>(), s.at("op").get<std::string>(),
                                s.at("call").get<std::string>(), s.at("path").get<std::string>(),
                                s.at("calls").get<uint64_t>(), 0,
                                s.at("frames").get<std::vector<std::string>>()});
    s.erase("verdicts");
  }
  for (const nlohmann::json& run : report.at("runs")) r.runs.push_back(RunFrom(run, r.depth));
  nlohmann::json plan = b;
  plan.erase("shard");
  shard.plan =
      plan.dump() + sites.dump() + summary.at("depth").dump() + summary.at("plan_sizes").dump();
  return shard;
}

}  // namespace

std::string ToJson(const CmdSweepResult& result) {
  Json j;
  j["baseline"] = BaselineJson(result);
  const auto by_site = VerdictsBySite(result);
  j["sites"] = Json::array();
  for (const SiteInfo& site : result.baseline.sites) {
    const auto it = by_site.find(site.id);
    j["sites"].push_back(
        {{"id", site.id},
         {"op", site.op},
         {"call", site.call},
         {"calls", site.calls},
         {"path", site.path},
         {"frames", site.frames},
         {"verdicts",
          CountsJson(it == by_site.end() ? std::array<uint64_t, kVerdictCount>{} : it->second)}});
  }
  j["runs"] = Json::array();
  for (const RunResult& run : result.runs) j["runs"].push_back(RunJson(run));
  Json sizes;
  for (int d = 0; d < kDepthCount; ++d)
    sizes[DepthName(static_cast<Depth>(d))] = result.plan_sizes[d];
  j["summary"] = {{"calls", result.baseline.calls},
                  {"sites", result.baseline.sites.size()},
                  {"depth", DepthName(result.depth)},
                  {"planned_runs", result.planned_runs},
                  {"plan_sizes", sizes},
                  {"sampled_runs", result.sampled_runs},
                  {"runs", result.runs.size()},
                  {"violations", result.violations},
                  {"baseline_leaks", result.scratch ? result.baseline.leftovers.size() : 0},
                  {"by_verdict", CountsJson(result.by_verdict)}};
  return j.dump();
}

StatusOr<CmdSweepResult> MergeReports(const std::vector<std::string>& files) {
  if (files.empty()) return Status::InvalidArgument("merge: no report given");
  std::vector<Shard> shards;
  for (const std::string& file : files) {
    std::ifstream in(file);
    std::stringstream text;
    text << in.rdbuf();
    const nlohmann::json report = nlohmann::json::parse(text.str(), nullptr, false);
    if (!in || report.is_discarded() || !report.is_object()) {
      return Status::InvalidArgument(fmt::format("merge: {}: not a JSON report", file));
    }
    try {
      shards.push_back(ShardFrom(report));
    } catch (const std::exception& e) {
      return Status::InvalidArgument(
          fmt::format("merge: {}: not a report of spillway sweep -- CMD: {}", file, e.what()));
    }
    if (shards.back().plan != shards.front().plan ||
        shards.back().result.shard_count != shards.front().result.shard_count) {
      return Status::InvalidArgument(fmt::format(
          "merge: {} and {} are reports of different plans or baselines", files.front(), file));
    }
  }
  const int count = shards.front().result.shard_count;
  std::vector<bool> seen(static_cast<size_t>(count) + 1, false);
  for (size_t i = 0; i < shards.size(); ++i) {
    const int k = shards[i].result.shard_index;
    if (k < 1 || k > count || seen[static_cast<size_t>(k)]) {
      return Status::InvalidArgument(
          fmt::format("merge: {}: shard {}/{} is out of range or given twice", files[i], k, count));
    }
    seen[static_cast<size_t>(k)] = true;
  }
  if (shards.size() != static_cast<size_t>(count)) {
    return Status::InvalidArgument(
        fmt::format("merge: {} of {} shards given; every shard is needed", shards.size(), count));
  }
  CmdSweepResult merged = std::move(shards.front().result);
  for (size_t i = 1; i < shards.size(); ++i) {
    for (RunResult& run : shards[i].result.runs) merged.runs.push_back(std::move(run));
  }
  std::sort(merged.runs.begin(), merged.runs.end(),
            [](const RunResult& a, const RunResult& b) { return a.spec.index < b.spec.index; });
  merged.shard_index = 1;
  merged.shard_count = 1;
  for (const RunResult& run : merged.runs) {
    for (Verdict v : run.verdicts) ++merged.by_verdict[static_cast<int>(v)];
    merged.violations += std::any_of(run.verdicts.begin(), run.verdicts.end(), IsViolation);
  }
  return merged;
}

}  // namespace spillway::cmdsweep
