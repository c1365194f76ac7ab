#include "bench_env.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <optional>
#include <string>
#include <system_error>
#include <utility>

#include "spillway/vfs/mem_file_system.h"
#include "spillway/vfs/posix_file_system.h"

namespace spillway::bench {
namespace {

struct EnvState {
  std::mutex mu;
  std::string bench_dir;  // Empty: SPILLWAY_BENCH_DIR, else the system temp dir.
  std::optional<BenchFs> posix;
  std::optional<BenchFs> mem;
};

std::atomic<bool> any_failed{false};

EnvState& State() {
  static EnvState state;
  return state;
}

// An absolute path in the FileSystem convention (no trailing '/', no "." or "..").
StatusOr<std::string> NormalizeDir(const std::string& dir) {
  std::error_code ec;
  std::filesystem::path abs = std::filesystem::absolute(dir, ec);
  if (ec) return Status::InvalidArgument("bench dir \"" + dir + "\": " + ec.message());
  std::string out = abs.lexically_normal().string();
  while (out.size() > 1 && out.back() == '/') out.pop_back();
  SPILLWAY_RETURN_IF_ERROR(ValidatePath(out));
  return out;
}

// Makes the private dir and its local dirs under `parent` of `fs`.
StatusOr<BenchFs> MakeBenchFs(std::shared_ptr<FileSystem> fs, const std::string& parent) {
  StatusOr<std::string> base = fs->CreateUniqueDir(parent, "spillway-bench-");
  if (!base.ok()) return base.status();
  BenchFs env{std::move(fs), *base, {}};
  for (int i = 0; i < kMaxLocalDirs; ++i) {
    std::string dir = JoinPath(env.base, "local" + std::to_string(i));
    Status s = env.fs->CreateDir(dir);
    if (!s.ok()) {
      Status cleanup = env.fs->RemoveTree(env.base);
      if (!cleanup.ok()) {
        std::fprintf(stderr, "spillway_bench: left behind: %s\n", cleanup.ToString().c_str());
      }
      return s;
    }
    env.local_dirs.push_back(std::move(dir));
  }
  return env;
}

}  // namespace

void SetBenchDir(std::string dir) {
  EnvState& state = State();
  std::lock_guard<std::mutex> lock(state.mu);
  state.bench_dir = std::move(dir);
}

StatusOr<BenchFs*> GetBenchFs(FsKind kind) {
  EnvState& state = State();
  std::lock_guard<std::mutex> lock(state.mu);
  if (kind == FsKind::kMem) {
    if (!state.mem) {
      StatusOr<BenchFs> env = MakeBenchFs(NewMemFileSystem(), "/tmp");
      if (!env.ok()) return env.status();
      state.mem = std::move(*env);
    }
    return &*state.mem;
  }
  if (!state.posix) {
    std::shared_ptr<FileSystem> fs = NewPosixFileSystem();
    std::string dir = state.bench_dir;
    if (dir.empty()) {
      const char* env_dir = std::getenv("SPILLWAY_BENCH_DIR");
      dir = (env_dir != nullptr && *env_dir != '\0') ? env_dir : fs->TempDir();
    }
    StatusOr<std::string> parent = NormalizeDir(dir);
    if (!parent.ok()) return parent.status();
    StatusOr<BenchFs> env = MakeBenchFs(std::move(fs), *parent);
    if (!env.ok()) return env.status();
    state.posix = std::move(*env);
  }
  return &*state.posix;
}

std::vector<std::string> FirstLocalDirs(const BenchFs& env, int n) {
  return std::vector<std::string>(env.local_dirs.begin(), env.local_dirs.begin() + n);
}

void Fail(benchmark::State& state, const Status& error) {
  any_failed.store(true);
  state.SkipWithError(error.ToString().c_str());
}

bool AnyFailed() { return any_failed.load(); }

bool RemoveBenchDirs() {
  EnvState& state = State();
  std::lock_guard<std::mutex> lock(state.mu);
  if (!state.posix) return true;
  Status s = state.posix->fs->RemoveTree(state.posix->base);
  state.posix.reset();
  if (!s.ok()) {
    std::fprintf(stderr, "spillway_bench: left behind: %s\n", s.ToString().c_str());
    return false;
  }
  return true;
}

}  // namespace spillway::bench
