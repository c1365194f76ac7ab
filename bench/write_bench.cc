// The write path: appending chunks through SpillWriter (with used_disk_space accounting
// and the limit check) against appending the same chunks without spillway on the same
// filesystem: plain write(2) on a file descriptor opened in the same directory for POSIX,
// and WritableFile::Append (the FileSystem alone, no accounting) for both filesystems.
// range(0): the chunk size in bytes. Bytes per second come from SetBytesProcessed.
//
// Every kRotateBytes each benchmark drops its file and starts a new one (outside the
// timed region), so a run never fills the disk.
#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "bench_env.h"
#include "spillway/spill/plan_disk_manager.h"
#include "spillway/spill/spill_file.h"
#include "spillway/spill/spill_writer.h"
#include "spillway/vfs/file_system.h"

namespace spillway::bench {
namespace {

constexpr uint64_t kRotateBytes = uint64_t{64} << 20;

void SetBytes(benchmark::State& state) {
  state.SetBytesProcessed(state.iterations() * state.range(0));
}

// SpillWriter::Write into a spill file of a plan with one local dir.
void BM_SpillWriterWrite(benchmark::State& state, FsKind kind) {
  StatusOr<BenchFs*> env = GetBenchFs(kind);
  if (!env.ok()) return Fail(state, env.status());
  PlanDiskManagerOptions options;
  options.spill.local_dirs = FirstLocalDirs(**env, 1);
  StatusOr<std::shared_ptr<PlanDiskManager>> plan =
      NewPlanDiskManager((*env)->fs, std::move(options));
  if (!plan.ok()) return Fail(state, plan.status());
  const std::string chunk(static_cast<size_t>(state.range(0)), 'x');

  std::optional<SpillWriter> writer;
  uint64_t written = kRotateBytes;  // Makes the first file on the first iteration.
  for (auto _ : state) {
    if (written >= kRotateBytes) {
      state.PauseTiming();
      writer.reset();  // Drops the previous file: removed, its bytes given back.
      StatusOr<SpillFile> file = (*plan)->CreateTempFile("bench");
      if (!file.ok()) {
        Fail(state, file.status());
        break;
      }
      writer.emplace(std::move(*file));
      written = 0;
      state.ResumeTiming();
    }
    Status s = writer->Write(chunk);
    if (!s.ok()) {
      Fail(state, s);
      break;
    }
    written += chunk.size();
  }
  SetBytes(state);
}

// WritableFile::Append on a file of the same filesystem, without accounting.
void BM_FileAppend(benchmark::State& state, FsKind kind) {
  StatusOr<BenchFs*> env = GetBenchFs(kind);
  if (!env.ok()) return Fail(state, env.status());
  FileSystem& fs = *(*env)->fs;
  const std::string dir = (*env)->local_dirs[1];
  const std::string chunk(static_cast<size_t>(state.range(0)), 'x');

  std::unique_ptr<WritableFile> file;
  uint64_t written = kRotateBytes;
  auto drop = [&]() -> Status {
    if (file == nullptr) return OkStatus();
    Status closed = file->Close();
    Status removed = fs.RemoveFile(file->path());
    file.reset();
    return closed.ok() ? removed : closed;
  };
  for (auto _ : state) {
    if (written >= kRotateBytes) {
      state.PauseTiming();
      Status dropped = drop();
      StatusOr<std::unique_ptr<WritableFile>> next = fs.CreateUniqueFile(dir, "append-");
      if (!dropped.ok() || !next.ok()) {
        Fail(state, dropped.ok() ? next.status() : dropped);
        break;
      }
      file = std::move(*next);
      written = 0;
      state.ResumeTiming();
    }
    AppendResult r = file->Append(chunk);
    if (!r.status.ok()) {
      Fail(state, r.status);
      break;
    }
    written += r.bytes_written;
  }
  Status dropped = drop();
  if (!dropped.ok()) Fail(state, dropped);
  SetBytes(state);
}

// Writes all of `data` to `fd` as plain code would: retrying short writes and EINTR.
// Returns 0 or the errno.
int WriteAll(int fd, const std::string& data) {
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    done += static_cast<size_t>(n);
  }
  return 0;
}

// Plain write(2) on a file descriptor opened (with the flags PosixFileSystem uses) in a
// local dir of the POSIX bench filesystem.
void BM_PlainWrite(benchmark::State& state) {
  StatusOr<BenchFs*> env = GetBenchFs(FsKind::kPosix);
  if (!env.ok()) return Fail(state, env.status());
  const std::string path = JoinPath((*env)->local_dirs[2], "plain-write");
  const std::string chunk(static_cast<size_t>(state.range(0)), 'x');

  int fd = -1;
  uint64_t written = kRotateBytes;
  auto drop = [&]() -> Status {
    if (fd < 0) return OkStatus();
    int close_error = ::close(fd) == 0 ? 0 : errno;
    fd = -1;
    if (close_error != 0) return Status::FromErrno(close_error, "close", path);
    if (::unlink(path.c_str()) != 0) return Status::FromErrno(errno, "unlink", path);
    return OkStatus();
  };
  for (auto _ : state) {
    if (written >= kRotateBytes) {
      state.PauseTiming();
      Status dropped = drop();
      if (!dropped.ok()) {
        Fail(state, dropped);
        break;
      }
      fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
      if (fd < 0) {
        Fail(state, Status::FromErrno(errno, "open", path));
        break;
      }
      written = 0;
      state.ResumeTiming();
    }
    if (int error = WriteAll(fd, chunk); error != 0) {
      Fail(state, Status::FromErrno(error, "write", path));
      break;
    }
    written += chunk.size();
  }
  Status dropped = drop();
  if (!dropped.ok()) Fail(state, dropped);
  SetBytes(state);
}

void ChunkArgs(benchmark::internal::Benchmark* b) {
  b->ArgName("chunk")->Arg(4 << 10)->Arg(64 << 10)->Arg(1 << 20)->UseRealTime();
}

BENCHMARK_CAPTURE(BM_SpillWriterWrite, posix, FsKind::kPosix)->Apply(ChunkArgs);
BENCHMARK_CAPTURE(BM_FileAppend, posix, FsKind::kPosix)->Apply(ChunkArgs);
BENCHMARK(BM_PlainWrite)->Apply(ChunkArgs);
BENCHMARK_CAPTURE(BM_SpillWriterWrite, mem, FsKind::kMem)->Apply(ChunkArgs);
BENCHMARK_CAPTURE(BM_FileAppend, mem, FsKind::kMem)->Apply(ChunkArgs);

}  // namespace
}  // namespace spillway::bench
