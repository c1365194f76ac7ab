// spillway: replay scenario files, sweep faults, simulate, and measure.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "commands.h"

namespace {

// "unknown command 'WORD' (commands: run, ...)" when the first word left over after parsing
// `app` names no subcommand; empty otherwise.
std::string UnknownCommandError(CLI::App& app) {
  if (!app.get_subcommands().empty()) return {};
  const std::vector<std::string> extra = app.remaining();
  if (extra.empty() || extra.front().starts_with("-")) return {};
  std::vector<std::string> names;
  for (const CLI::App* sub : app.get_subcommands({})) names.push_back(sub->get_name());
  return fmt::format("unknown command '{}' (commands: {})", extra.front(), fmt::join(names, ", "));
}

// A command's bad input: one line naming the command, exit 2.
int UsageExit(const std::string& command, const spillway::tools::UsageError& e) {
  std::fprintf(stderr, "spillway%s%s: %s\n", command.empty() ? "" : " ", command.c_str(), e.what());
  return 2;
}

int Main(int argc, char** argv) {
  CLI::App app{
      "spillway: a reference spill-file manager and the filesystem simulation that tests it"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "spillway " SPILLWAY_VERSION);
  try {
    if (const auto code = spillway::tools::DispatchCommandSweep(argc, argv)) return *code;
  } catch (const spillway::tools::UsageError& e) {
    return UsageExit("sweep", e);
  }
  int exit_code = 0;
  spillway::tools::AddRunCommand(app, exit_code);
  spillway::tools::AddSweepCommand(app, exit_code);
  spillway::tools::AddSimulateCommand(app, exit_code);
  spillway::tools::AddBenchCommand(app, exit_code);
  spillway::tools::AddInjectCommand(app, exit_code);
  spillway::tools::AddReapCommand(app, exit_code);
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {  // --help, --help-all, --version.
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // One line naming the problem; usage errors exit 2.
    const std::string unknown = UnknownCommandError(app);
    std::fprintf(stderr, "spillway: %s\n", unknown.empty() ? e.what() : unknown.c_str());
    return 2;
  } catch (const spillway::tools::UsageError& e) {
    // Thrown by the callback of the one subcommand that ran.
    const std::vector<CLI::App*> ran = app.get_subcommands();
    return UsageExit(ran.empty() ? "" : ran.front()->get_name(), e);
  }
  return exit_code;
}

}  // namespace

int main(int argc, char** argv) {
  // Nothing may escape as an abort: an exception from a command (out of memory, a bug) is
  // one line and exit 1.
  try {
    return Main(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "spillway: %s\n", e.what());
  } catch (...) {
    std::fprintf(stderr, "spillway: unknown exception\n");
  }
  return 1;
}
