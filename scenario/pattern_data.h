// The bytes the runner's `write FILE SIZE` appends. Internal to spillway_scenario.
#ifndef SPILLWAY_SCENARIO_PATTERN_DATA_H_
#define SPILLWAY_SCENARIO_PATTERN_DATA_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "spillway/vfs/status.h"

namespace spillway::scenario::internal {

// The bytes `write FILE SIZE` appends: a fixed pattern, so runs are reproducible. Sizes up
// to kMaxFilled come from one reused buffer; a larger write (a scenario showing that 200G
// is over a limit) gets zero pages from a MAP_NORESERVE mapping, which costs nothing
// unless the bytes are really written.
//
// Thread safety: not thread-safe; the Runner that owns it uses it from one thread.
class PatternData {
 public:
  PatternData() = default;
  PatternData(const PatternData&) = delete;
  PatternData& operator=(const PatternData&) = delete;
  ~PatternData() { Unmap(); }

  // The first `size` bytes of the pattern, valid until the next call. Errors: mmap's
  // errno, for a size above kMaxFilled that cannot be mapped.
  StatusOr<std::string_view> Get(uint64_t size);

 private:
  static constexpr uint64_t kMaxFilled = uint64_t{64} << 20;

  void Unmap();

  std::string filled_;
  void* mapped_ = nullptr;
  size_t mapped_size_ = 0;
};

}  // namespace spillway::scenario::internal

#endif  // SPILLWAY_SCENARIO_PATTERN_DATA_H_
