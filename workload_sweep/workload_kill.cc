// The kill runs of a WorkloadRun (FaultMode::kKill): the process dies at one filesystem
// call, inside whichever act makes it, and the next process over the same local dirs
// reaps what it left, spills, and drops everything (docs/sweep.md).
#include <fmt/format.h>

#include <string>
#include <variant>

#include "spillway/scenario/scenario.h"
#include "spillway/spill/disk_manager.h"
#include "spillway/vfs/file_system.h"
#include "spillway/vfs/glob.h"
#include "workload_run.h"

namespace spillway::workload_sweep::internal {

void WorkloadRun::FollowKill() {
  killed_ = true;
  // As after `crash`: every name is forgotten, nothing is removed, and the spill
  // directories it held, half-made ones included, are orphans for the next process's reap.
  Follow(scenario::Crash{}, ActRun{});
  FileSystem& base = runner().base_fs();
  for (std::string& dir :
       ExpandGlob(base, JoinPath(base.TempDir(), std::string(kOsTmpDirPrefix) + "*"))) {
    killed_tmp_.insert(std::move(dir));
  }
}

void WorkloadRun::RunRestart() {
  if (workload_.local_dirs.empty()) return;  // Only os_tmp plans: nothing a reap looks at.
  std::string dirs;
  for (const std::string& dir : workload_.local_dirs) dirs += (dirs.empty() ? "" : ",") + dir;
  // Names no workload line can have bound: a workload's names are letters, digits, '_' and
  // '-', and the sweep's own start with "kill_restart".
  const std::string text = fmt::format(
      "plan kill_restart {0}\n"
      "spill kill_restart_1 kill_restart\n"
      "write kill_restart_1 1000\n"
      "reap {0}\n"
      "write kill_restart_1 24\n"
      "drop kill_restart_1\n"
      "drop kill_restart\n",
      dirs);
  auto parsed = scenario::Parse(text, "restart");
  const auto* restart = std::get_if<scenario::Scenario>(&parsed);
  if (restart == nullptr) return;  // Local dirs the workload parsed always parse again.
  int act = static_cast<int>(workload_.acts.size());
  for (const scenario::Command& command : restart->commands) {
    if (CanRun(command)) RunAct(command, act);
    ++act;
  }
}

void WorkloadRun::RestartAfterDropAll() {
  if (spec_.mode != FaultMode::kKill || killed_ || runner().kills() == 0) return;
  FollowKill();
  RunRestart();
  runner().DropAll();
}

void WorkloadRun::CheckKillFired() {
  if (spec_.mode != FaultMode::kKill || killed_) return;
  Add(Check::kFaultMissed, "fault_missed",
      fmt::format("the process was not killed although call {} was counted in the run "
                  "without a fault: the workload's calls do not replay identically",
                  spec_.fault_op),
      -1, {}, "the kill above never fired");
}

}  // namespace spillway::workload_sweep::internal
