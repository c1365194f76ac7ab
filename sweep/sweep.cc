// RunSweep: the run without a fault, then one run per errno, mode and operation, each
// distinct violation written out as a scenario file and replayed. The workload is in
// workload.cc, a run and its checks in workload_run.cc, the scenario files in
// reproducer.cc.
#include "spillway/sweep/sweep.h"

#include <fmt/format.h>

#include <cerrno>
#include <filesystem>
#include <map>
#include <string>
#include <system_error>
#include <tuple>
#include <utility>
#include <vector>

#include "reproducer.h"
#include "workload.h"
#include "workload_run.h"

namespace spillway::sweep {
namespace {

using internal::Finding;
using internal::LoadWorkload;
using internal::Replay;
using internal::RunSpec;
using internal::ScenarioText;
using internal::Workload;
using internal::WorkloadRun;
using internal::WriteTextFile;

std::string SpecTag(const RunSpec& spec) {
  if (!spec.error_number) return "nofault";
  return fmt::format("{}-{}-op{}", ErrnoName(*spec.error_number), FaultModeName(spec.mode),
                     spec.fault_op);
}

}  // namespace

std::string_view FaultModeName(FaultMode mode) {
  return mode == FaultMode::kTransient ? "transient" : "persistent";
}

const std::vector<int>& DefaultErrnos() {
  static const std::vector<int> errnos = {ENOSPC, EIO, ENOENT, EACCES};
  return errnos;
}

std::string_view CheckName(Check check) {
  switch (check) {
    case Check::kFalseSuccess:
      return "false_success";
    case Check::kUnreportedFault:
      return "unreported_fault";
    case Check::kUnexplainedError:
      return "unexplained_error";
    case Check::kLimitNotEnforced:
      return "limit_not_enforced";
    case Check::kAccounting:
      return "accounting";
    case Check::kLazyPlan:
      return "lazy_plan";
    case Check::kLeftover:
      return "leftover";
    case Check::kFaultMissed:
      return "fault_missed";
    case Check::kRunner:
      return "runner";
  }
  return "unknown";
}

StatusOr<SweepResult> RunSweep(const SweepOptions& options) {
  if (options.errnos.empty()) return Status::InvalidArgument("no errno to inject");
  for (int error_number : options.errnos) {
    if (error_number <= 0) {
      return Status::InvalidArgument(fmt::format("errno {} cannot be injected", error_number));
    }
  }
  if (options.modes.empty()) return Status::InvalidArgument("no fault mode");
  StatusOr<Workload> workload =
      LoadWorkload(options.workload.empty() ? ReferenceWorkload() : options.workload);
  if (!workload.ok()) return workload.status();
  std::error_code ec;
  std::filesystem::create_directories(options.out_dir, ec);
  if (ec) return Status::FromErrno(ec.value(), "mkdir", options.out_dir);

  SweepResult result;
  std::map<std::string, size_t> seen;  // Violation key -> index in result.violations.
  auto sweep_one = [&](const RunSpec& spec) -> Status {
    WorkloadRun run(*workload, options, spec);
    SPILLWAY_RETURN_IF_ERROR(run.Execute());
    ++result.runs;
    if (!run.findings().empty()) ++result.runs_with_violations;
    for (const Finding& finding : run.findings()) {
      auto [it, inserted] = seen.emplace(finding.key, result.violations.size());
      if (!inserted) {
        ++result.violations[it->second].runs;
        continue;
      }
      Violation violation;
      violation.check = finding.check;
      violation.message = finding.message;
      if (finding.line >= 0) violation.act = run.lines()[finding.line].command.ToString();
      violation.error_number = spec.error_number;
      violation.mode = spec.mode;
      violation.fault_op = spec.fault_op;
      violation.runs = 1;
      violation.has_expect = !finding.expects.empty();
      const std::string name =
          fmt::format("sweep-{:02}-{}-{}.scenario", result.violations.size() + 1,
                      CheckName(finding.check), SpecTag(spec));
      violation.scenario_path = (std::filesystem::path(options.out_dir) / name).string();
      const std::string text = ScenarioText(run, finding, spec, options, &violation.scenario_line);
      SPILLWAY_RETURN_IF_ERROR(WriteTextFile(violation.scenario_path, text));
      std::tie(violation.replay_exit, violation.replay_message) =
          Replay(text, violation.scenario_path, options.fs);
      result.violations.push_back(std::move(violation));
    }
    if (!spec.error_number) result.operations = run.report().operations;
    if (options.on_run) options.on_run(run.report());
    return OkStatus();
  };

  // The run without a fault counts the operations K.
  SPILLWAY_RETURN_IF_ERROR(sweep_one(RunSpec{}));
  for (int error_number : options.errnos) {
    for (FaultMode mode : options.modes) {
      for (uint64_t op = 1; op <= result.operations; ++op) {
        SPILLWAY_RETURN_IF_ERROR(sweep_one(RunSpec{error_number, mode, op}));
      }
    }
  }
  return result;
}

}  // namespace spillway::sweep
