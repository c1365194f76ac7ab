// `spillway sweep merge`: the JSON reports of a sweep's shards read back into the result of
// the unsharded sweep. Each report is parsed holding one run at a time: once here for its
// counts and checks, again (report by report, in shard order) whenever a report of the
// merged result reads its runs.
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <functional>
#include <memory>

#include "run_json.h"
#include "spillway/program_sweep/report.h"

namespace spillway::program_sweep {
namespace {

Status NotAReport(const std::string& file, const char* why) {
  return Status::InvalidArgument(
      fmt::format("merge: {}: not a report of spillway sweep -- CMD: {}", file, why));
}

// Parses the report in `file` without its runs: each element of its "runs" goes to
// `on_run` (which throws for one that is no run) and is then dropped. Errors: the file
// cannot be read, is no JSON object, or `on_run` threw.
StatusOr<nlohmann::json> ParseReport(const std::string& file,
                                     const std::function<void(const nlohmann::json&)>& on_run) {
  std::ifstream in(file);
  std::string member;  // The top-level member being parsed.
  auto drop_runs = [&](int depth, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
    if (event == nlohmann::json::parse_event_t::key && depth == 1) {
      member = parsed.get<std::string>();
    }
    if (event == nlohmann::json::parse_event_t::object_end && depth == 2 && member == "runs") {
      on_run(parsed);
      return false;
    }
    return true;
  };
  try {
    nlohmann::json report;
    if (in) report = nlohmann::json::parse(in, drop_runs, /*allow_exceptions=*/false);
    if (!in || report.is_discarded() || !report.is_object()) {
      return Status::InvalidArgument(fmt::format("merge: {}: not a JSON report", file));
    }
    return report;
  } catch (const std::exception& e) {
    return NotAReport(file, e.what());
  }
}

// A report's "neighbours" (report_json.cc), its counts made again from its runs; none in a
// report from before --neighbours. Throws as ReadHeader.
NeighbourResult NeighboursFromJson(const nlohmann::json& report) {
  NeighbourResult result;
  if (!report.contains("neighbours")) return result;
  const nlohmann::json& j = report.at("neighbours");
  result.instances = j.at("instances").get<int>();
  result.rounds = j.at("rounds").get<int>();
  result.seed = j.at("seed").get<uint64_t>();
  for (const nlohmann::json& r : j.at("runs")) {
    NeighbourRun n;
    n.round = r.at("round").get<int>();
    n.instance = r.at("instance").get<int>();
    n.offset = r.at("offset").get<double>();
    if (!r.at("exit").is_null()) n.run.exit_code = r.at("exit").get<int>();
    if (!r.at("signal").is_null()) n.run.signal = r.at("signal").get<int>();
    n.run.reported_error = r.at("reported_error").get<bool>();
    bool violation = false;
    for (const nlohmann::json& v : r.at("verdicts")) {
      const Verdict verdict = FromName<VerdictName>(v.get<std::string>());
      n.run.verdicts.push_back(verdict);
      ++result.by_verdict[static_cast<size_t>(verdict)];
      violation = violation || IsViolation(verdict);
    }
    result.violations += violation ? 1 : 0;
    n.run.leftovers = LeftoversFromJson(r.at("leftovers"));
    n.run.reproducer = r.at("reproducer").get<std::string>();
    result.runs.push_back(std::move(n));
  }
  return result;
}

// One shard's report: its header (the result without runs), what must be equal in every
// shard of one plan, and its runs' first and last plan index.
struct Shard {
  std::string file;
  CmdSweepResult result;
  std::string plan;
  uint64_t first_index = 0;
  uint64_t last_index = 0;
};

// The header of `report`, a shard's report without its runs. Throws (std::invalid_argument,
// nlohmann::json's exceptions) when it is not one.
void ReadHeader(const nlohmann::json& report, Shard* shard) {
  CmdSweepResult& r = shard->result;
  const nlohmann::json& b = report.at("baseline");
  const nlohmann::json& summary = report.at("summary");
  if (!report.at("runs").is_array()) throw std::invalid_argument("its runs are no list");
  r.command = b.at("command").get<std::vector<std::string>>();
  r.baseline.exit_code = b.at("exit").get<int>();
  r.baseline.runs = b.value("runs", 1);  // Reports from before --baselines had one.
  r.baseline.calls = b.at("calls").get<uint64_t>();
  r.baseline.calls_by_op = b.at("calls_by_op").get<std::map<std::string, uint64_t>>();
  r.baseline.leftovers = LeftoversFromJson(b.at("leftovers"));
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
  r.depth = FromName<DepthName>(summary.at("depth").get<std::string>());
  for (Depth d : vocab::AllValues<DepthName>()) {
    r.plan_sizes[static_cast<size_t>(d)] =
        summary.at("plan_sizes").at(std::string(DepthName(d))).get<uint64_t>();
  }
  // Only the first shard runs neighbours: the merge keeps its rounds.
  r.neighbours = NeighboursFromJson(report);
  nlohmann::json sites = report.at("sites");
  for (nlohmann::json& s : sites) {
    r.baseline.sites.push_back(SiteFromJson(s));
    s.erase("verdicts");
  }
  nlohmann::json plan = b;
  plan.erase("shard");
  shard->plan =
      plan.dump() + sites.dump() + summary.at("depth").dump() + summary.at("plan_sizes").dump();
}

// Reads `file`: its header into *shard, its runs counted in *counts. Errors as
// MergeReports'.
Status ReadShard(const std::string& file, Shard* shard, CmdSweepResult* counts) {
  shard->file = file;
  uint64_t runs = 0;
  // The plan's depth is in the summary, after the runs: they are read as by call number
  // here, only to be checked and counted.
  StatusOr<nlohmann::json> report = ParseReport(file, [&](const nlohmann::json& j) {
    const RunResult run = RunFromJson(j, Depth::kAll);
    if (runs > 0 && run.spec.index <= shard->last_index) {
      throw std::invalid_argument(fmt::format("run {} is out of plan order", run.spec.index));
    }
    if (runs++ == 0) shard->first_index = run.spec.index;
    shard->last_index = run.spec.index;
    counts->Count(run);
  });
  if (!report.ok()) return report.status();
  try {
    ReadHeader(*report, shard);
  } catch (const std::exception& e) {
    return NotAReport(file, e.what());
  }
  shard->result.run_count = runs;
  return OkStatus();
}

// The runs of the shards' reports, read again report by report in shard order.
class ShardRuns final : public RunSource {
 public:
  ShardRuns(std::vector<std::string> files, Depth depth)
      : files_(std::move(files)), depth_(depth) {}

