// CleanupLog: what cleanups failed to remove, so that nothing is left behind silently.
//
// Removing spill files and directories happens in destructors, which cannot return an
// error. Instead every failed removal is recorded here with its Status (errno, operation,
// path). One log is shared by a manager, its files and its directories, and it outlives
// all of them, so it can be read after everything has been dropped. A caller may give
// several managers one log.
//
// A removal that finds the object already gone (ENOENT: a tmp cleaner, or an injected
// ENOENT, which the fault injector makes true first) is recorded, since the manager did
// not remove it itself and someone should be able to see that; but it is not left
// behind: left_behind() lists only the paths of the other failures, which still exist.
//
// Thread safety: all methods may be called concurrently.
#ifndef SPILLWAY_SPILL_CLEANUP_LOG_H_
#define SPILLWAY_SPILL_CLEANUP_LOG_H_

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "spillway/vfs/status.h"

namespace spillway {

class CleanupLog {
 public:
  // Records a failed removal. REQUIRES: !failure.ok() and failure.path() is the path that
  // was left behind.
  void Record(const Status& failure);

  // Moves the failures recorded so far out of `from`, in order, to the front of this
  // log's (a process that dies hands its log on without copying it). `from` is left
  // empty. REQUIRES: &from != this.
  void TakeFrom(CleanupLog& from);

  // Failed removals recorded so far.
  uint64_t failure_count() const;
  // The failures, in the order recorded.
  std::vector<Status> failures() const;
  // The paths left behind, in the order recorded (a path may appear more than once): those
  // of the failures other than ENOENT.
  std::vector<std::string> left_behind() const;

 private:
  mutable std::mutex mu_;
  std::vector<Status> failures_;
};

}  // namespace spillway

#endif  // SPILLWAY_SPILL_CLEANUP_LOG_H_
