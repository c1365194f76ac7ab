// Which runs a sweep makes, as a stream: for each planned call of the baseline (each site's
// first call; with edges also its second and last; with all every call number), each errno
// its operation can return and each errno mode, and one run of each action mode (kill;
// corrupt for reads and writes; lost for writes); then --max-runs
// sampling and the --shard slice, both decided run by run so that the plan is never held and shards
// agree.
#ifndef SPILLWAY_PROGRAM_SWEEP_RUN_PLAN_H_
#define SPILLWAY_PROGRAM_SWEEP_RUN_PLAN_H_

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "spillway/program_sweep/cmd_sweep.h"

namespace spillway::program_sweep {

struct PlanOptions {
  Depth depth = Depth::kFirst;
  std::vector<int> errnos;   // Empty: DefaultErrnosFor each operation (defaults.h).
  std::vector<uint8_t> ops;  // Empty: every operation.
  std::vector<FaultMode> modes = {FaultMode::kTransient, FaultMode::kPersistent, FaultMode::kKill,
                                  FaultMode::kCorrupt, FaultMode::kLost};
  uint64_t max_runs = 0;  // 0: every run.
  int shard_index = 1;
  int shard_count = 1;
};

// The baseline's calls, in order: sets *call and returns true, or false at the end.
using CallSource = std::function<bool(TracedCall* call)>;

// One run of a planned call: its errno (0 for a kill, corrupt or lost run) and mode.
struct UnitRun {
  int error_number = 0;
  FaultMode mode = FaultMode::kTransient;
};

class RunPlan {
 public:
  // Plans from `baseline` (its counts and sites; not its trace). `open_calls` starts a pass
  // over the baseline's calls; it is called once, and only when planning by call number.
  // A baseline without sites is planned by call number whatever the depth.
  RunPlan(const Baseline& baseline, PlanOptions options, std::function<CallSource()> open_calls);

  Depth depth() const { return depth_; }  // As planned.
  // The plan's size under each depth (first and edges are 0 without sites).
  const std::array<uint64_t, kDepthCount>& sizes() const { return sizes_; }
  uint64_t planned() const { return sizes_[static_cast<int>(depth_)]; }
  uint64_t sampled() const { return sampled_; }
  uint64_t shard_runs() const { return shard_end_ - shard_begin_; }

  // The next run of this shard, in plan order; false at the end. Not thread-safe.
  bool Next(RunSpec* spec);

 private:
  // The next run of the whole plan, with whether it is one of its operation's first call's.
  bool NextPlanned(RunSpec* spec, bool* first_of_op);
  bool NextUnit();  // Moves to the next planned call; false at the end.
  bool Sampled(bool first_of_op);

  const Baseline& baseline_;
  PlanOptions options_;
  Depth depth_;
  std::function<CallSource()> open_calls_;
  std::array<uint64_t, kDepthCount> sizes_ = {};
  uint64_t sampled_ = 0;
  uint64_t shard_begin_ = 0;
  uint64_t shard_end_ = 0;

  // Sampling: runs of each operation's first call, and the rest spread evenly.
  bool sampling_ = false;
  bool keep_all_first_ = false;
  uint64_t rest_total_ = 0;
  uint64_t rest_wanted_ = 0;
  uint64_t rest_seen_ = 0;
  uint64_t sampled_seen_ = 0;

  // The stream's position.
  CallSource calls_;
  bool started_ = false;
  TracedCall unit_call_;
  uint64_t unit_n_ = 0;
  uint64_t unit_after_ = 0;
  uint64_t unit_nth_ = 0;
  bool unit_first_of_op_ = false;
  std::vector<UnitRun> unit_runs_;
  size_t run_at_ = 0;
  size_t site_at_ = 0;
  std::vector<uint64_t> site_nths_;
  size_t nth_at_ = 0;
  uint64_t index_ = 0;
  std::map<std::string, uint64_t> seen_by_op_;
  std::map<std::string, uint64_t> seen_by_site_;
  std::map<std::string, bool> first_done_;  // Operations whose first planned call is past.
};

// The errnos run for a call of `op` (a rule operation name): those asked for (or the
// defaults) that it can return; none for an unknown operation or one not in `ops`.
std::vector<int> ErrnosFor(const std::string& op, const std::vector<int>& asked,
                           const std::vector<uint8_t>& ops);

// The runs of one planned call of `op`: each of ErrnosFor in each errno mode of `modes`,
// then one run of each other mode of `modes` whose action `op` takes (FaultActionAllows):
// kill for any operation in `ops` whatever its errnos, corrupt for read and write, lost for
// write; the damage modes (corrupt, lost) only for a call that `moves_bytes`
// (FaultCallMovesBytes: a damage run at any other would change nothing).
std::vector<UnitRun> RunsFor(const std::string& op, bool moves_bytes, const PlanOptions& options);

}  // namespace spillway::program_sweep

#endif  // SPILLWAY_PROGRAM_SWEEP_RUN_PLAN_H_
