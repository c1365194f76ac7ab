// PatternData: the bytes the runner's `write FILE SIZE` appends.
#include "pattern_data.h"

#include <sys/mman.h>

#include <cerrno>

namespace spillway::scenario::internal {

StatusOr<std::string_view> PatternData::Get(uint64_t size) {
  Unmap();
  if (size <= kMaxFilled) {
    while (filled_.size() < size) filled_.push_back(static_cast<char>('a' + filled_.size() % 26));
    return std::string_view(filled_.data(), size);
  }
  void* p = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) return Status::FromErrno(errno, "mmap", "(write buffer)");
  mapped_ = p;
  mapped_size_ = size;
  return std::string_view(static_cast<const char*>(p), size);
}

void PatternData::Unmap() {
  if (mapped_ != nullptr) ::munmap(mapped_, mapped_size_);
  mapped_ = nullptr;
}

}  // namespace spillway::scenario::internal