  Status ForEach(const std::function<void(const RunResult&)>& visit) const override {
    for (const std::string& file : files_) {
      const StatusOr<nlohmann::json> report =
          ParseReport(file, [&](const nlohmann::json& j) { visit(RunFromJson(j, depth_)); });
      if (!report.ok()) return report.status();
    }
    return OkStatus();
  }

 private:
  std::vector<std::string> files_;  // In shard order.
  Depth depth_;
};

}  // namespace

StatusOr<CmdSweepResult> MergeReports(const std::vector<std::string>& files) {
  if (files.empty()) return Status::InvalidArgument("merge: no report given");
  CmdSweepResult counts;
  std::vector<Shard> shards(files.size());
  for (size_t i = 0; i < files.size(); ++i) {
    SPILLWAY_RETURN_IF_ERROR(ReadShard(files[i], &shards[i], &counts));
    if (shards[i].plan != shards.front().plan ||
        shards[i].result.shard_count != shards.front().result.shard_count) {
      return Status::InvalidArgument(fmt::format(
          "merge: {} and {} are reports of different plans or baselines", files.front(), files[i]));
    }
  }
  const int count = shards.front().result.shard_count;
  std::vector<bool> seen(static_cast<size_t>(count) + 1, false);
  for (const Shard& shard : shards) {
    const int k = shard.result.shard_index;
    if (k < 1 || k > count || seen[static_cast<size_t>(k)]) {
      return Status::InvalidArgument(fmt::format(
          "merge: {}: shard {}/{} is out of range or given twice", shard.file, k, count));
    }
    seen[static_cast<size_t>(k)] = true;
  }
  if (shards.size() != static_cast<size_t>(count)) {
    return Status::InvalidArgument(
        fmt::format("merge: {} of {} shards given; every shard is needed", shards.size(), count));
  }
  // Shards are contiguous slices of the plan: in shard order their runs are in plan order.
  std::sort(shards.begin(), shards.end(), [](const Shard& a, const Shard& b) {
    return a.result.shard_index < b.result.shard_index;
  });
  std::vector<std::string> in_order;
  const Shard* last = nullptr;  // The last shard with runs.
  for (const Shard& shard : shards) {
    in_order.push_back(shard.file);
    if (shard.result.run_count == 0) continue;
    if (last != nullptr && shard.first_index <= last->last_index) {
      return Status::InvalidArgument(fmt::format(
          "merge: {}: its runs are not after those of {} in plan order", shard.file, last->file));
    }
    last = &shard;
  }
  CmdSweepResult merged = std::move(shards.front().result);
  merged.shard_index = 1;
  merged.shard_count = 1;
  merged.run_count = counts.run_count;
  merged.by_verdict = counts.by_verdict;
  merged.by_site = std::move(counts.by_site);
  merged.violations = counts.violations;
  merged.damage_runs = counts.damage_runs;
  merged.damage_by_verdict = counts.damage_by_verdict;
  merged.runs = std::make_shared<ShardRuns>(std::move(in_order), merged.depth);
  return merged;
}

}  // namespace spillway::program_sweep
