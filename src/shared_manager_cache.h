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
// PR #7066 kept them. Thread safety: safe for concurrent use.
class SharedManagerCache {
 public:
  using Key = std::pair<std::vector<std::string>, uint64_t>;

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
