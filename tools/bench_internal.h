// Internal to `spillway bench`: what bench_command.cc (eager against lazy plans) and
// first_spill_bench.cc (a lazy plan's first spill, layout=all against layout=each) share.
#ifndef SPILLWAY_TOOLS_BENCH_INTERNAL_H_
#define SPILLWAY_TOOLS_BENCH_INTERNAL_H_

#include <algorithm>
#include <cstddef>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "spillway/bench/plan_workload.h"
#include "spillway/vfs/file_system.h"
#include "spillway/vfs/status.h"

namespace spillway::tools {

struct BenchFlags {
  std::vector<int> dirs{1, 4, 8};
  std::vector<int> threads{1, 2, 8};
  std::string fs = "posix";
  std::string root;
  int plans = 0;       // Eager plans per thread per batch; 0: sized by batch_ms.
  int lazy_plans = 0;  // Lazy plans per thread per batch; 0: sized by batch_ms.
  int batch_ms = 100;
  int repetitions = 5;
  bool json = false;
};

inline double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// The filesystem under test, a private directory on it, and the local dirs inside that.
// The destructor removes the private directory (bench_area.cc).
class BenchArea final {
 public:
  // `real` says that `fs` is the host's filesystem (PosixFileSystem without a root), so
  // that Settle() can sync it. Errors: making the private directory or a local dir.
  static StatusOr<std::unique_ptr<BenchArea>> Make(std::shared_ptr<FileSystem> fs, bool real,
                                                   const std::string& parent, int local_dirs);

  ~BenchArea();

  const std::shared_ptr<FileSystem>& fs() const { return fs_; }
  const std::string& base() const { return base_; }

  // Lets the previous batch's aftermath pass before the next batch is timed: on a real
  // filesystem, writes back its metadata (syncfs) and idles briefly, so that journal
  // commits and writeback threads started by an eager batch do not steal the CPU from the
  // batch after it. Best effort: a failed sync only makes the next batch noisier.
  void Settle() const;
  std::vector<std::string> LocalDirs(int n) const {
    return std::vector<std::string>(local_dirs_.begin(), local_dirs_.begin() + n);
  }

  // Checks that every local dir is empty: every plan removed its spill directories.
  Status CheckNothingLeft() const { return bench::CheckNothingLeft(*fs_, local_dirs_); }

 private:
  BenchArea(std::shared_ptr<FileSystem> fs, bool real, std::string base)
      : fs_(std::move(fs)), real_(real), base_(std::move(base)) {}

  std::shared_ptr<FileSystem> fs_;
  bool real_;
  std::string base_;
  std::vector<std::string> local_dirs_;
};

// ---------------------------------------------------------------------------------------
// The first-spill table (first_spill_bench.cc).

// A lazy plan's first spill, layout=all against layout=each, at one local dir count.
struct FirstSpillResult {
  int dirs = 0;
  std::vector<double> all_ns;  // Per first spill, one sample per repetition.
  std::vector<double> each_ns;
  bench::FirstSpillCalls all_calls;
  bench::FirstSpillCalls each_calls;
};

// Measures a lazy plan's first spill with `dirs` local dirs of `area`, layout=all and
// layout=each in interleaved batches, and counts its calls; then checks that nothing is
// left. Errors: the first failing call's.
StatusOr<FirstSpillResult> MeasureFirstSpill(const BenchArea& area, int dirs,
                                             const BenchFlags& flags);
// One local dir count's first spills as an entry of the JSON document's "first_spill".
nlohmann::ordered_json FirstSpillJson(const FirstSpillResult& r);
// The first-spill table, on stdout.
void PrintFirstSpillTable(const std::vector<FirstSpillResult>& results);

}  // namespace spillway::tools

#endif  // SPILLWAY_TOOLS_BENCH_INTERNAL_H_
