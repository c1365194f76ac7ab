// What the subcommands of the `spillway` tool share: the typed error of bad input, the
// options several of them take, and where `sweep` and `simulate` write their reproducers.
#ifndef SPILLWAY_TOOLS_CLI_SUPPORT_H_
#define SPILLWAY_TOOLS_CLI_SUPPORT_H_

#include <CLI/CLI.hpp>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "spillway/scenario/scenario.h"
#include "spillway/spill/quirks.h"

namespace spillway::tools {

// Bad input on a command line (a value out of range, a name nothing knows, a directory
// that cannot be used). Every command's validation throws it; spillway_main.cc prints it
// as one line, "spillway COMMAND: MESSAGE", and exits 2, as it does for CLI11's own parse
// errors.
class UsageError : public std::runtime_error {
 public:
  explicit UsageError(const std::string& message) : std::runtime_error(message) {}
};

// --fs mem|posix into `fs`, whose initial value is the default shown in the help.
CLI::Option* AddFsOption(CLI::App& command, std::string& fs);
// The filesystem --fs named ("mem", "posix"; AddFsOption has checked the name).
scenario::FsKind FsKindFromName(std::string_view fs);
// --quirk NAME (repeatable or a comma list), each name checked against quirks.h, added to
// `quirks`. An unknown name is a usage error that names the known ones.
CLI::Option* AddQuirkOption(CLI::App& command, Quirks& quirks);

// The names of the quirks in `quirks`, in AllQuirks() order; empty for none. The JSON
// summaries list a run's quirks with it.
std::vector<std::string> QuirkNames(Quirks quirks);

// --mode: the name of one of a sweep's fault modes (`name_of` names each), or "both"; sets
// `modes` to that mode, or to both. With `with_kill`, also the names of kKill, kCorrupt and
// kLost, and "all" (every one). The help shows the initial `modes` as the default.
// FaultMode is workload_sweep::FaultMode or program_sweep::FaultMode.
inline constexpr std::string_view kBothModes = "both";
inline constexpr std::string_view kAllModes = "all";
template <typename FaultMode, typename NameOf>
CLI::Option* AddModeOption(CLI::App& command, std::vector<FaultMode>& modes, NameOf name_of,
                           const std::string& description, bool with_kill = false) {
  const std::vector<FaultMode> every = {FaultMode::kTransient, FaultMode::kPersistent};
  std::vector<FaultMode> all = every;
  if (with_kill) all.insert(all.end(), {FaultMode::kKill, FaultMode::kCorrupt, FaultMode::kLost});
  std::vector<std::string> names;
  names.reserve(all.size() + 2);
  for (FaultMode mode : all) names.emplace_back(name_of(mode));
  std::string shown(modes == all && with_kill ? kAllModes : kBothModes);
  if (modes != every && !(modes == all && with_kill)) {
    shown.clear();
    for (FaultMode mode : modes) shown += (shown.empty() ? "" : ",") + std::string(name_of(mode));
  }
  names.emplace_back(kBothModes);
  if (with_kill) names.emplace_back(kAllModes);
  return command
      .add_option_function<std::string>(
          "--mode",
          [&modes, every, all, name_of](const std::string& name) {
            modes = name == kBothModes ? every : all;
            if (name == kBothModes || name == kAllModes) return;
            std::erase_if(modes, [&](FaultMode mode) { return name_of(mode) != name; });
          },
          description)
      ->check(CLI::IsMember(names))
      ->default_str(shown);
}

// Accepts a number of seconds above 0 (CLI::PositiveNumber names the largest double).
CLI::Validator PositiveSeconds();

// "ENOSPC,EIO": the errnos' names, comma-separated.
std::string ErrnoList(const std::vector<int>& errnos);

// `text` in upper case (ASCII).
std::string Upper(std::string text);
// The errnos `names` spell (any case: "enospc" is ENOSPC), each once, in their order.
// Throws UsageError ("--errno: unknown errno name 'X'") for a name that is no errno.
std::vector<int> ErrnosFromNames(const std::vector<std::string>& names);

// Where `spillway sweep` and `spillway simulate` write their reproducers (--out).
//
// A directory the user named is used, and made (with its parents) when missing, unless it
// lies inside a git checkout where git does not ignore it: reproducers there would land
// among the project's files, so that is refused. Without one, a fresh directory
// "spillway-COMMAND-XXXXXX" is made under $TMPDIR (or /tmp) and named on stderr; if it is
// still empty when the OutDir goes, it is removed, so a run that found nothing leaves
// nothing behind. Not copyable.
class OutDir {
 public:
  // Throws UsageError: a named directory inside a checkout's tracked tree, or one that
  // cannot be made; a fresh one that cannot be made.
  OutDir(std::string_view command, const std::string& named);
  ~OutDir();

  OutDir(const OutDir&) = delete;
  OutDir& operator=(const OutDir&) = delete;

  const std::string& path() const { return path_; }

 private:
  std::string path_;
  bool fresh_ = false;
};

}  // namespace spillway::tools

#endif  // SPILLWAY_TOOLS_CLI_SUPPORT_H_
