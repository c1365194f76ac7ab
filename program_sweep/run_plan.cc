#include "run_plan.h"

#include <algorithm>
#include <cerrno>
#include <optional>
#include <utility>

#include "spillway/program_sweep/defaults.h"
#include "spillway/vfs/fault_rules.h"

namespace spillway::program_sweep {
namespace {

// The call numbers of `site` that `depth` fails: the first; with edges also the second and
// the last.
std::vector<uint64_t> NthsOf(const SiteInfo& site, Depth depth) {
  std::vector<uint64_t> nths = {1};
  if (depth == Depth::kEdges) {
    if (site.calls >= 2) nths.push_back(2);
    if (site.calls >= 3) nths.push_back(site.calls);
  }
  return nths;
}

}  // namespace

std::vector<int> DefaultErrnosFor(uint8_t op_code) {
  std::vector<int> errnos = {ENOSPC, EIO};
  if (op_code == static_cast<uint8_t>(FaultOp::kCreate) ||
      op_code == static_cast<uint8_t>(FaultOp::kMkdir)) {
    errnos.push_back(ENOENT);
  }
  return errnos;
}

std::vector<int> ErrnosFor(const std::string& op, const std::vector<int>& asked,
                           const std::vector<uint8_t>& ops) {
  uint8_t op_code = 0;
  if (!FaultOpCodeFromName(op, &op_code) || op_code == kFaultAnyOp) return {};
  if (!ops.empty() && std::find(ops.begin(), ops.end(), op_code) == ops.end()) return {};
  const std::vector<int> candidates = asked.empty() ? DefaultErrnosFor(op_code) : asked;
  std::vector<int> allowed;
  for (int e : candidates) {
    if (FaultOpCanReturn(op_code, e)) allowed.push_back(e);
  }
  return allowed;
}

std::vector<UnitRun> RunsFor(const std::string& op, bool moves_bytes, const PlanOptions& options) {
  std::vector<UnitRun> runs;
  uint8_t op_code = 0;
  if (!FaultOpCodeFromName(op, &op_code) || op_code == kFaultAnyOp) return runs;
  const std::vector<uint8_t>& ops = options.ops;
  if (!ops.empty() && std::find(ops.begin(), ops.end(), op_code) == ops.end()) return runs;
  for (int e : ErrnosFor(op, options.errnos, ops)) {
    for (FaultMode mode : options.modes) {
      if (!ModeAction(mode)) runs.push_back({e, mode});
    }
  }
  for (FaultMode mode : options.modes) {
    const std::optional<FaultAction> action = ModeAction(mode);
    if (!action || !FaultActionAllows(*action, op_code)) continue;
    if (IsDamageMode(mode) && !moves_bytes) continue;
    runs.push_back({0, mode});
  }
  return runs;
}

RunPlan::RunPlan(const Baseline& baseline, PlanOptions options,
                 std::function<CallSource()> open_calls)
    : baseline_(baseline),
      options_(std::move(options)),
      depth_(options_.depth),
      open_calls_(std::move(open_calls)) {
  if (baseline_.sites.empty()) depth_ = Depth::kAll;
  const auto runs_per_call = [this](const std::string& op, bool moves_bytes) -> uint64_t {
    return RunsFor(op, moves_bytes, options_).size();
  };
  // The runs of each operation's first planned call, which sampling always keeps.
  std::map<std::string, uint64_t> first_runs_of_op;
  for (const auto& [op, count] : baseline_.calls_by_op) {
    const auto no_bytes = baseline_.calls_moving_no_bytes_by_op.find(op);
    const uint64_t without =
        no_bytes == baseline_.calls_moving_no_bytes_by_op.end() ? 0 : no_bytes->second;
    sizes_[static_cast<int>(Depth::kAll)] +=
        (count - without) * runs_per_call(op, true) + without * runs_per_call(op, false);
    if (depth_ == Depth::kAll) {
      const auto first = baseline_.first_call_of_op.find(op);
      first_runs_of_op[op] =
          runs_per_call(op, first == baseline_.first_call_of_op.end() || first->second.moves_bytes);
    }
  }
  for (const SiteInfo& site : baseline_.sites) {
    const uint64_t runs = runs_per_call(site.op, FaultCallMovesBytes(site.call));
    sizes_[static_cast<int>(Depth::kFirst)] += runs;
    sizes_[static_cast<int>(Depth::kEdges)] += NthsOf(site, Depth::kEdges).size() * runs;
    // The first site of an operation whose call has runs is its first planned call.
    if (depth_ != Depth::kAll && runs > 0) first_runs_of_op.emplace(site.op, runs);
  }
  uint64_t first_runs = 0;
  uint64_t first_ops = 0;
  for (const auto& [op, runs] : first_runs_of_op) {
    if (runs == 0) continue;
    first_runs += runs;
    ++first_ops;
  }
  const uint64_t planned = this->planned();
  sampled_ = planned;
  if (options_.max_runs > 0 && planned > options_.max_runs) {
    sampling_ = true;
    keep_all_first_ = first_runs <= options_.max_runs;
    const uint64_t chosen = keep_all_first_ ? first_runs : first_ops;
    rest_total_ = planned - chosen;
    rest_wanted_ = options_.max_runs > chosen ? options_.max_runs - chosen : 0;
    sampled_ = chosen + rest_wanted_;
  }
  const auto count = static_cast<uint64_t>(options_.shard_count);
  shard_begin_ = sampled_ * static_cast<uint64_t>(options_.shard_index - 1) / count;
  shard_end_ = sampled_ * static_cast<uint64_t>(options_.shard_index) / count;
}

bool RunPlan::NextUnit() {
  run_at_ = 0;
  if (options_.modes.empty()) return false;
  if (depth_ == Depth::kAll) {
    if (!calls_) calls_ = open_calls_();
    while (calls_(&unit_call_)) {
      ++unit_n_;
      unit_after_ = seen_by_op_[unit_call_.op]++;
      unit_nth_ = unit_call_.site.empty() ? 0 : ++seen_by_site_[unit_call_.site + unit_call_.op];
      unit_runs_ = RunsFor(unit_call_.op, FaultCallMovesBytes(unit_call_.call), options_);
      if (unit_runs_.empty()) continue;
      auto first = baseline_.first_call_of_op.find(unit_call_.op);
      unit_first_of_op_ = first != baseline_.first_call_of_op.end() && first->second.n == unit_n_;
      return true;
    }
    return false;
  }
  const std::vector<SiteInfo>& sites = baseline_.sites;
  while (site_at_ < sites.size()) {
    const SiteInfo& site = sites[site_at_];
    if (nth_at_ == 0) {
      site_nths_ = NthsOf(site, depth_);
      unit_runs_ = RunsFor(site.op, FaultCallMovesBytes(site.call), options_);
    }
    if (unit_runs_.empty() || nth_at_ >= site_nths_.size()) {
      ++site_at_;
      nth_at_ = 0;
      continue;
    }
    unit_nth_ = site_nths_[nth_at_++];
    unit_call_ = {site.op, site.call, site.path, false, site.id};
    unit_first_of_op_ = unit_nth_ == 1 && !first_done_[site.op];
    first_done_[site.op] = true;
    return true;
  }
  return false;
}

bool RunPlan::NextPlanned(RunSpec* spec, bool* first_of_op) {
  while (!started_ || run_at_ >= unit_runs_.size()) {
    started_ = true;
    if (!NextUnit()) return false;
  }
  spec->index = index_++;
  spec->call = unit_call_;
  spec->site = unit_call_.site;
  spec->nth = unit_nth_;
  spec->by_site = depth_ != Depth::kAll;
  spec->n = spec->by_site ? 0 : unit_n_;
  spec->after = spec->by_site ? 0 : unit_after_;
  spec->error_number = unit_runs_[run_at_].error_number;
  spec->mode = unit_runs_[run_at_].mode;
  *first_of_op = unit_first_of_op_ && (keep_all_first_ || run_at_ == 0);
  ++run_at_;
  return true;
}

bool RunPlan::Sampled(bool first_of_op) {
  if (!sampling_ || first_of_op) return true;
  // The rest are kept at rest[k * total / wanted] for k < wanted: r is kept when the
  // smallest k reaching it lands on it.
  const uint64_t r = rest_seen_++;
  if (rest_wanted_ == 0) return false;
  const uint64_t k = (r * rest_wanted_ + rest_total_ - 1) / rest_total_;
  return k < rest_wanted_ && k * rest_total_ / rest_wanted_ == r;
}

bool RunPlan::Next(RunSpec* spec) {
  bool first_of_op = false;
  while (sampled_seen_ < shard_end_ && NextPlanned(spec, &first_of_op)) {
    if (!Sampled(first_of_op)) continue;
    if (sampled_seen_++ >= shard_begin_) return true;
  }
  return false;
}

}  // namespace spillway::program_sweep
