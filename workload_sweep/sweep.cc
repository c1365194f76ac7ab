// RunSweep: the run without a fault, then one run per errno, mode and operation, each
// distinct violation written out as a scenario file and replayed. The workload is in
// workload.cc; a run in workload_run.cc, with its model of the acts in workload_acts.cc and
// its checks in workload_accounting.cc and workload_leftovers.cc; the scenario files in
// reproducer.cc.
#include "spillway/workload_sweep/sweep.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <tuple>
#include <utility>
#include <vector>

#include "reproducer.h"
#include "spillway/vfs/fault_injecting_file_system.h"
#include "workload.h"
#include "workload_run.h"

namespace spillway::workload_sweep {
namespace {

using internal::Finding;
using internal::LoadWorkload;
using internal::Replay;
using internal::ScenarioText;
using internal::Workload;
using internal::WorkloadRun;
using internal::WorkloadRunSpec;
using internal::WriteTextFile;

std::string SpecTag(const WorkloadRunSpec& spec) {
  if (spec.mode == FaultMode::kKill) return fmt::format("kill-call{}", spec.fault_op);
  if (internal::IsDamageMode(spec.mode)) {
    return fmt::format("{}-{}-call{}", FaultModeName(spec.mode), OpKindName(spec.damaged_op),
                       spec.fault_op);
  }
  if (!spec.error_number) return "nofault";
  return fmt::format("{}-{}-op{}", ErrnoName(*spec.error_number), FaultModeName(spec.mode),
                     spec.fault_op);
}

// What makes two violations' scenario files the same: the check, and the commands the
// scenario runs (its lines without comments and `expect`s, which say which finding it is).
std::string ScenarioIdentity(Check check, const std::string& text) {
  std::string identity(CheckName(check));
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    const std::string_view line(text.data() + start, end - start);
    const size_t word = line.find_first_not_of(" \t");
    if (word != std::string_view::npos && line[word] != '#' &&
        !line.substr(word).starts_with("expect")) {
      identity.append("\n").append(line);
    }
    start = end + 1;
  }
  return identity;
}

// Collects the distinct violations of a sweep and writes their scenario files.
class ViolationLog {
 public:
  ViolationLog(const SweepOptions& options, SweepResult* result)
      : options_(options), result_(result) {}

  // Counts `finding` of `run` against the violation it is, recording (and writing the
  // scenario of) one not seen before. Errors: the errno of a scenario file not written.
  Status Add(const WorkloadRun& run, const Finding& finding, const WorkloadRunSpec& spec) {
    auto [it, inserted] = seen_.emplace(finding.key, result_->violations.size());
    if (!inserted) {
      ++result_->violations[it->second].runs;
      return OkStatus();
    }
    SweepViolation violation;
    violation.check = finding.check;
    violation.message = finding.message;
    if (finding.line >= 0) violation.act = run.lines()[finding.line].command.ToString();
    violation.error_number = spec.error_number;
    violation.mode = spec.mode;
    violation.fault_op = spec.fault_op;
    violation.damaged_op = spec.damaged_op;
    violation.runs = 1;
    const std::string text = ScenarioText(run, finding, spec, options_, &violation.scenario_line);
    auto [file, fresh] = files_.emplace(ScenarioIdentity(finding.check, text), it->second);
    if (fresh || options_.all_reproducers) {
      SPILLWAY_RETURN_IF_ERROR(Write(text, finding, spec, violation));
    } else {
      const SweepViolation& owner = result_->violations[file->second];
      violation.same_scenario_as = file->second + 1;
      violation.scenario_path = owner.scenario_path;
      violation.scenario_line = 0;
      violation.has_expect = owner.has_expect;
      violation.replay_exit = owner.replay_exit;
      violation.replay_message = owner.replay_message;
    }
    result_->violations.push_back(std::move(violation));
    return OkStatus();
  }

 private:
  Status Write(const std::string& text, const Finding& finding, const WorkloadRunSpec& spec,
               SweepViolation& violation) {
    const std::string name =
        fmt::format("sweep-{:02}-{}-{}.scenario", result_->violations.size() + 1,
                    CheckName(finding.check), SpecTag(spec));
    violation.scenario_path = (std::filesystem::path(options_.out_dir) / name).string();
    violation.has_expect = !finding.expects.empty();
    SPILLWAY_RETURN_IF_ERROR(WriteTextFile(violation.scenario_path, text));
    ++result_->scenario_files;
    std::tie(violation.replay_exit, violation.replay_message) =
        Replay(text, violation.scenario_path, options_.fs);
    return OkStatus();
  }

