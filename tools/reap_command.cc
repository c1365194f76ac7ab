// `spillway reap DIR...`: removes the spill directories under the given local dirs that no
// live process holds (ReapOrphans, reap.h), as an operator would after a crash.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "commands.h"
#include "spillway/spill/reap.h"
#include "spillway/vfs/posix_file_system.h"

namespace spillway::tools {
namespace {

struct ReapArgs {
  std::vector<std::string> dirs;
  bool dry_run = false;
  bool json = false;
  bool include_os_tmp_dirs = false;
};

void PrintJson(const ReapReport& report, bool dry_run) {
  nlohmann::json failures = nlohmann::json::array();
  for (const Status& failure : report.failures) failures.push_back(failure.ToString());
  nlohmann::json json = {{"dry_run", dry_run},
                         {"removed", report.removed},
                         {"live", report.live},
                         {"failures", failures},
                         {"ok", report.status.ok()}};
  std::printf("%s\n", json.dump(2).c_str());
}

void PrintText(const ReapReport& report, bool dry_run) {
  for (const std::string& path : report.removed) {
    std::printf("%s %s\n", dry_run ? "would remove" : "removed", path.c_str());
  }
  for (const std::string& path : report.live) std::printf("live %s\n", path.c_str());
  for (const Status& failure : report.failures) {
    std::printf("failed %s\n", failure.ToString().c_str());
  }
  std::printf("%zu %s, %zu live, %zu failed\n", report.removed.size(),
              dry_run ? "removable" : "removed", report.live.size(), report.failures.size());
}

int RunReapCommand(const ReapArgs& args) {
  std::shared_ptr<FileSystem> fs = NewPosixFileSystem();
  const ReapReport report = ReapOrphans(*fs, args.dirs,
                                        ReapOptions{.dry_run = args.dry_run,
                                                    .include_os_tmp_dirs = args.include_os_tmp_dirs,
                                                    .quirks = Quirks()});
  if (args.json) {
    PrintJson(report, args.dry_run);
  } else {
    PrintText(report, args.dry_run);
  }
  return report.status.ok() ? 0 : 1;
}

}  // namespace

void AddReapCommand(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<ReapArgs>();
  CLI::App* sub = app.add_subcommand(
      "reap",
      "Remove the spill directories under DIR... that no live process holds (left behind "
      "by a crash); exits 1 if one could not be removed");
  sub->add_option("DIR", args->dirs, "A local dir (absolute path)")
      ->required()
      ->check(CLI::Validator(
          [](const std::string& dir) -> std::string {
            return dir.starts_with('/') ? "" : "not an absolute path: " + dir;
          },
          "ABSOLUTE"));
  sub->add_flag("--dry-run", args->dry_run, "Only report what would be removed");
  sub->add_flag("--json", args->json, "Print the report as JSON");
  sub->add_flag("--os-tmp", args->include_os_tmp_dirs,
                "Also reap \".tmp\" + 6-character directories (DiskManager's OS temp dir "
                "mode; other programs make such names too)");
  sub->callback([args, &exit_code] { exit_code = RunReapCommand(*args); });
}

}  // namespace spillway::tools
