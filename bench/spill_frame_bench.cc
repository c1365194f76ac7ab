// What framing spill files costs (SpillOptions::frame_spill_files) with each of the two
// checksums RocksDB offers for its blocks, xxHash's XXH3 and ISA-L's CRC-32C, and so which
// the frame uses (spill_frame.h, docs/performance.md). BM_SpillFrameCost writes and reads
// back the same batches on POSIX through the writer's and the reader's own path
// (internal::WriteSpillBatch, internal::NewSpillReader: what SpillWriter and SpillReader
// run with the chosen checksum), plain and framed with each checksum, side by side within
// each iteration, and reports the ratios. BM_Crc32c and BM_Xxh3* time the checksums alone
// on the same bytes; XXH3 through both of Debian's entries, XXH3_64bits (built for SSE2)
// and the x86 dispatcher's, which picks the widest vector unit the CPU has (the frame's).
// range(0): the batch size in bytes.
#include <benchmark/benchmark.h>
#include <isa-l/crc.h>
#include <xxhash.h>
#if defined(__x86_64__)
#include <xxh_x86dispatch.h>
#endif

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <ctime>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "bench_env.h"
#include "spill_frame.h"
#include "spillway/spill/disk_manager.h"
#include "spillway/spill/spill_file.h"
#include "spillway/spill/spill_reader.h"
#include "spillway/spill/spill_writer.h"

namespace spillway::bench {
namespace {

// Each side writes, or reads back, one file of kFileBytes in batches of range(0); making
// and removing the file are not timed.
constexpr uint64_t kFileBytes = uint64_t{16} << 20;

// `n` bytes of noise, the same every time.
std::string Batch(int64_t n) {
  std::mt19937_64 gen(42);
  std::string batch(static_cast<size_t>(n), '\0');
  for (char& c : batch) c = static_cast<char>(gen());
  return batch;
}

// The candidate checksums, as a frame stores them. CRC-32C starts from all ones, as
// iSCSI's does.
uint64_t Crc32c(std::string_view bytes) {
  return crc32_iscsi(reinterpret_cast<unsigned char*>(const_cast<char*>(bytes.data())),
                     static_cast<int>(bytes.size()), 0xffffffff);
}

// XXH3-64 through the x86 dispatcher: the frame's own checksum.
constexpr internal::SpillFrameChecksum kXxh3 = internal::SpillFrameHash;

// A manager over the first local dir of the POSIX bench filesystem, framing or not.
StatusOr<std::shared_ptr<DiskManager>> Manager(bool framed) {
  StatusOr<BenchFs*> env = GetBenchFs(FsKind::kPosix);
  if (!env.ok()) return env.status();
  return DiskManagerBuilder()
      .WithDirectories(FirstLocalDirs(**env, 1))
      .WithFrameSpillFiles(framed)
      .Build((*env)->fs);
}

// One side of a comparison: plain (`checksum` null, a manager that does not frame) or
// framed with `checksum`, writing batches of `batch_bytes`; its CPU and wall time per
// round.
struct Side {
  Side(internal::SpillFrameChecksum c, int64_t n) : checksum(c), batch_bytes(n) {}

  internal::SpillFrameChecksum checksum;
  int64_t batch_bytes;
  std::shared_ptr<DiskManager> manager;
  std::optional<SpillFile> file;  // The file a read reads back.
  std::vector<double> cpu_ms;
  std::vector<double> wall_ms;
};

double Median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values.empty() ? 0 : values[values.size() / 2];
}

double ThreadCpuMs() {
  timespec now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) * 1e3 + static_cast<double>(now.tv_nsec) / 1e6;
}

