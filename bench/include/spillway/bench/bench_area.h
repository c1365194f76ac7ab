// Where `spillway bench` works: the filesystem under test, a private directory on it, and
// the local dirs inside that.
//
// Thread safety: a BenchArea is immutable once made; its accessors and Settle() may run in
// many threads.
#ifndef SPILLWAY_BENCH_BENCH_AREA_H_
#define SPILLWAY_BENCH_BENCH_AREA_H_

#include <memory>
#include <string>
#include <vector>

#include "spillway/bench/plan_workload.h"
#include "spillway/vfs/file_system.h"
#include "spillway/vfs/status.h"

namespace spillway::bench {

class BenchArea final {
 public:
  // Makes a private directory "spillway-bench-XXXXXX" in `parent` on `fs`, and
  // `local_dirs` directories in it ("local0", ...). `real` says that `fs` is the host's
  // filesystem (PosixFileSystem without a root), so that Settle() can sync it. Errors:
  // making the private directory or a local dir.
  static StatusOr<std::unique_ptr<BenchArea>> Make(std::shared_ptr<FileSystem> fs, bool real,
                                                   const std::string& parent, int local_dirs);

  // Removes the private directory; says on stderr what could not be removed.
  ~BenchArea();
  BenchArea(const BenchArea&) = delete;
  BenchArea& operator=(const BenchArea&) = delete;

  const std::shared_ptr<FileSystem>& fs() const { return fs_; }
  const std::string& base() const { return base_; }

  // Lets the previous batch's aftermath pass before the next batch is timed: on a real
  // filesystem, writes back its metadata (syncfs) and idles briefly, so that journal
  // commits and writeback threads started by an eager batch do not steal the CPU from the
  // batch after it. Best effort: a failed sync only makes the next batch noisier.
  void Settle() const;

  // The first `n` local dirs. REQUIRES: 0 <= n <= the local dirs made.
  std::vector<std::string> LocalDirs(int n) const {
    return std::vector<std::string>(local_dirs_.begin(), local_dirs_.begin() + n);
  }

  // Checks that every local dir is empty: every plan removed its spill directories.
  // Errors: as bench::CheckNothingLeft.
  Status CheckNothingLeft() const { return bench::CheckNothingLeft(*fs_, local_dirs_); }

 private:
  BenchArea(std::shared_ptr<FileSystem> fs, bool real, std::string base)
      : fs_(std::move(fs)), real_(real), base_(std::move(base)) {}

  std::shared_ptr<FileSystem> fs_;
  bool real_;
  std::string base_;
  std::vector<std::string> local_dirs_;
};

}  // namespace spillway::bench

#endif  // SPILLWAY_BENCH_BENCH_AREA_H_
