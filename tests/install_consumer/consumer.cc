// Uses the installed headers and libraries: a plan on an in-memory filesystem spills one
// file, a write over its limit is a limit error, and everything it made is gone once it
// is dropped.
#include <cstdio>

#include "spillway/spill/plan_disk_manager.h"
#include "spillway/spill/spill_status.h"
#include "spillway/spill/spill_writer.h"
#include "spillway/vfs/mem_file_system.h"

int main() {
  auto fs = spillway::NewMemFileSystem();
  {
    auto plan = spillway::NewPlanDiskManager(fs, {.spill = {.local_dirs = {"/tmp/local0"}}});
    if (!plan.ok()) return 1;
    auto file = (*plan)->CreateTempFile("consumer");
    if (!file.ok()) return 2;
    spillway::SpillWriter writer(*file);
    if (!writer.Write("hello").ok()) return 3;
    if ((*plan)->used_disk_space() != 5) return 4;
    // The spill library's own error, recognised through the installed spill_status.h.
    if (!(*plan)->SetMaxTempDirectorySize(5).ok()) return 6;
    if (!spillway::IsLimitExceeded(writer.Write("!"))) return 7;
  }
  auto left = fs->ListDir("/tmp/local0");
  if (!left.ok() || !left->empty()) return 5;
  std::puts("consumer: ok");
  return 0;
}
