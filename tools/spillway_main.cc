// spillway: replay scenario files, sweep faults, simulate, and measure.
#include <cstdio>

#include <CLI/CLI.hpp>

#include "commands.h"

int main(int argc, char** argv) {
  CLI::App app{
      "spillway: a reference spill-file manager and the filesystem simulation that tests it"};
  app.require_subcommand(1);
  int exit_code = 0;
  spillway::tools::AddRunCommand(app, exit_code);
  spillway::tools::AddSweepCommand(app, exit_code);
  spillway::tools::AddSimulateCommand(app, exit_code);
  spillway::tools::AddBenchCommand(app, exit_code);
  spillway::tools::AddInjectCommand(app, exit_code);
  spillway::tools::AddReapCommand(app, exit_code);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // One line naming the problem; usage errors exit 2.
    std::fprintf(stderr, "spillway: %s\n", e.what());
    return 2;
  }
  return exit_code;
}
