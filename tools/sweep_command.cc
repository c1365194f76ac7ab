// `spillway sweep-workload`: runs the reference workload with every filesystem operation
// failing in turn, checks that every fault surfaced and nothing drifted or was left behind,
// and writes a scenario file for each violation (sweep/, docs/sweep.md).
#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "commands.h"
#include "spillway/vfs/status.h"
#include "spillway/workload_sweep/report.h"
#include "spillway/workload_sweep/sweep.h"

namespace spillway::tools {
namespace {

struct SweepArgs {
  std::string fs;
  std::vector<std::string> errnos;
  std::string out;  // Empty: a fresh directory (OutDir).
  bool json = false;
  bool verbose = false;
  workload_sweep::SweepOptions options;
};

int RunSweepWorkload(SweepArgs& args) {
  workload_sweep::SweepOptions& options = args.options;
  options.fs = FsKindFromName(args.fs);
  if (!args.errnos.empty()) options.errnos = ErrnosFromNames(args.errnos);
  const OutDir out("sweep-workload", args.out);  // Made only once the rest is valid.
  options.out_dir = out.path();
  // Progress goes to stdout, or to stderr when stdout carries JSON.
  std::FILE* progress = args.json ? stderr : stdout;
  if (args.verbose) {
    options.on_run = [progress](const workload_sweep::RunReport& run) {
      std::fputs(workload_sweep::RunLines(run).c_str(), progress);
    };
  }
  const StatusOr<workload_sweep::SweepResult> result = workload_sweep::RunSweep(options);
  // A malformed workload, or a directory or file that cannot be written.
  if (!result.ok()) throw UsageError(result.status().ToString());
  const std::string report = args.json ? workload_sweep::ReportJson(options, *result) + "\n"
                                       : workload_sweep::ReportText(options, *result);
  std::fputs(report.c_str(), stdout);
  return result->violations.empty() ? 0 : 1;
}

}  // namespace

void AddSweepWorkloadCommand(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<SweepArgs>();
  args->fs = vocab::FsKindName(args->options.fs);
  CLI::App* sub = app.add_subcommand(
      "sweep-workload",
      "Fail every filesystem operation of the reference workload in turn and check that each "
      "fault surfaces, the accounting holds and nothing is left behind silently");
  AddFsOption(*sub, args->fs);
  sub->add_option("--errno", args->errnos, "An errno to inject (repeatable or a comma list)")
      ->delimiter(',')
      ->default_str(ErrnoList(args->options.errnos));
  AddQuirkOption(*sub, args->options.quirks);
  AddModeOption(*sub, args->options.modes, workload_sweep::FaultModeName,
                "transient: operation n fails once; persistent: it and every later one fail; "
                "kill: the process dies at call n, and the next one reaps; corrupt: write or "
                "read call n flips a bit; lost: write call n stores nothing; both: transient "
                "and persistent; all: the five",
                /*with_kill=*/true);
  sub->add_option("--out", args->out,
                  "Where scenario files for violations are written, made if missing; not "
                  "inside a git checkout unless git ignores it (default: a fresh directory "
                  "under $TMPDIR or /tmp, removed if nothing is written)");
  sub->add_flag("--all-reproducers", args->options.all_reproducers,
                "Write a scenario file for every violation, also for those whose scenario "
                "runs the same commands as an earlier one's of the same check");
  sub->add_flag("--json", args->json, "Print the summary as JSON");
  sub->add_flag("--verbose", args->verbose, "Print one line per run");
  sub->footer("The sweep of any program is spillway sweep [OPTIONS] -- CMD (docs/sweep.md).");
  sub->callback([args, &exit_code] { exit_code = RunSweepWorkload(*args); });
}

}  // namespace spillway::tools
