#include "run_plan.h"

#include <algorithm>
#include <cerrno>
#include <map>
#include <set>
#include <string>

#include "spillway/vfs/fault_rules.h"

namespace spillway::cmdsweep {
namespace {

// The errnos run for a call of `op_code`: those asked for (or the defaults) that the
// operation can return.
std::vector<int> ErrnosFor(uint8_t op_code, const std::vector<int>& asked) {
  std::vector<int> candidates = asked;
  if (candidates.empty()) {
    candidates = {ENOSPC, EIO};
    if (op_code == static_cast<uint8_t>(FaultOp::kCreate) ||
        op_code == static_cast<uint8_t>(FaultOp::kMkdir)) {
      candidates.push_back(ENOENT);
    }
  }
  std::vector<int> allowed;
  for (int e : candidates) {
    if (FaultOpCanReturn(op_code, e)) allowed.push_back(e);
  }
  return allowed;
}

// The indexes in `runs` of the runs of each operation's first call.
std::vector<std::vector<size_t>> FirstCallRuns(const std::vector<RunSpec>& runs) {
  std::map<std::string, uint64_t> first_call;
  for (const RunSpec& run : runs) first_call.emplace(run.call.op, run.n);
  std::map<uint64_t, std::vector<size_t>> by_call;
  for (size_t i = 0; i < runs.size(); ++i) {
    if (first_call[runs[i].call.op] == runs[i].n) by_call[runs[i].n].push_back(i);
  }
  std::vector<std::vector<size_t>> groups;
  groups.reserve(by_call.size());
  for (auto& [n, indexes] : by_call) groups.push_back(std::move(indexes));
  return groups;
}

}  // namespace

std::vector<RunSpec> PlanRuns(const std::vector<TracedCall>& calls, const std::vector<int>& errnos,
                              const std::vector<uint8_t>& ops,
                              const std::vector<FaultMode>& modes) {
  std::vector<RunSpec> runs;
  std::map<std::string, uint64_t> seen;  // Calls of each operation so far.
  for (size_t i = 0; i < calls.size(); ++i) {
    const TracedCall& call = calls[i];
    const uint64_t after = seen[call.op]++;
    uint8_t op_code = 0;
    if (!FaultOpCodeFromName(call.op, &op_code) || op_code == kFaultAnyOp) continue;
    if (!ops.empty() && std::find(ops.begin(), ops.end(), op_code) == ops.end()) continue;
    for (int e : ErrnosFor(op_code, errnos)) {
      for (FaultMode mode : modes) runs.push_back({i + 1, call, after, e, mode});
    }
  }
  return runs;
}

std::vector<RunSpec> SampleRuns(const std::vector<RunSpec>& runs, uint64_t max_runs) {
  if (max_runs == 0 || runs.size() <= max_runs) return runs;
  const std::vector<std::vector<size_t>> groups = FirstCallRuns(runs);
  std::set<size_t> chosen;
  size_t all_first = 0;
  for (const auto& group : groups) all_first += group.size();
  for (const auto& group : groups) {
    if (all_first <= max_runs) {
      chosen.insert(group.begin(), group.end());
    } else {
      chosen.insert(group.front());
    }
  }
  // Fill up with runs at evenly spaced places among the others.
  std::vector<size_t> rest;
  for (size_t i = 0; i < runs.size(); ++i) {
    if (chosen.count(i) == 0) rest.push_back(i);
  }
  const size_t wanted = chosen.size() < max_runs ? max_runs - chosen.size() : 0;
  for (size_t k = 0; k < wanted && !rest.empty(); ++k) {
    chosen.insert(rest[k * rest.size() / wanted]);
  }
  std::vector<RunSpec> sample;
  sample.reserve(chosen.size());
  for (size_t i : chosen) sample.push_back(runs[i]);
  return sample;
}

std::vector<RunSpec> ShardRuns(const std::vector<RunSpec>& runs, int index, int count) {
  const size_t begin = runs.size() * static_cast<size_t>(index - 1) / static_cast<size_t>(count);
  const size_t end = runs.size() * static_cast<size_t>(index) / static_cast<size_t>(count);
  return {runs.begin() + static_cast<long>(begin), runs.begin() + static_cast<long>(end)};
}

}  // namespace spillway::cmdsweep