  const SweepOptions& options_;
  SweepResult* result_;
  std::map<std::string, size_t> seen_;   // Violation key -> index in violations.
  std::map<std::string, size_t> files_;  // ScenarioIdentity -> index of its file's owner.
};

}  // namespace

const std::vector<int>& DefaultErrnos() {
  static const std::vector<int> kErrnos = {ENOSPC, EIO, ENOENT, EACCES, EEXIST};
  return kErrnos;
}

namespace {

// Bad input to RunSweep: kInvalidArgument naming what is wrong, or OK.
Status ValidateSweepOptions(const SweepOptions& options) {
  if (options.errnos.empty()) return Status::InvalidArgument("no errno to inject");
  for (int error_number : options.errnos) {
    if (error_number <= 0) {
      return Status::InvalidArgument(fmt::format("errno {} cannot be injected", error_number));
    }
    if (!OpKindCanReturn(std::nullopt, error_number)) {
      return Status::InvalidArgument(
          fmt::format("no filesystem call can fail with {} on Linux", ErrnoName(error_number)));
    }
  }
  if (options.modes.empty()) return Status::InvalidArgument("no fault mode");
  return OkStatus();
}

}  // namespace

StatusOr<SweepResult> RunSweep(const SweepOptions& options) {
  SPILLWAY_RETURN_IF_ERROR(ValidateSweepOptions(options));
  StatusOr<Workload> workload =
      LoadWorkload(options.workload.empty() ? ReferenceWorkload() : options.workload);
  if (!workload.ok()) return workload.status();
  std::error_code ec;
  std::filesystem::create_directories(options.out_dir, ec);
  if (ec) return Status::FromErrno(ec.value(), "mkdir", options.out_dir);

  SweepResult result;
  ViolationLog log(options, &result);
  auto sweep_one = [&](const WorkloadRunSpec& spec) -> Status {
    WorkloadRun run(*workload, options, spec);
    SPILLWAY_RETURN_IF_ERROR(run.Execute());
    ++result.runs;
    if (spec.mode == FaultMode::kKill) ++result.kill_runs;
    if (internal::IsDamageMode(spec.mode)) ++result.damage_runs;
    if (!run.findings().empty()) ++result.runs_with_violations;
    for (const Finding& finding : run.findings()) {
      SPILLWAY_RETURN_IF_ERROR(log.Add(run, finding, spec));
    }
    if (!spec.error_number && spec.mode == FaultMode::kTransient) {
      result.operations = run.report().operations;
      result.write_calls = run.Calls(OpKind::kWrite);
      result.read_calls = run.Calls(OpKind::kRead);
      for (int e : options.errnos) result.operations_by_errno[e] = run.OperationsThatCanReturn(e);
    }
    if (options.on_run) options.on_run(run.report());
    return OkStatus();
  };

  // The run without a fault counts the operations K.
  SPILLWAY_RETURN_IF_ERROR(sweep_one(WorkloadRunSpec{}));
  for (int error_number : options.errnos) {
    for (FaultMode mode : options.modes) {
      if (mode == FaultMode::kKill || internal::IsDamageMode(mode)) continue;  // Below.
      for (uint64_t op = 1; op <= result.operations_by_errno[error_number]; ++op) {
        SPILLWAY_RETURN_IF_ERROR(sweep_one(WorkloadRunSpec{error_number, mode, op}));
      }
    }
  }
  // The process dies at each filesystem call the run without a fault made, in turn.
  if (std::ranges::count(options.modes, FaultMode::kKill) != 0) {
    for (uint64_t call = 1; call <= result.operations; ++call) {
      SPILLWAY_RETURN_IF_ERROR(sweep_one(WorkloadRunSpec{std::nullopt, FaultMode::kKill, call}));
    }
  }
  // Each write call (and, corrupt, each read call) in turn lies.
  for (FaultMode mode : options.modes) {
    if (!internal::IsDamageMode(mode)) continue;
    for (const OpKind op : {OpKind::kWrite, OpKind::kRead}) {
      if (op == OpKind::kRead && mode == FaultMode::kLost) continue;
      const uint64_t calls = op == OpKind::kWrite ? result.write_calls : result.read_calls;
      for (uint64_t call = 1; call <= calls; ++call) {
        SPILLWAY_RETURN_IF_ERROR(sweep_one(WorkloadRunSpec{std::nullopt, mode, call, op}));
      }
    }
  }
  return result;
}

}  // namespace spillway::workload_sweep
