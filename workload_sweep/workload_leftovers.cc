// The end-of-run check of a WorkloadRun: every path left under a local dir or the temp dir
// after everything was dropped must be reported by the CleanupLog or by a reap
// (docs/sweep.md).
#include <fmt/format.h>

#include <algorithm>
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

namespace spillway::workload_sweep::internal {

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

std::set<std::string> WorkloadRun::ExplainedLeftovers(
    const std::set<std::string>& leftovers) const {
  const std::vector<std::string> left_behind = runner_->cleanup_log()->left_behind();
  // What the CleanupLog reports, and what a reap reported it could not reap.
  std::set<std::string> recorded(left_behind.begin(), left_behind.end());
  recorded.insert(reap_failed_.begin(), reap_failed_.end());
  std::set<std::string> explained;
  // Entries racing processes made (an injected EEXIST) belong to no plan and stay: as
  // many leftovers in a directory as were made there are theirs.
  std::map<std::string, uint64_t> foreign = foreign_;
  for (const std::string& path : leftovers) {
    if (recorded.contains(path)) {
      explained.insert(path);
      continue;
    }
    auto it = foreign.find(ParentPath(path));
    if (it == foreign.end() || it->second == 0) continue;
    --it->second;
    explained.insert(path);
  }
  // A directory that still holds something reported is explained (a tree removal stops at
  // its first failure and reports the path it failed on).
  for (const std::string& path : recorded) {
    if (!leftovers.contains(path)) continue;
    for (std::string dir = ParentPath(path); leftovers.contains(dir); dir = ParentPath(dir)) {
      explained.insert(dir);
    }
  }
  // So is what is in a crashed process's directory that a reap reported it could not reap
  // (a failure on the directory, in it, or on the listing of its local dir).
  for (const std::string& orphan : orphans_) {
    for (const std::string& failed : reap_failed_) {
      if (!AtOrUnder(failed, orphan) && !AtOrUnder(orphan, failed)) continue;
      for (const std::string& path : leftovers) {
        if (AtOrUnder(path, orphan) && (AtOrUnder(path, failed) || AtOrUnder(orphan, failed))) {
          explained.insert(path);
        }
      }
    }
  }
  // So is what a killed process left in the temp dir, which `reap` does not look in.
  for (const std::string& dir : killed_tmp_) {
    for (const std::string& path : leftovers) {
      if (AtOrUnder(path, dir)) explained.insert(path);
    }
  }
  return explained;
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
  const std::set<std::string> explained = ExplainedLeftovers(leftovers);
  std::map<std::string, std::vector<std::string>> silent;  // Glob -> paths.
  for (const std::string& path : leftovers) {
    if (!explained.contains(path)) silent[GeneralizePath(path)].push_back(path);
  }
  for (const auto& entry : silent) {
    // Named, not bound: clang before 16 cannot capture a structured binding in a lambda.
    const std::string& glob = entry.first;
    const std::vector<std::string>& paths = entry.second;
    const auto allowed = static_cast<uint64_t>(
        std::count_if(explained.begin(), explained.end(),
                      [&](const std::string& path) { return GlobMatch(glob, path); }));
    std::string list;
    for (const std::string& path : paths) list += (list.empty() ? "" : ", ") + path;
    Add(Check::kLeftover, "leftover|" + glob,
        fmt::format("{} remain{} after everything was dropped and no CleanupLog record "
                    "reports {}",
                    list, paths.size() == 1 ? "s" : "", paths.size() == 1 ? "it" : "them"),
        -1, {ExpectCount(glob, allowed)});
  }
}

}  // namespace spillway::workload_sweep::internal
