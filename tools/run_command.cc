// `spillway run`: replays scenario files (docs/scenarios.md), each on a fresh filesystem.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "commands.h"
#include "spillway/scenario/scenario.h"
#include "spillway/spill/quirks.h"

namespace spillway::tools {
namespace {

struct RunArgs {
  std::string fs;
  std::string root;
  bool verbose = false;
  std::vector<std::string> files;
  scenario::RunnerOptions options;  // The defaults the help shows.
};

int Run(RunArgs& args) {
  scenario::RunnerOptions& options = args.options;
  options.fs = FsKindFromName(args.fs);
  if (!args.root.empty()) {
    if (options.fs != scenario::FsKind::kPosix) throw UsageError("--root needs --fs posix");
    // Each file must start from a fresh filesystem, and --root is one directory.
    if (args.files.size() != 1) throw UsageError("--root takes exactly one FILE");
    options.posix_root = args.root;
  }

  // Every file is read before any runs, so a missing one runs nothing.
  std::vector<std::string> texts(args.files.size());
  for (size_t i = 0; i < args.files.size(); ++i) {
    StatusOr<std::string> text = scenario::ReadScenarioFile(args.files[i]);
    if (!text.ok()) {
      throw UsageError(fmt::format("cannot read {}: {} ({})", args.files[i],
                                   text.status().message(), scenario::OutcomeName(text.status())));
    }
    texts[i] = std::move(*text);
  }
  int exit_code = 0;
  for (size_t i = 0; i < args.files.size(); ++i) {
    exit_code = std::max(exit_code, scenario::RunScenarioText(texts[i], args.files[i], options,
                                                              args.verbose, stdout, stderr));
  }
  std::fflush(stdout);
  return exit_code;
}

// The lines of the scenario language, one usage line per verb from its table, for --help.
std::string ScenarioLines() {
  std::string text = "Scenario lines (docs/scenarios.md):";
  scenario::ForEachVerb([&text](const auto& v) { text.append("\n  ").append(v.kUsage); });
  return text;
}

}  // namespace

void AddRunCommand(CLI::App& app, int& exit_code) {
  CLI::App* run = app.add_subcommand(
      "run",
      "Replay scenario files, each on a fresh filesystem. Exits 0 when every expect held, "
      "1 when one did not, 2 when a file is malformed (the highest over all files).");
  auto args = std::make_shared<RunArgs>();
  args->fs = vocab::FsKindName(args->options.fs);
  AddFsOption(*run, args->fs);
  run->add_option("--root", args->root,
                  "With --fs posix: run under this existing directory instead of a fresh "
                  "private one, and leave what the scenario made there (one FILE only)")
      ->check(CLI::ExistingDirectory);
  run->add_flag("--verbose", args->verbose, "Print each command with its outcome");
  AddQuirkOption(*run, args->options.quirks);
  run->add_option("--seed", args->options.seed,
                  "Seeds the in-memory filesystem's names and the managers' choices")
      ->capture_default_str();
  run->add_option("FILE", args->files, "Scenario files to run")->required();
  run->footer(ScenarioLines());
  run->callback([args, &exit_code] { exit_code = Run(*args); });
}

}  // namespace spillway::tools
