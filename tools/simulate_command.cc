// Not written yet: registers nothing, so `spillway simulate` is an unknown subcommand.
#include "commands.h"

namespace spillway::tools {

void AddSimulateCommand(CLI::App& /*app*/, int& /*exit_code*/) {}

}  // namespace spillway::tools
