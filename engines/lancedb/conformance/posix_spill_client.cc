// The shape of work of DataFusion's external sort, run on spillway's own DiskManager over
// PosixFileSystem in OS-temp mode (TMPDIR is the temp dir): N spill files created, each
// written, then read back and dropped, then the manager dropped. Run under
// `spillway inject --trace` by conformance.py, whose trace it compares with LanceDB's.
// Usage: posix_spill_client [FILES] [BYTES]  (default 3 files of 262144 bytes)
// Prints "files N bytes M" on success; an error and exit 1 on failure; exit 2 on bad input.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "spillway/spill/disk_manager.h"
#include "spillway/spill/spill_writer.h"
#include "spillway/vfs/posix_file_system.h"

namespace spillway {
namespace {

// The size of each write: DataFusion's IPC writer writes a batch at a time.
constexpr size_t kWriteSize = size_t{64} * 1024;

bool ParseCount(const char* text, uint64_t* out) {
  char* end = nullptr;
  const unsigned long long value = std::strtoull(text, &end, 10);
  if (end == text || *end != '\0' || value == 0 || text[0] == '-') return false;
  *out = value;
  return true;
}

int Run(uint64_t files, uint64_t bytes) {
  std::shared_ptr<FileSystem> fs = NewPosixFileSystem();
  StatusOr<std::shared_ptr<DiskManager>> manager = DiskManagerBuilder().Build(fs);
  if (!manager.ok()) {
    std::fprintf(stderr, "error: %s\n", manager.status().ToString().c_str());
    return 1;
  }
  std::vector<SpillFile> spilled;
  for (uint64_t i = 0; i < files; ++i) {
    StatusOr<SpillFile> file = (*manager)->CreateTempFile("ExternalSorter");
    if (!file.ok()) {
      std::fprintf(stderr, "error: %s\n", file.status().ToString().c_str());
      return 1;
    }
    SpillWriter writer(*file);
    const std::string chunk(kWriteSize, static_cast<char>('a' + i % 26));
    for (uint64_t written = 0; written < bytes; written += kWriteSize) {
      const uint64_t n = bytes - written < kWriteSize ? bytes - written : kWriteSize;
      if (Status status = writer.Write(std::string_view(chunk).substr(0, n)); !status.ok()) {
        std::fprintf(stderr, "error: %s\n", status.ToString().c_str());
        return 1;
      }
    }
    spilled.push_back(*file);
  }
  // The merge reads each file back, then drops it.
  for (SpillFile& file : spilled) {
    StatusOr<std::string> contents = fs->ReadFile(file.path());
    if (!contents.ok()) {
      std::fprintf(stderr, "error: %s\n", contents.status().ToString().c_str());
      return 1;
    }
    if (contents->size() != bytes) {
      std::fprintf(stderr, "error: read %zu bytes of %llu\n", contents->size(),
                   static_cast<unsigned long long>(bytes));
      return 1;
    }
  }
  spilled.clear();
  manager->reset();
  std::printf("files %llu bytes %llu\n", static_cast<unsigned long long>(files),
              static_cast<unsigned long long>(bytes));
  return 0;
}

}  // namespace
}  // namespace spillway

int main(int argc, char** argv) {
  uint64_t files = 3;
  uint64_t bytes = uint64_t{256} * 1024;
  if (argc > 3 || (argc > 1 && !spillway::ParseCount(argv[1], &files)) ||
      (argc > 2 && !spillway::ParseCount(argv[2], &bytes))) {
    std::fprintf(stderr, "usage: posix_spill_client [FILES] [BYTES] (positive integers)\n");
    return 2;
  }
  return spillway::Run(files, bytes);
}
