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

// The command that was being parsed or run: the innermost subcommand the words named
// ("sweep merge"), or `app` itself when they named none.
CLI::App* InnermostCommand(CLI::App& app) {
  CLI::App* command = &app;
  for (std::vector<CLI::App*> ran = command->get_subcommands(); !ran.empty();
       ran = command->get_subcommands()) {
    command = ran.front();
  }
  return command;
}

// "spillway sweep merge": the names from `app` down to `command`.
std::string CommandName(const CLI::App* command) {
  std::string name;
  for (; command->get_parent() != nullptr; command = command->get_parent()) {
    name.insert(0, " " + command->get_name());
  }
  return "spillway" + name;
}

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

// Bad input, CLI11's or a command's own: one line on stderr naming the command, nothing on
// stdout, exit 2.
int UsageExit(const CLI::App* command, const std::string& message) {
  std::fprintf(stderr, "%s: %s\n", CommandName(command).c_str(), message.c_str());
  return 2;
}

int Main(int argc, char** argv) {
  CLI::App app{
      "spillway: a reference spill-file manager and the filesystem simulation that tests it"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "spillway " SPILLWAY_VERSION);
  int exit_code = 0;
  spillway::tools::AddRunCommand(app, exit_code);
  spillway::tools::AddSweepCommand(app, exit_code);
  spillway::tools::AddSweepWorkloadCommand(app, exit_code);
  spillway::tools::AddSimulateCommand(app, exit_code);
  spillway::tools::AddBenchCommand(app, exit_code);
  spillway::tools::AddInjectCommand(app, exit_code);
  spillway::tools::AddReapCommand(app, exit_code);
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {  // --help, --help-all, --version.
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    CLI::App* command = InnermostCommand(app);
    // --help asked for with a bad value beside it still shows the help.
    if (const CLI::Option* help = command->get_help_ptr(); help != nullptr && help->count() > 0) {
      std::fputs(app.help().c_str(), stdout);  // The innermost command's, as --help shows it.
      return 0;
    }
    const std::string unknown = UnknownCommandError(app);
    return UsageExit(
        command, unknown.empty() ? e.what() + spillway::tools::UsageNote(*command, e) : unknown);
  } catch (const spillway::tools::UsageError& e) {
    // Thrown by the callback of the command that ran.
    return UsageExit(InnermostCommand(app), e.what());
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
