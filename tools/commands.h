// The subcommands of the `spillway` tool. Each Add*Command registers one CLI11 subcommand
// on `app`; when that subcommand runs, its callback stores the process exit code in
// `exit_code` (0 success, 1 a check failed or a violation was found, 2 bad input).
#ifndef SPILLWAY_TOOLS_COMMANDS_H_
#define SPILLWAY_TOOLS_COMMANDS_H_

#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "spillway/scenario/scenario.h"
#include "spillway/spill/quirks.h"

namespace spillway::tools {

void AddRunCommand(CLI::App& app, int& exit_code);       // run_command.cc
void AddSweepCommand(CLI::App& app, int& exit_code);     // sweep_command.cc
void AddSimulateCommand(CLI::App& app, int& exit_code);  // simulate_command.cc
void AddBenchCommand(CLI::App& app, int& exit_code);     // bench_command.cc
void AddInjectCommand(CLI::App& app, int& exit_code);    // inject_command.cc
void AddReapCommand(CLI::App& app, int& exit_code);      // reap_command.cc

// The options several subcommands take, declared once (cli_support.cc).
//
// --fs mem|posix into `fs`, whose initial value is the default shown in the help.
CLI::Option* AddFsOption(CLI::App& command, std::string& fs);
// The filesystem --fs named.
scenario::FsKind FsKindFromName(std::string_view fs);
// --quirk NAME (repeatable or a comma list), each name checked against quirks.h, added to
// `quirks`. An unknown name is a usage error that names the known ones.
CLI::Option* AddQuirkOption(CLI::App& command, Quirks& quirks);

// `spillway sweep ... -- CMD` or `spillway sweep merge ...`: when argv (the whole command
// line) is one, runs it and returns its exit code; otherwise nullopt (`spillway sweep`
// without `--` is AddSweepCommand's).
// sweep_command.cc.
std::optional<int> DispatchCommandSweep(int argc, char** argv);
// `spillway sweep [OPTIONS] -- CMD`, from the word after `sweep`. cmd_sweep_command.cc.
int RunCmdSweepCommand(int argc, char** argv);
// `spillway sweep merge REPORT.json...`, from the word after `merge`. cmd_sweep_command.cc.
int RunCmdSweepMergeCommand(int argc, char** argv);

// The names of the quirks in `quirks`, in AllQuirks() order; empty for none. The JSON
// summaries list a run's quirks with it. cli_support.cc.
std::vector<std::string> QuirkNames(Quirks quirks);

}  // namespace spillway::tools

#endif  // SPILLWAY_TOOLS_COMMANDS_H_
