// What the subcommands share on their command lines.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <string>
#include <string_view>
#include <vector>

#include "commands.h"
#include "spillway/spill/quirks.h"

namespace spillway::tools {
namespace {

std::string KnownQuirks() {
  std::vector<std::string_view> known;
  for (Quirk q : AllQuirks()) known.push_back(QuirkName(q));
  return fmt::format("{}", fmt::join(known, ", "));
}

// Accepts a quirk's name (quirks.h); otherwise names the known ones.
CLI::Validator QuirkNameValidator() {
  return CLI::Validator(
      [](std::string& name) -> std::string {
        if (QuirkFromName(name).has_value()) return {};
        return fmt::format("unknown quirk \"{}\" (known: {})", name, KnownQuirks());
      },
      "QUIRK");
}

}  // namespace

CLI::Option* AddFsOption(CLI::App& command, std::string& fs) {
  return command
      .add_option("--fs", fs, "The filesystem under test: mem (in memory) or posix (the real disk)")
      ->check(CLI::IsMember({"mem", "posix"}))
      ->capture_default_str();
}

scenario::FsKind FsKindFromName(std::string_view fs) {
  return fs == "posix" ? scenario::FsKind::kPosix : scenario::FsKind::kMem;
}

CLI::Option* AddQuirkOption(CLI::App& command, Quirks& quirks) {
  return command
      .add_option_function<std::vector<std::string>>(
          "--quirk",
          [&quirks](const std::vector<std::string>& names) {
            for (const std::string& name : names) {
              quirks = quirks.With(*QuirkFromName(name));  // Checked by the validator.
            }
          },
          fmt::format("Emulate an upstream defect (repeatable or a comma list; known: {})",
                      KnownQuirks()))
      ->delimiter(',')
      ->allow_extra_args(false)
      ->check(QuirkNameValidator());
}

std::vector<std::string> QuirkNames(Quirks quirks) {
  std::vector<std::string> names;
  for (Quirk q : AllQuirks()) {
    if (quirks.Has(q)) names.emplace_back(QuirkName(q));
  }
  return names;
}

}  // namespace spillway::tools
