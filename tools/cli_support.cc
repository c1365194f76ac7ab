// What the subcommands share on their command lines (cli_support.h).
#include "cli_support.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "spillway/spill/quirks.h"
#include "spillway/vfs/status.h"
#include "spillway/vocab/names.h"
#include "spillway/vocab/vocab.h"

extern char** environ;

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

namespace stdfs = std::filesystem;

// True when `dir` (absolute) lies inside a git work tree and git does not ignore it: what
// `git check-ignore` says from the nearest existing directory on the way up (exit 1: not
// ignored; 0: ignored; 128: not in a work tree). Without a runnable git nothing can be
// told, and false is returned.
bool InTrackedTree(const stdfs::path& dir) {
  std::error_code ec;
  stdfs::path existing = dir;
  while (!stdfs::is_directory(existing, ec) && existing.has_relative_path()) {
    existing = existing.parent_path();
  }
  const std::string where = existing.string();
  const std::string path = dir.string();
  const char* argv[] = {"git", "-C", where.c_str(), "check-ignore",
                        "-q",  "--", path.c_str(),  nullptr};
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  pid_t pid = 0;
  const int spawned =
      posix_spawnp(&pid, "git", &actions, nullptr, const_cast<char* const*>(argv), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) return false;
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) && WEXITSTATUS(status) == 1;
}

// The system's temp dir: $TMPDIR when set and not empty, else /tmp.
std::string SystemTempDir() {
  const char* tmp = std::getenv("TMPDIR");
  return tmp != nullptr && *tmp != '\0' ? tmp : "/tmp";
}

}  // namespace

CLI::Option* AddFsOption(CLI::App& command, std::string& fs) {
  return command
      .add_option("--fs", fs, "The filesystem under test: mem (in memory) or posix (the real disk)")
      ->check(CLI::IsMember({"mem", "posix"}))
      ->capture_default_str();
}

scenario::FsKind FsKindFromName(std::string_view fs) {
  return vocab::ParseName<vocab::FsKindName>(fs).value_or(scenario::FsKind::kMem);
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

CLI::Validator PositiveSeconds() {
  return CLI::Validator(
      [](const std::string& text) -> std::string {
        double seconds = 0;
        if (CLI::detail::lexical_cast(text, seconds) && seconds > 0) return {};
        return "not a number of seconds above 0: " + text;
      },
      "SECONDS");
}

std::string ErrnoList(const std::vector<int>& errnos) {
  std::vector<std::string> names;
  names.reserve(errnos.size());
  for (int e : errnos) names.push_back(ErrnoName(e));
  return fmt::format("{}", fmt::join(names, ","));
}

std::string Upper(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return text;
}

std::vector<int> ErrnosFromNames(const std::vector<std::string>& names) {
  std::vector<int> errnos;
  for (const std::string& name : names) {
    const std::optional<int> error_number = ErrnoFromName(Upper(name));
    if (!error_number) throw UsageError(fmt::format("--errno: unknown errno name '{}'", name));
    if (std::find(errnos.begin(), errnos.end(), *error_number) == errnos.end()) {
      errnos.push_back(*error_number);
    }
  }
  return errnos;
}

OutDir::OutDir(std::string_view command, const std::string& named) {
  std::error_code ec;
  if (named.empty()) {
    std::string dir = fmt::format("{}/spillway-{}-XXXXXX", SystemTempDir(), command);
    if (mkdtemp(dir.data()) == nullptr) {
      throw UsageError(fmt::format("cannot make a directory for reproducers in {}: {}",
                                   SystemTempDir(), std::strerror(errno)));
    }
    path_ = std::move(dir);
    fresh_ = true;
    std::fprintf(stderr, "spillway %.*s: reproducers go to %s (no --out; removed if empty)\n",
                 static_cast<int>(command.size()), command.data(), path_.c_str());
    return;
  }
  const stdfs::path absolute = stdfs::absolute(named, ec).lexically_normal();
  if (ec) throw UsageError(fmt::format("--out {}: {}", named, ec.message()));
  if (InTrackedTree(absolute)) {
    throw UsageError(fmt::format(
        "--out {}: inside a git checkout, where git does not ignore it; name a directory "
        "outside the checkout or one git ignores (or leave --out out for a fresh one)",
        named));
  }
  stdfs::create_directories(absolute, ec);
  if (ec) throw UsageError(fmt::format("--out {}: cannot make it: {}", named, ec.message()));
  path_ = named;
}

OutDir::~OutDir() {
  // Only an empty fresh directory goes: rmdir refuses one that holds anything.
  if (fresh_) ::rmdir(path_.c_str());
}

}  // namespace spillway::tools
