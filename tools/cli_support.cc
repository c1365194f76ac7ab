// What the subcommands share on their command lines.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <string>
#include <string_view>
#include <vector>

#include "commands.h"
#include "spillway/spill/quirks.h"

namespace spillway::tools {

CLI::Validator QuirkNameValidator() {
  return CLI::Validator(
      [](std::string& name) -> std::string {
        if (QuirkFromName(name).has_value()) return {};
        std::vector<std::string_view> known;
        for (Quirk q : AllQuirks()) known.push_back(QuirkName(q));
        return fmt::format("unknown quirk \"{}\" (known: {})", name, fmt::join(known, ", "));
      },
      "QUIRK");
}

std::vector<std::string> QuirkNames(Quirks quirks) {
  std::vector<std::string> names;
  for (Quirk q : AllQuirks()) {
    if (quirks.Has(q)) names.emplace_back(QuirkName(q));
  }
  return names;
}

}  // namespace spillway::tools
