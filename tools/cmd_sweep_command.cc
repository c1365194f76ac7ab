// `spillway sweep [OPTIONS] -- CMD`: fails each in-scope file call of an unmodified program in
// turn (cmdsweep/, docs/sweep.md). `spillway sweep` without `--` is sweep_command.cc.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <climits>
#include <cstdio>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "commands.h"
#include "spillway/cmdsweep/cmd_sweep.h"
#include "spillway/cmdsweep/report.h"
#include "spillway/vfs/fault_rules.h"
#include "spillway/vfs/status.h"

namespace spillway::tools {
namespace {

// Sweeps with fewer runs print no progress.
constexpr uint64_t kProgressMinRuns = 20;

struct CmdSweepArgs {
  std::string under;
  std::vector<std::string> errnos;
  std::vector<std::string> ops;
  std::string mode = "both";
  std::string shard;
  std::string compare = "stdout";
  std::string junit;
  bool json = false;
  cmdsweep::CmdSweepOptions options;
};

// Fills the options from the words. Throws UsageError.
void MakeOptions(CmdSweepArgs& args) {
  cmdsweep::CmdSweepOptions& options = args.options;
  options.under = args.under;
  options.errnos = ErrnosFromNames(args.errnos);
  for (const std::string& name : args.ops) {
    uint8_t code = 0;
    if (!FaultOpCodeFromName(name, &code))
      throw UsageError("--op: unknown operation '" + name + "'");
    if (code == kFaultAnyOp) {
      options.ops.clear();
      break;
    }
    options.ops.push_back(code);
  }
  if (args.mode != "both") {
    options.modes = {args.mode == "transient" ? cmdsweep::FaultMode::kTransient
                                              : cmdsweep::FaultMode::kPersistent};
  }
  if (!args.shard.empty()) {
    int k = 0;
    int n = 0;
    char extra = 0;
    if (std::sscanf(args.shard.c_str(), "%d/%d%c", &k, &n, &extra) != 2 || n < 1 || k < 1 ||
        k > n) {
      throw UsageError("--shard " + args.shard + ": K/N with 1 <= K <= N");
    }
    options.shard_index = k;
    options.shard_count = n;
  }
  options.compare_stdout = args.compare == "stdout";
  char exe[PATH_MAX];
  const ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
  if (len <= 0) throw UsageError("cannot find the spillway executable");
  options.spillway_binary.assign(exe, static_cast<size_t>(len));
}

// A progress line on stderr: redrawn on a terminal, every tenth otherwise.
void ShowProgress(uint64_t done, uint64_t total, uint64_t violations) {
  if (total < kProgressMinRuns) return;
  static int last_tenth = -1;
  const int percent = static_cast<int>(done * 100 / total);
  if (isatty(STDERR_FILENO)) {
    std::fprintf(stderr, "\rspillway sweep: %3d%% (%llu/%llu runs, %llu violations)", percent,
                 static_cast<unsigned long long>(done), static_cast<unsigned long long>(total),
                 static_cast<unsigned long long>(violations));
    if (done == total) std::fprintf(stderr, "\n");
  } else if (percent / 10 > last_tenth) {
    last_tenth = percent / 10;
    std::fprintf(stderr, "spillway sweep: %d%% (%llu/%llu runs, %llu violations)\n", percent,
                 static_cast<unsigned long long>(done), static_cast<unsigned long long>(total),
                 static_cast<unsigned long long>(violations));
  }
  std::fflush(stderr);
}

int Run(CmdSweepArgs& args) {
  MakeOptions(args);
  args.options.on_progress = ShowProgress;
  const StatusOr<cmdsweep::CmdSweepResult> result = cmdsweep::RunCmdSweep(args.options);
  if (!result.ok()) throw UsageError(result.status().message());
  if (!args.junit.empty()) {
    std::ofstream junit(args.junit);
    junit << cmdsweep::ToJunit(*result);
    if (!junit.flush()) throw UsageError("--junit " + args.junit + ": cannot write it");
  }
  if (args.json) {
    std::printf("%s\n", cmdsweep::ToJson(args.options, *result).c_str());
  } else {
    cmdsweep::PrintText(stdout, args.options, *result);
  }
  return result->violations == 0 ? 0 : 1;
}

void AddOptions(CLI::App& app, CmdSweepArgs& args) {
  app.add_option("--under", args.under, "The scope, or where each run's {dir} is made")
      ->required()
      ->allow_extra_args(false);
  app.add_option("--errno", args.errnos,
                 "Errnos to inject (default ENOSPC,EIO; +ENOENT for create/mkdir)")
      ->delimiter(',')
      ->allow_extra_args(false);
  app.add_option("--op", args.ops, "Sweep only these operations' calls")
      ->delimiter(',')
      ->allow_extra_args(false);
  app.add_option("--mode", args.mode, "transient, persistent or both")
      ->check(CLI::IsMember({"transient", "persistent", "both"}));
  app.add_option("--jobs", args.options.jobs, "Runs in parallel (with {dir} only)")
      ->check(CLI::PositiveNumber);
  app.add_option("--timeout", args.options.timeout, "A run past SECONDS is a hang")
      ->check(CLI::PositiveNumber);
  app.add_option("--max-runs", args.options.max_runs, "Sample N runs")->check(CLI::PositiveNumber);
  app.add_option("--shard", args.shard, "Run the K-th of N slices (K/N)");
  app.add_option("--compare", args.compare, "stdout or none")
      ->check(CLI::IsMember({"stdout", "none"}));
  app.add_option("--junit", args.junit, "Write a JUnit XML file");
  app.add_flag("--json", args.json, "Print the result as one JSON object");
  app.add_option("--out", args.options.out_dir, "Keep each violation's files here");
  app.add_option("--share-with", args.options.share_with,
                 "Passed to spillway inject: for a program that switches to USER");
  app.add_option("command", args.options.command, "-- CMD [ARG]...")->required();
}

}  // namespace

int RunCmdSweepCommand(int argc, char** argv) {
  CLI::App app{"spillway sweep -- CMD: fail each in-scope file call of a program in turn",
               "spillway sweep"};
  CmdSweepArgs args;
  AddOptions(app, args);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "spillway sweep: %s\n", e.what());
    return 2;
  }
  return Run(args);
}

}  // namespace spillway::tools
