// Not written yet: registers nothing, so `spillway sweep` is an unknown subcommand.
#include "commands.h"

namespace spillway::tools {

void AddSweepCommand(CLI::App& /*app*/, int& /*exit_code*/) {}

}  // namespace spillway::tools
