// Not written yet: registers nothing, so `spillway bench` is an unknown subcommand.
#include "commands.h"

namespace spillway::tools {

void AddBenchCommand(CLI::App& /*app*/, int& /*exit_code*/) {}

}  // namespace spillway::tools
