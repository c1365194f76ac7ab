// The subcommands of the `spillway` tool. Each Add*Command registers one CLI11 subcommand
// on `app`; when that subcommand runs, its callback stores the process exit code in
// `exit_code` (0 success, 1 a check failed or a violation was found). Bad input is thrown
// as a UsageError (cli_support.h), which spillway_main.cc turns into one line and exit 2.
#ifndef SPILLWAY_TOOLS_COMMANDS_H_
#define SPILLWAY_TOOLS_COMMANDS_H_

#include <CLI/CLI.hpp>
#include <string>

#include "cli_support.h"

namespace spillway::tools {

void AddRunCommand(CLI::App& app, int& exit_code);  // run_command.cc
// `spillway sweep [OPTIONS] -- CMD` and `spillway sweep merge`. cmd_sweep_command.cc.
void AddSweepCommand(CLI::App& app, int& exit_code);
// `spillway sweep-workload`: the reference workload's sweep. sweep_command.cc.
void AddSweepWorkloadCommand(CLI::App& app, int& exit_code);
void AddSimulateCommand(CLI::App& app, int& exit_code);  // simulate_command.cc
void AddBenchCommand(CLI::App& app, int& exit_code);     // bench_command.cc
void AddInjectCommand(CLI::App& app, int& exit_code);    // inject_command.cc
void AddReapCommand(CLI::App& app, int& exit_code);      // reap_command.cc

// What spillway_main.cc adds to CLI11's message when parsing `command` failed with
// `error`: for `spillway sweep` given an unknown option or no command, what it takes and
// where the reference workload's sweep went (as the old `spillway sweep --fs mem` meets
// it); empty otherwise. cmd_sweep_command.cc.
std::string UsageNote(const CLI::App& command, const CLI::ParseError& error);

}  // namespace spillway::tools

#endif  // SPILLWAY_TOOLS_COMMANDS_H_
