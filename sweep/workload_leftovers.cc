// The end-of-run check of a WorkloadRun: every path left under a local dir or the temp dir
// after everything was dropped must be reported by the CleanupLog (docs/sweep.md).
#include <fmt/format.h>

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "spillway/spill/disk_manager.h"
#include "spillway/vfs/file_system.h"
#include "spillway/vfs/glob.h"
#include "workload_run.h"

namespace spillway::sweep::internal {
std::string GeneralizePath(const std::string& path) {
  std::string glob;
  size_t start = 1;
  while (start <= path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string::npos) end = path.size();
    std::string component = path.substr(start, end - start);
    if (component.starts_with(kSpillDirPrefix)) {
      component = std::string(kSpillDirPrefix) + "*";
    } else if (component.starts_with(".tmp.")) {  // A spill file: ".tmp.<description>.<random>".
      const size_t last_dot = component.rfind('.');
      if (last_dot > 4) component = component.substr(0, last_dot + 1) + "*";
    } else if (component.starts_with(kOsTmpDirPrefix)) {  // The temp dir's spill directory.
      component = std::string(kOsTmpDirPrefix) + "*";
    }
    glob += "/" + component;
    start = end + 1;
  }
  return glob;
}

void WorkloadRun::CheckLeftovers() {
  FileSystem& base = runner().base_fs();
  std::vector<std::string> roots = workload_.local_dirs;
  roots.push_back(base.TempDir());
  std::set<std::string> leftovers;
  for (const std::string& root : roots) {
    std::string glob = root;
    for (int depth = 0; depth < 3; ++depth) {
      glob = JoinPath(glob, "*");
      for (std::string& path : ExpandGlob(base, glob)) leftovers.insert(std::move(path));
    }
  }
  if (leftovers.empty()) return;
  const std::vector<std::string> left_behind = runner().cleanup_log()->left_behind();
  // What the CleanupLog reports, and what a reap reported it could not reap.
  std::set<std::string> recorded(left_behind.begin(), left_behind.end());
  recorded.insert(reap_failed_.begin(), reap_failed_.end());
  // Entries racing processes made (an injected EEXIST) belong to no plan and stay: as
  // many leftovers in a directory as were made there are theirs.
  std::set<std::string> foreign;
  std::map<std::string, uint64_t> budget = foreign_;
  for (const std::string& path : leftovers) {
    auto it = budget.find(ParentPath(path));
    if (it == budget.end() || it->second == 0 || recorded.contains(path)) continue;
    --it->second;
    foreign.insert(path);
  }
  // A path is explained when it is reported, or when it is a directory that still holds
  // something reported (a tree removal stops at its first failure and reports the path it
  // failed on), or when it is in a crashed process's directory that a reap reported it could
  // not reap (a local dir it could not list holds all of them).
  auto explained = [&](const std::string& path) {
    if (recorded.contains(path) || foreign.contains(path)) return true;
    for (const std::string& orphan : orphans_) {
      if (!AtOrUnder(path, orphan)) continue;
      for (const std::string& failed : reap_failed_) {
        if (AtOrUnder(path, failed) || AtOrUnder(orphan, failed)) return true;
      }
    }
    for (const std::string& other : leftovers) {
      if (other.size() > path.size() && other.starts_with(path + "/") && recorded.contains(other)) {
        return true;
      }
    }
    return false;
  };
  std::map<std::string, std::vector<std::string>> silent;  // Glob -> paths.
  for (const std::string& path : leftovers) {
    if (!explained(path)) silent[GeneralizePath(path)].push_back(path);
  }
  for (const auto& [glob, paths] : silent) {
    uint64_t allowed = 0;
    for (const std::string& path : leftovers) {
      if (explained(path) && GlobMatch(glob, path)) ++allowed;
    }
    std::string list;
    for (const std::string& path : paths) list += (list.empty() ? "" : ", ") + path;
    Add(Check::kLeftover, "leftover|" + glob,
        fmt::format("{} remain{} after everything was dropped and no CleanupLog record "
                    "reports {}",
                    list, paths.size() == 1 ? "s" : "", paths.size() == 1 ? "it" : "them"),
        -1, {ExpectCount(glob, allowed)});
  }
}

}  // namespace spillway::sweep::internal
