#include "spillway/spill/cleanup_log.h"

#include <cassert>
#include <cerrno>
#include <iterator>
#include <utility>

namespace spillway {

void CleanupLog::Record(const Status& failure) {
  assert(!failure.ok());
  std::lock_guard<std::mutex> lock(mu_);
  failures_.push_back(failure);
}

void CleanupLog::TakeFrom(CleanupLog& from) {
  assert(&from != this);
  std::scoped_lock lock(mu_, from.mu_);
  from.failures_.insert(from.failures_.end(), std::make_move_iterator(failures_.begin()),
                        std::make_move_iterator(failures_.end()));
  failures_ = std::move(from.failures_);
  from.failures_.clear();
}

uint64_t CleanupLog::failure_count() const {
  std::lock_guard<std::mutex> lock(mu_);
  return failures_.size();
}

std::vector<Status> CleanupLog::failures() const {
  std::lock_guard<std::mutex> lock(mu_);
  return failures_;
}

std::vector<std::string> CleanupLog::left_behind() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::string> paths;
  paths.reserve(failures_.size());
  for (const Status& failure : failures_) {
    if (!failure.IsErrno(ENOENT)) paths.push_back(failure.path());  // Gone: not left behind.
  }
  return paths;
}

}  // namespace spillway
