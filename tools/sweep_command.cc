// `spillway sweep`: runs the reference workload with every filesystem operation failing in
// turn, checks that every fault surfaced and nothing drifted or was left behind, and writes a
// scenario file for each violation (docs/sweep.md).
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "commands.h"
#include "spillway/spill/quirks.h"
#include "spillway/sweep/sweep.h"
#include "spillway/vfs/status.h"

namespace spillway::tools {
namespace {

struct SweepArgs {
  std::string fs = "mem";
  std::vector<std::string> errnos;
  Quirks quirks;
  std::string mode = "both";
  std::string out;  // Empty: a fresh directory (OutDir).
  bool all_reproducers = false;
  bool json = false;
  bool verbose = false;
};

std::string ErrnoList(const std::vector<int>& errnos) {
  std::string out;
  for (int e : errnos) out += (out.empty() ? "" : ",") + ErrnoName(e);
  return out;
}

std::string ModeList(const std::vector<sweep::FaultMode>& modes) {
  std::string out;
  for (sweep::FaultMode m : modes) {
    out += (out.empty() ? "" : ",") + std::string(sweep::FaultModeName(m));
  }
  return out;
}

std::string DescribeFirstRun(const sweep::SweepViolation& v) {
  if (!v.error_number) return "in the run without a fault";
  return fmt::format("with {} at operation {} ({})", ErrnoName(*v.error_number), v.fault_op,
                     sweep::FaultModeName(v.mode));
}

std::string DescribeReplay(const sweep::SweepViolation& v) {
  if (!v.has_expect) {
    return fmt::format("exit {}; no expect can check this, see the comment after line {}",
                       v.replay_exit, v.scenario_line);
  }
  if (v.replay_exit == 1) return fmt::format("fails as expected: {}", v.replay_message);
  return fmt::format("exit {}, not 1: the scenario does not reproduce the violation{}",
                     v.replay_exit, v.replay_message.empty() ? "" : ": " + v.replay_message);
}

void PrintRun(std::FILE* out, const sweep::RunReport& run) {
  const std::string which = run.error_number
                                ? fmt::format("{} {} op {}", ErrnoName(*run.error_number),
                                              sweep::FaultModeName(run.mode), run.fault_op)
                                : "no fault";
  std::fprintf(
      out,
      "run %s: %llu operations, %llu faults injected, %llu acts failed, %llu skipped, "
      "%llu cleanup records: %s\n",
      which.c_str(), static_cast<unsigned long long>(run.operations),
      static_cast<unsigned long long>(run.faults_injected),
      static_cast<unsigned long long>(run.acts_failed),
      static_cast<unsigned long long>(run.acts_skipped),
      static_cast<unsigned long long>(run.cleanup_records),
      run.violations.empty() ? "ok" : fmt::format("{} violations", run.violations.size()).c_str());
  for (const std::string& violation : run.violations) {
    std::fprintf(out, "  %s\n", violation.c_str());
  }
}

// Violation `number` (1-based) of the text summary.
void PrintViolation(size_t number, const sweep::SweepViolation& v, const std::string& fs_name) {
  std::printf("violation %zu: %s\n", number, std::string(sweep::CheckName(v.check)).c_str());
  std::printf("  %s\n", v.message.c_str());
  std::printf("  first seen %s; seen in %llu run%s\n", DescribeFirstRun(v).c_str(),
              static_cast<unsigned long long>(v.runs), v.runs == 1 ? "" : "s");
  if (v.scenario_line > 0) {
    std::printf("  the act: line %d of the scenario, `%s`\n", v.scenario_line, v.act.c_str());
  } else if (!v.act.empty()) {
    std::printf("  the act: `%s`\n", v.act.c_str());
  }
  if (v.same_scenario_as > 0) {
    std::printf("  reproduce: the scenario of violation %zu, %s\n", v.same_scenario_as,
                v.scenario_path.c_str());
    return;
  }
  std::printf("  reproduce: spillway run --fs %s %s\n", fs_name.c_str(), v.scenario_path.c_str());
  std::printf("  replay: %s\n", DescribeReplay(v).c_str());
}

void PrintText(const sweep::SweepOptions& options, const sweep::SweepResult& result,
               const std::string& fs_name) {
  std::printf("spillway sweep: fs %s, quirks %s, errnos %s, modes %s\n", fs_name.c_str(),
              options.quirks.empty() ? "none" : options.quirks.ToString().c_str(),
              ErrnoList(options.errnos).c_str(), ModeList(options.modes).c_str());
  std::printf("operations: %llu (the run without a fault)\n",
              static_cast<unsigned long long>(result.operations));
  // Each errno is swept over the operations whose call can fail with it.
  std::string per_errno;
  for (int e : options.errnos) {
    per_errno += fmt::format("{}{} {}", per_errno.empty() ? "" : " + ", ErrnoName(e),
                             result.operations_by_errno.at(e));
  }
  std::printf("runs: %llu (1 without a fault + (%s) operations x %zu mode%s)\n",
              static_cast<unsigned long long>(result.runs), per_errno.c_str(), options.modes.size(),
              options.modes.size() == 1 ? "" : "s");
  if (result.violations.empty()) {
    std::printf("violations: 0\n");
    return;
  }
  std::printf("violations: %zu distinct, in %llu of %llu runs\n", result.violations.size(),
              static_cast<unsigned long long>(result.runs_with_violations),
              static_cast<unsigned long long>(result.runs));
  const size_t sharing = result.violations.size() - result.scenario_files;
  std::printf("scenario files: %zu in %s%s\n", result.scenario_files, options.out_dir.c_str(),
              sharing == 0 ? ""
                           : fmt::format(", one per check and commands run; {} violation{} "
                                         "share{} an earlier one's (--all-reproducers: one each)",
                                         sharing, sharing == 1 ? "" : "s", sharing == 1 ? "s" : "")
                                 .c_str());
  for (size_t i = 0; i < result.violations.size(); ++i) {
    PrintViolation(i + 1, result.violations[i], fs_name);
  }
}

void PrintJson(const sweep::SweepOptions& options, const sweep::SweepResult& result,
               const std::string& fs_name) {
  nlohmann::ordered_json json;
  json["fs"] = fs_name;
  json["quirks"] = QuirkNames(options.quirks);
  json["errnos"] = nlohmann::json::array();
  for (int e : options.errnos) json["errnos"].push_back(ErrnoName(e));
  json["modes"] = nlohmann::json::array();
  for (sweep::FaultMode m : options.modes) {
    json["modes"].push_back(std::string(sweep::FaultModeName(m)));
  }
  json["operations"] = result.operations;
  for (const auto& [e, operations] : result.operations_by_errno) {
    json["operations_by_errno"][ErrnoName(e)] = operations;
  }
  json["runs"] = result.runs;
  json["runs_with_violations"] = result.runs_with_violations;
  json["scenario_files"] = result.scenario_files;
  json["violations"] = nlohmann::json::array();
  for (const sweep::SweepViolation& v : result.violations) {
    nlohmann::ordered_json item;
    item["check"] = std::string(sweep::CheckName(v.check));
    item["message"] = v.message;
    item["act"] = v.act;
    item["errno"] = v.error_number ? nlohmann::json(ErrnoName(*v.error_number)) : nullptr;
    item["mode"] = v.error_number ? nlohmann::json(sweep::FaultModeName(v.mode)) : nullptr;
    item["operation"] = v.fault_op;
    item["runs"] = v.runs;
    item["scenario"] = v.scenario_path;
    item["scenario_line"] = v.scenario_line;
    item["same_scenario_as"] =
        v.same_scenario_as > 0 ? nlohmann::json(v.same_scenario_as) : nlohmann::json(nullptr);
    item["has_expect"] = v.has_expect;
    item["replay_exit"] = v.replay_exit;
    item["replay_message"] = v.replay_message;
    json["violations"].push_back(std::move(item));
  }
  std::printf("%s\n", json.dump(2).c_str());
}

// The options the arguments ask for, but for out_dir. Throws UsageError.
sweep::SweepOptions MakeOptions(const SweepArgs& args) {
  sweep::SweepOptions options;
  options.fs = FsKindFromName(args.fs);
  if (!args.errnos.empty()) options.errnos = ErrnosFromNames(args.errnos);
  options.quirks = args.quirks;
  if (args.mode == "transient") {
    options.modes = {sweep::FaultMode::kTransient};
  } else if (args.mode == "persistent") {
    options.modes = {sweep::FaultMode::kPersistent};
  }
  options.all_reproducers = args.all_reproducers;
  return options;
}

int RunSweepCommand(const SweepArgs& args) {
  sweep::SweepOptions options = MakeOptions(args);
  const OutDir out("sweep", args.out);  // Made only once the rest is valid.
  options.out_dir = out.path();
  // Progress goes to stdout, or to stderr when stdout carries JSON.
  std::FILE* progress = args.json ? stderr : stdout;
  if (args.verbose) {
    options.on_run = [progress](const sweep::RunReport& run) { PrintRun(progress, run); };
  }
  const StatusOr<sweep::SweepResult> result = sweep::RunSweep(options);
  // A malformed workload, or a directory or file that cannot be written.
  if (!result.ok()) throw UsageError(result.status().ToString());
  if (args.json) {
    PrintJson(options, *result, args.fs);
  } else {
    PrintText(options, *result, args.fs);
  }
  return result->violations.empty() ? 0 : 1;
}

}  // namespace

std::optional<int> DispatchCommandSweep(int argc, char** argv) {
  if (argc < 2 || std::string_view(argv[1]) != "sweep") return std::nullopt;
  if (argc > 2 && std::string_view(argv[2]) == "merge") {
    return RunCmdSweepMergeCommand(argc - 2, argv + 2);
  }
  for (int i = 2; i < argc; ++i) {
    if (std::string_view(argv[i]) == "--") return RunCmdSweepCommand(argc - 1, argv + 1);
  }
  return std::nullopt;
}

void AddSweepCommand(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<SweepArgs>();
  CLI::App* sub = app.add_subcommand(
      "sweep",
      "Fail every filesystem operation of a reference workload in turn and check that each "
      "fault surfaces, the accounting holds and nothing is left behind silently");
  AddFsOption(*sub, args->fs);
  sub->add_option("--errno", args->errnos,
                  "An errno to inject (repeatable or a comma list; default "
                  "ENOSPC,EIO,ENOENT,EACCES)")
      ->delimiter(',');
  AddQuirkOption(*sub, args->quirks);
  sub->add_option("--mode", args->mode,
                  "transient: operation n fails once; persistent: it and every later one fail")
      ->check(CLI::IsMember({"transient", "persistent", "both"}))
      ->capture_default_str();
  sub->add_option("--out", args->out,
                  "Where scenario files for violations are written, made if missing; not "
                  "inside a git checkout unless git ignores it (default: a fresh directory "
                  "under $TMPDIR or /tmp, removed if nothing is written)");
  sub->add_flag("--all-reproducers", args->all_reproducers,
                "Write a scenario file for every violation, also for those whose scenario "
                "runs the same commands as an earlier one's of the same check");
  sub->add_flag("--json", args->json, "Print the summary as JSON");
  sub->add_flag("--verbose", args->verbose, "Print one line per run");
  sub->callback([args, &exit_code] { exit_code = RunSweepCommand(*args); });
}

}  // namespace spillway::tools
