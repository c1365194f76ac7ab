#include "run_spool.h"

#include <fmt/format.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <cerrno>
#include <exception>
#include <optional>

#include "run_json.h"

namespace spillway::program_sweep {
namespace {

// The error of a failed stdio call on the spool file `name` (EIO when stdio set no errno).
Status SpoolError(std::string_view op, const std::string& name) {
  return Status::FromErrno(errno != 0 ? errno : EIO, op, name);
}

}  // namespace

StatusOr<std::shared_ptr<RunSpool>> RunSpool::Create(const std::string& dir, int writers,
                                                     Depth depth) {
  std::vector<File> files;
  auto close_all = [&files] {
    for (File& f : files) std::fclose(f.file);
  };
  for (int w = 0; w < writers; ++w) {
    std::string name = fmt::format("{}/runs-{}-XXXXXX", dir, w);
    const int fd = mkstemp(name.data());
    std::FILE* file = fd < 0 ? nullptr : fdopen(fd, "w+");
    if (file == nullptr) {
      const Status error = SpoolError("make the runs' spool", name);
      if (fd >= 0) close(fd);
      close_all();
      return error;
    }
    unlink(name.c_str());
    files.push_back({file, std::move(name)});
  }
  return std::shared_ptr<RunSpool>(new RunSpool(std::move(files), depth));
}

RunSpool::RunSpool(std::vector<File> files, Depth depth)
    : files_(std::move(files)), depth_(depth) {}

RunSpool::~RunSpool() {
  for (File& f : files_) std::fclose(f.file);
}

Status RunSpool::Append(int writer, const RunResult& run) {
  const File& f = files_[static_cast<size_t>(writer)];
  const std::string line = RunJson(run).dump() + "\n";
  errno = 0;
  if (std::fwrite(line.data(), 1, line.size(), f.file) != line.size()) {
    return SpoolError("write the runs' spool", f.name);
  }
  return OkStatus();
}

Status RunSpool::Flush() {
  for (const File& f : files_) {
    errno = 0;
    if (std::fflush(f.file) != 0) return SpoolError("write the runs' spool", f.name);
  }
  return OkStatus();
}

bool RunSpool::ReadRun(const File& file, RunResult* run, Status* status) const {
  char* buffer = nullptr;
  size_t capacity = 0;
  errno = 0;
  const ssize_t length = getline(&buffer, &capacity, file.file);
  const std::unique_ptr<char, decltype(&free)> owned(buffer, &free);
  if (length < 0) {
    if (std::ferror(file.file)) {
      *status = SpoolError("read the runs' spool", file.name);
    }
    return false;
  }
  const nlohmann::json j =
      nlohmann::json::parse(buffer, buffer + length, nullptr, /*allow_exceptions=*/false);
  try {
    if (j.is_discarded()) throw std::invalid_argument("not JSON");
    *run = RunFromJson(j, depth_);
    return true;
  } catch (const std::exception& e) {
    *status = Status(StatusCode::kUnknown,
                     fmt::format("the runs' spool {}: a line is no run: {}", file.name, e.what()));
    return false;
  }
}

Status RunSpool::ForEach(const std::function<void(const RunResult&)>& visit) const {
  // The next run of each file; a file whose run is gone is at its end.
  std::vector<std::optional<RunResult>> heads(files_.size());
  Status status;
  for (size_t i = 0; i < files_.size(); ++i) {
    errno = 0;
    if (std::fseek(files_[i].file, 0, SEEK_SET) != 0) {
      return SpoolError("read the runs' spool", files_[i].name);
    }
    heads[i].emplace();
    if (!ReadRun(files_[i], &*heads[i], &status)) heads[i].reset();
    SPILLWAY_RETURN_IF_ERROR(status);
  }
  for (;;) {
    size_t next = heads.size();
    for (size_t i = 0; i < heads.size(); ++i) {
      if (heads[i] && (next == heads.size() || heads[i]->spec.index < heads[next]->spec.index)) {
        next = i;
      }
    }
    if (next == heads.size()) break;
    visit(*heads[next]);
    if (!ReadRun(files_[next], &*heads[next], &status)) heads[next].reset();
    SPILLWAY_RETURN_IF_ERROR(status);
  }
  // Further appends go after the runs read.
  for (const File& f : files_) {
    if (std::fseek(f.file, 0, SEEK_END) != 0) {
      return SpoolError("read the runs' spool", f.name);
    }
  }
  return OkStatus();
}

}  // namespace spillway::program_sweep
