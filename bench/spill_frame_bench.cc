// What framing spill files costs (SpillOptions::frame_spill_files): the same batches
// written through SpillWriter and read back through SpillReader by a manager that frames
// and by one that does not, side by side on POSIX; and the two checksums RocksDB offers
// for its blocks, ISA-L's CRC-32C and xxHash's XXH3, side by side on the same bytes (the
// frame uses the faster: docs/performance.md). XXH3 is timed through both of Debian's
// entries: XXH3_64bits (built for SSE2) and the x86 dispatcher's, which picks the widest
// vector unit the CPU has. range(0): the batch size in bytes. Bytes per second come from
// SetBytesProcessed.
#include <benchmark/benchmark.h>
#include <isa-l/crc.h>
#include <xxhash.h>
#if defined(__x86_64__)
#include <xxh_x86dispatch.h>
#endif

#include <cstdint>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <utility>

#include "bench_env.h"
#include "spillway/spill/disk_manager.h"
#include "spillway/spill/spill_file.h"
#include "spillway/spill/spill_reader.h"
#include "spillway/spill/spill_writer.h"

namespace spillway::bench {
namespace {

// Each iteration writes, or reads back, one file of kFileBytes in batches of range(0);
// making and removing the file are not timed.
constexpr uint64_t kFileBytes = uint64_t{16} << 20;

// `n` bytes of noise, the same every time.
std::string Batch(int64_t n) {
  std::mt19937_64 gen(42);
  std::string batch(static_cast<size_t>(n), '\0');
  for (char& c : batch) c = static_cast<char>(gen());
  return batch;
}

// A manager over the first local dir of the POSIX bench filesystem, framing or not.
StatusOr<std::shared_ptr<DiskManager>> Manager(bool framed) {
  StatusOr<BenchFs*> env = GetBenchFs(FsKind::kPosix);
  if (!env.ok()) return env.status();
  return DiskManagerBuilder()
      .WithDirectories(FirstLocalDirs(**env, 1))
      .WithFrameSpillFiles(framed)
      .Build((*env)->fs);
}

// SpillWriter::Write of a file's batches.
void BM_SpillWrite(benchmark::State& state, bool framed) {
  StatusOr<std::shared_ptr<DiskManager>> manager = Manager(framed);
  if (!manager.ok()) return Fail(state, manager.status());
  const std::string batch = Batch(state.range(0));
  for (auto _ : state) {
    state.PauseTiming();
    StatusOr<SpillFile> file = (*manager)->CreateTempFile("bench");
    if (!file.ok()) {
      Fail(state, file.status());
      break;
    }
    std::optional<SpillWriter> writer(std::in_place, std::move(*file));
    state.ResumeTiming();
    Status written;
    for (uint64_t n = 0; n < kFileBytes && written.ok(); n += batch.size()) {
      written = writer->Write(batch);
    }
    state.PauseTiming();
    writer.reset();  // Holds the only copy of the file: removes it, untimed.
    state.ResumeTiming();
    if (!written.ok()) {
      Fail(state, written);
      break;
    }
  }
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(kFileBytes));
}

// SpillReader over a file's batches, every batch checked when framed.
void BM_SpillRead(benchmark::State& state, bool framed) {
  StatusOr<std::shared_ptr<DiskManager>> manager = Manager(framed);
  if (!manager.ok()) return Fail(state, manager.status());
  StatusOr<SpillFile> file = (*manager)->CreateTempFile("bench");
  if (!file.ok()) return Fail(state, file.status());
  const std::string batch = Batch(state.range(0));
  SpillWriter writer(*file);
  for (uint64_t n = 0; n < kFileBytes; n += batch.size()) {
    if (Status s = writer.Write(batch); !s.ok()) return Fail(state, s);
  }
  for (auto _ : state) {
    StatusOr<std::unique_ptr<SpillReader>> reader = NewSpillReader(*file);
    if (!reader.ok()) {
      Fail(state, reader.status());
      break;
    }
    for (;;) {
      StatusOr<std::optional<std::string_view>> next = (*reader)->Next();
      if (!next.ok()) {
        Fail(state, next.status());
        break;
      }
      if (!next->has_value()) break;
      benchmark::DoNotOptimize((*next)->data());
    }
  }
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(kFileBytes));
}

void BM_Crc32c(benchmark::State& state) {
  std::string batch = Batch(state.range(0));
  auto* bytes = reinterpret_cast<unsigned char*>(batch.data());
  for (auto _ : state) {
    benchmark::DoNotOptimize(crc32_iscsi(bytes, static_cast<int>(batch.size()), 0xffffffff));
  }
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

// BatchArgs, and the two larger sizes plus a frame header's 20 bytes: what a plain write
// costs once it is no longer page-aligned, as every framed write is.
void UnalignedArgs(benchmark::internal::Benchmark* b) {
  BatchArgs(b);
  b->Arg((64 << 10) + 20)->Arg((1 << 20) + 20);
}

BENCHMARK_CAPTURE(BM_SpillWrite, plain, false)->Apply(UnalignedArgs);
BENCHMARK_CAPTURE(BM_SpillWrite, framed, true)->Apply(BatchArgs);
BENCHMARK_CAPTURE(BM_SpillRead, plain, false)->Apply(BatchArgs);
BENCHMARK_CAPTURE(BM_SpillRead, framed, true)->Apply(BatchArgs);
BENCHMARK(BM_Crc32c)->Apply(BatchArgs);
BENCHMARK(BM_Xxh3)->Apply(BatchArgs);
#if defined(__x86_64__)
BENCHMARK(BM_Xxh3Dispatch)->Apply(BatchArgs);
#endif

}  // namespace
}  // namespace spillway::bench
