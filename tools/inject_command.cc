// `spillway inject`: runs an unmodified, dynamically linked program with fault rules
// applied to its filesystem calls under the scope directories, through the LD_PRELOAD shim
// libspillway_inject.so (inject/). docs/inject.md is the user's guide; the launcher is
// spillway::inject_launcher (inject/launcher/). This file parses the options, runs the
// launcher, and prints its summary after the program ended: on stderr, or as one JSON
// object on stdout with --json. Bad input exits 2 with one line, before the program starts.
#include <fmt/format.h>

#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "commands.h"
#include "spillway/inject/launcher.h"

namespace spillway::tools {
namespace {

struct InjectArgs {
  inject::Invocation invocation;
  std::string quota;
  bool no_symbolize = false;    // Leave the trace's frames as the shim wrote them.
  bool no_java_frames = false;  // Sites in Java code keep native frames only.
  bool json = false;
};

void PrintSummary(const inject::Outcome& outcome) {
  std::string calls;
  for (const auto& [op, n] : outcome.calls) {
    calls += fmt::format("{}{} {}", calls.empty() ? "" : ", ", op, n);
  }
  std::fprintf(stderr, "spillway inject: exit %d; in-scope calls: %s\n", outcome.exit_status,
               calls.empty() ? "none" : calls.c_str());
  std::fprintf(stderr, "spillway inject: %llu fault(s) injected\n",
               static_cast<unsigned long long>(outcome.faults_injected));
  for (const inject::ProgramFault& f : outcome.faults) {
    // The errno a call failed with, or the action taken instead ("kill").
    const std::string& what = f.error.empty() ? f.action : f.error;
    std::fprintf(stderr, "  %s %s %s (pid %d)\n", f.op.c_str(), what.c_str(), f.path.c_str(),
                 f.pid);
  }
  std::fprintf(stderr, "spillway inject: %zu leftover(s)\n", outcome.leftovers.size());
  for (const inject::Leftover& l : outcome.leftovers) {
    std::fprintf(stderr, "  %s (%llu bytes)\n", l.path.c_str(),
                 static_cast<unsigned long long>(l.size));
  }
}

// Runs the program under the shim and returns its exit status. Throws UsageError for bad
// input, before it starts.
int Inject(InjectArgs& args) {
  if (!args.quota.empty()) {
    const std::optional<uint64_t> quota = inject::ParseQuota(args.quota);
    if (!quota) throw UsageError("--quota " + args.quota + ": bytes with an optional K, M or G");
    args.invocation.quota = *quota;
  }
  args.invocation.symbolize = !args.no_symbolize;
  args.invocation.java_frames = !args.no_java_frames;
  const StatusOr<inject::Outcome> outcome = inject::Run(args.invocation);
  if (!outcome.ok()) throw UsageError(outcome.status().message());
  if (args.json) {
    std::printf("%s\n", inject::SummaryJson(*outcome).dump().c_str());
  } else {
    PrintSummary(*outcome);
  }
  return outcome->exit_status;
}

}  // namespace

void AddInjectCommand(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<InjectArgs>();
  inject::Invocation& inv = args->invocation;
  CLI::App* sub = app.add_subcommand(
      "inject", "Run a program with fault rules applied to its file calls under --under dirs");
  // One value per flag, so that the program's own options after `--` stay its own.
  sub->add_option("--under", inv.under, "A scope directory (repeatable)")
      ->required()
      ->allow_extra_args(false);
  sub->add_option("--fault", inv.faults,
                  "OP ERRNO [site=ID] [nth=K] [after=N] [times=K|forever] [then=site|any] "
                  "[path=GLOB] [probability=P] (repeatable; tried in order)")
      ->allow_extra_args(false);
  sub->add_option("--quota", args->quota, "The scopes hold at most SIZE bytes (K, M, G)");
  sub->add_option("--seed", inv.seed, "Seeds the rules' probability= draws (default 0)");
  sub->add_option("--trace", inv.trace,
                  "Write one JSON line per in-scope call, and one per call site, to FILE");
  sub->add_flag("--no-symbolize", args->no_symbolize,
                "Leave the trace's frames unsymbolized (no addr2line after the run)");
  sub->add_flag("--no-java-frames", args->no_java_frames,
                "Sites of calls from Java code keep their native frames only (no JVMTI)");
  sub->add_flag("--json", args->json, "Print the summary as one JSON object on stdout");
  sub->add_option("--timeout", inv.timeout, "Stop the program after SECONDS (exit 124)")
      ->check(CLI::PositiveNumber);
  sub->add_option("--share-with", inv.share_with,
                  "Hand the run's state and trace files to USER, for a program that switches "
                  "to that user (needs root)");
  sub->add_option("command", inv.command, "-- CMD [ARG]...")->required();
  sub->callback([args, &exit_code] { exit_code = Inject(*args); });
}

}  // namespace spillway::tools
