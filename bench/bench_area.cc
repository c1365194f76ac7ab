#include "spillway/bench/bench_area.h"

#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>
#include <utility>

namespace spillway::bench {
namespace {

// How long the machine idles before each timed batch on a real filesystem.
constexpr std::chrono::milliseconds kSettleTime{20};

}  // namespace

StatusOr<std::unique_ptr<BenchArea>> BenchArea::Make(std::shared_ptr<FileSystem> fs, bool real,
                                                     const std::string& parent, int local_dirs) {
  StatusOr<std::string> base = fs->CreateUniqueDir(parent, "spillway-bench-");
  if (!base.ok()) return base.status();
  auto area = std::unique_ptr<BenchArea>(new BenchArea(std::move(fs), real, *base));
  for (int i = 0; i < local_dirs; ++i) {
    std::string dir = JoinPath(area->base_, "local" + std::to_string(i));
    SPILLWAY_RETURN_IF_ERROR(area->fs_->CreateDir(dir));
    area->local_dirs_.push_back(std::move(dir));
  }
  return area;
}

BenchArea::~BenchArea() {
  Status s = fs_->RemoveTree(base_);
  if (!s.ok()) std::fprintf(stderr, "spillway bench: left behind: %s\n", s.ToString().c_str());
}

void BenchArea::Settle() const {
  if (!real_) return;
  const int fd = ::open(base_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd >= 0) {
    ::syncfs(fd);
    ::close(fd);
  }
  std::this_thread::sleep_for(kSettleTime);
}

}  // namespace spillway::bench
