// The filesystems the benchmarks run on, and the directories they use.
//
// The POSIX benchmarks work in a private directory ("spillway-bench-XXXXXX") created on
// first use under the bench dir: the --spillway_bench_dir=DIR flag, else the environment
// variable SPILLWAY_BENCH_DIR, else the system temp dir. RemoveBenchDirs() removes it at
// the end of the run. The in-memory benchmarks use one shared MemFileSystem.
//
// Thread safety: every function may be called concurrently (the set-up happens once).
#ifndef SPILLWAY_BENCH_BENCH_ENV_H_
#define SPILLWAY_BENCH_BENCH_ENV_H_

#include <benchmark/benchmark.h>

#include <memory>
#include <string>
#include <vector>

#include "spillway/vfs/file_system.h"
#include "spillway/vfs/status.h"
#include "spillway/vocab/vocab.h"

namespace spillway::bench {

// The filesystems, "mem" and "posix": the shared vocabulary's (spillway/vocab/vocab.h).
using vocab::FsKind;
using vocab::FsKindName;

// The most local dirs any benchmark asks for.
inline constexpr int kMaxLocalDirs = 8;

struct BenchFs {
  std::shared_ptr<FileSystem> fs;
  // A private directory on `fs` for this run (an absolute path of `fs`).
  std::string base;
  // kMaxLocalDirs existing directories below `base` ("local0", ...): Spark's local dirs.
  std::vector<std::string> local_dirs;
};

// Sets the directory the POSIX private directory is made in. REQUIRES: called before
// the first GetBenchFs(FsKind::kPosix).
void SetBenchDir(std::string dir);

// The filesystem of `kind`, set up on first use. Errors: the private directory or a local
// dir could not be created (the POSIX error with its path), or a bad bench dir.
StatusOr<BenchFs*> GetBenchFs(FsKind kind);

// The first `n` local dirs of `env`. REQUIRES: 1 <= n <= kMaxLocalDirs.
std::vector<std::string> FirstLocalDirs(const BenchFs& env, int n);

// Ends the benchmark `state` (every thread of it) with `error` as its message, and
// records that the run failed.
void Fail(benchmark::State& state, const Status& error);
// True when any benchmark called Fail().
bool AnyFailed();

// Removes the POSIX private directory, if one was made, and reports a failure on stderr.
// Returns false when something was left behind.
bool RemoveBenchDirs();

}  // namespace spillway::bench

#endif  // SPILLWAY_BENCH_BENCH_ENV_H_
