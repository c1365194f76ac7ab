// The subcommands of the `spillway` tool. Each Add*Command registers one CLI11 subcommand
// on `app`; when that subcommand runs, its callback stores the process exit code in
// `exit_code` (0 success, 1 a check failed or a violation was found, 2 bad input).
#ifndef SPILLWAY_TOOLS_COMMANDS_H_
#define SPILLWAY_TOOLS_COMMANDS_H_

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "spillway/spill/quirks.h"

namespace spillway::tools {

void AddRunCommand(CLI::App& app, int& exit_code);       // run_command.cc
void AddSweepCommand(CLI::App& app, int& exit_code);     // sweep_command.cc
void AddSimulateCommand(CLI::App& app, int& exit_code);  // simulate_command.cc
void AddBenchCommand(CLI::App& app, int& exit_code);     // bench_command.cc
void AddInjectCommand(CLI::App& app, int& exit_code);    // inject_command.cc
void AddReapCommand(CLI::App& app, int& exit_code);      // reap_command.cc

// Accepts a quirk's name (quirks.h); otherwise names the known ones. cli_support.cc.
CLI::Validator QuirkNameValidator();

// The names of the quirks in `quirks`, in AllQuirks() order; empty for none. The JSON
// summaries list a run's quirks with it. cli_support.cc.
std::vector<std::string> QuirkNames(Quirks quirks);

}  // namespace spillway::tools

#endif  // SPILLWAY_TOOLS_COMMANDS_H_
