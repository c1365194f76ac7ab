// Private to the spill library (not installed): the kSharedLimit quirk's cache, which
// plan_disk_manager.h names only as an opaque type.
#ifndef SPILLWAY_SRC_SHARED_MANAGER_CACHE_H_
#define SPILLWAY_SRC_SHARED_MANAGER_CACHE_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "spillway/spill/disk_manager.h"
#include "spillway/vfs/status.h"

namespace spillway {

// One DiskManager per (local dirs, limit), never evicted, as the first version of Comet
// PR #7066 kept them, but per filesystem and per option that changes a manager's
// behaviour: a plan never gets a manager built for another filesystem, limit key, missing
// directory policy or set of quirks. The seed is not in the key: it picks only where files land,
// which upstream leaves to chance, and plans that share a manager share its sequence. Thread
// safety: safe for concurrent use.
class SharedManagerCache {
 public:
  struct Key {
    // The filesystem's identity. A cached manager holds its filesystem, so the address is
    // not reused while the entry exists.
    uintptr_t file_system = 0;
    std::vector<std::string> local_dirs;
    uint64_t limit = 0;
    std::string limit_config_key;
    MissingDirPolicy missing_dir = MissingDirPolicy::kFail;
    std::string quirks;  // Quirks::ToString().
    SpillDirLayout layout = SpillDirLayout::kAll;
    bool failover = false;
    bool frame_spill_files = false;
    friend auto operator<=>(const Key&, const Key&) = default;
  };

  // Returns the manager cached under `key`, building it with `build` on a miss. A failed
  // build is not cached.
  StatusOr<std::shared_ptr<DiskManager>> GetOrBuild(
      const Key& key, const std::function<StatusOr<std::shared_ptr<DiskManager>>()>& build);

  // The cache of plans whose options name none; never destroyed.
  static const std::shared_ptr<SharedManagerCache>& ProcessWide();

 private:
  std::mutex mu_;
  std::map<Key, std::shared_ptr<DiskManager>> managers_;
};

}  // namespace spillway

#endif  // SPILLWAY_SRC_SHARED_MANAGER_CACHE_H_
