// Not written yet: registers nothing, so `spillway run` is an unknown subcommand.
#include "commands.h"

namespace spillway::tools {

void AddRunCommand(CLI::App& /*app*/, int& /*exit_code*/) {}

}  // namespace spillway::tools