double WallMs() {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Writes a file of kFileBytes in `side`'s batches of `batch`.
Status WriteFile(Side& side, const SpillFile& file, std::string_view batch) {
  for (uint64_t n = 0; n < kFileBytes; n += batch.size()) {
    SPILLWAY_RETURN_IF_ERROR(internal::WriteSpillBatch(file, batch, side.checksum));
  }
  return OkStatus();
}

// Reads `side`'s file back through its reader, taking every batch.
Status ReadFile(Side& side) {
  StatusOr<std::unique_ptr<SpillReader>> reader =
      internal::NewSpillReader(*side.file, side.checksum);
  if (!reader.ok()) return reader.status();
  for (;;) {
    StatusOr<std::optional<std::string_view>> next = (*reader)->Next();
    if (!next.ok()) return next.status();
    if (!next->has_value()) return OkStatus();
    benchmark::DoNotOptimize((*next)->data());
  }
}

// One timed write (a new file, removed untimed) or read of `side`.
Status Round(Side& side, const std::string& batch, bool write) {
  std::optional<SpillFile> made;
  if (write) {
    StatusOr<SpillFile> file = side.manager->CreateTempFile("bench");
    if (!file.ok()) return file.status();
    made.emplace(std::move(*file));
  }
  const std::string_view bytes(batch.data(), static_cast<size_t>(side.batch_bytes));
  const double cpu = ThreadCpuMs();
  const double wall = WallMs();
  SPILLWAY_RETURN_IF_ERROR(write ? WriteFile(side, *made, bytes) : ReadFile(side));
  side.cpu_ms.push_back(ThreadCpuMs() - cpu);
  side.wall_ms.push_back(WallMs() - wall);
  return OkStatus();
}

// Framing's cost, side by side: each iteration writes (or reads back) one file of
// kFileBytes plain, framed with XXH3 and framed with CRC-32C, in an order that rotates
// from one iteration to the next, so that the machine's load falls on all alike. Writing
// also times a plain file in batches 20 bytes (a header) longer, no longer page-aligned.
// Counters: each side's median CPU time per file (the thread's, kernel time included),
// and the medians of each iteration's ratio to plain, CPU and wall. range(0): the batch.
void BM_SpillFrameCost(benchmark::State& state, bool write) {
  const int64_t batch_bytes = state.range(0);
  const std::string batch = Batch(batch_bytes + 20);
  std::vector<Side> sides = {{nullptr, batch_bytes}, {kXxh3, batch_bytes}, {Crc32c, batch_bytes}};
  if (write) sides.push_back({nullptr, batch_bytes + 20});
  for (Side& side : sides) {
    StatusOr<std::shared_ptr<DiskManager>> manager = Manager(side.checksum != nullptr);
    if (!manager.ok()) return Fail(state, manager.status());
    side.manager = *manager;
    if (write) continue;
    StatusOr<SpillFile> file = side.manager->CreateTempFile("bench");
    if (!file.ok()) return Fail(state, file.status());
    side.file.emplace(std::move(*file));
    if (Status s = WriteFile(side, *side.file, std::string_view(batch).substr(0, batch_bytes));
        !s.ok()) {
      return Fail(state, s);
    }
  }
  size_t first = 0;
  for (auto _ : state) {
    for (size_t i = 0; i < sides.size(); ++i) {
      if (Status s = Round(sides[(first + i) % sides.size()], batch, write); !s.ok()) {
        return Fail(state, s);
      }
    }
    first = (first + 1) % sides.size();
  }
  // The median of the iterations' ratios of `times` to plain's `base`.
  const auto ratio_to_plain = [](const std::vector<double>& times,
                                 const std::vector<double>& base) {
    std::vector<double> ratios;
    for (size_t i = 0; i < times.size(); ++i) ratios.push_back(times[i] / base[i]);
    return Median(std::move(ratios));
  };
  const char* names[] = {"plain", "xxh3", "crc32c", "unaligned"};
  for (size_t i = 0; i < sides.size(); ++i) {
    state.counters[std::string(names[i]) + "_cpu_ms"] = Median(sides[i].cpu_ms);
    if (i == 0) continue;
    state.counters[std::string(names[i]) + "_cpu_ratio"] =
        ratio_to_plain(sides[i].cpu_ms, sides[0].cpu_ms);
    state.counters[std::string(names[i]) + "_wall_ratio"] =
        ratio_to_plain(sides[i].wall_ms, sides[0].wall_ms);
  }
}

void BM_Crc32c(benchmark::State& state) {
  const std::string batch = Batch(state.range(0));
  for (auto _ : state) benchmark::DoNotOptimize(Crc32c(batch));
  state.SetBytesProcessed(state.iterations() * state.range(0));
}

void BM_Xxh3(benchmark::State& state) {
  const std::string batch = Batch(state.range(0));
  for (auto _ : state) benchmark::DoNotOptimize(XXH3_64bits(batch.data(), batch.size()));
  state.SetBytesProcessed(state.iterations() * state.range(0));
}

#if defined(__x86_64__)
void BM_Xxh3Dispatch(benchmark::State& state) {
  const std::string batch = Batch(state.range(0));
  for (auto _ : state) benchmark::DoNotOptimize(XXH3_64bits_dispatch(batch.data(), batch.size()));
  state.SetBytesProcessed(state.iterations() * state.range(0));
}
#endif

void BatchArgs(benchmark::internal::Benchmark* b) {
  b->ArgName("batch")->Arg(4 << 10)->Arg(64 << 10)->Arg(1 << 20)->UseRealTime();
}

BENCHMARK_CAPTURE(BM_SpillFrameCost, write, true)->Apply(BatchArgs);
BENCHMARK_CAPTURE(BM_SpillFrameCost, read, false)->Apply(BatchArgs);
BENCHMARK(BM_Crc32c)->Apply(BatchArgs);
BENCHMARK(BM_Xxh3)->Apply(BatchArgs);
#if defined(__x86_64__)
BENCHMARK(BM_Xxh3Dispatch)->Apply(BatchArgs);
#endif

}  // namespace
}  // namespace spillway::bench
