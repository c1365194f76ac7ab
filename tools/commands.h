// The subcommands of the `spillway` tool. Each Add*Command registers one CLI11 subcommand
// on `app`; when that subcommand runs, its callback stores the process exit code in
// `exit_code` (0 success, 1 a check failed or a violation was found). Bad input is thrown
// as a UsageError (cli_support.h), which spillway_main.cc turns into one line and exit 2.
#ifndef SPILLWAY_TOOLS_COMMANDS_H_
#define SPILLWAY_TOOLS_COMMANDS_H_

#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cli_support.h"

namespace spillway::tools {

void AddRunCommand(CLI::App& app, int& exit_code);       // run_command.cc
void AddSweepCommand(CLI::App& app, int& exit_code);     // sweep_command.cc
void AddSimulateCommand(CLI::App& app, int& exit_code);  // simulate_command.cc
void AddBenchCommand(CLI::App& app, int& exit_code);     // bench_command.cc
void AddInjectCommand(CLI::App& app, int& exit_code);    // inject_command.cc
void AddReapCommand(CLI::App& app, int& exit_code);      // reap_command.cc

// `spillway sweep ... -- CMD` or `spillway sweep merge ...`: when argv (the whole command
// line) is one, runs it and returns its exit code; otherwise nullopt (`spillway sweep`
// without `--` is AddSweepCommand's).
// sweep_command.cc.
std::optional<int> DispatchCommandSweep(int argc, char** argv);
// `spillway sweep [OPTIONS] -- CMD`, from the word after `sweep`. cmd_sweep_command.cc.
int RunCmdSweepCommand(int argc, char** argv);
// `spillway sweep merge REPORT.json...`, from the word after `merge`. cmd_sweep_command.cc.
int RunCmdSweepMergeCommand(int argc, char** argv);

}  // namespace spillway::tools

#endif  // SPILLWAY_TOOLS_COMMANDS_H_
