#include "spillway/vfs/process_file_system.h"

#include <atomic>
#include <cerrno>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace spillway {
namespace {

class ProcessFileSystemImpl final : public ProcessFileSystem {
 public:
  using ProcessFileSystem::ProcessFileSystem;

  void Kill() override { dead_.store(true); }
  bool dead() const override { return dead_.load(); }

  Status CreateDir(const std::string& path) override {
    return dead() ? Dead("mkdir", path) : FileSystemWrapper::CreateDir(path);
  }
  StatusOr<std::string> CreateUniqueDir(const std::string& parent,
                                        std::string_view prefix) override {
    if (dead()) return Dead("mkdir", parent);
    return FileSystemWrapper::CreateUniqueDir(parent, prefix);
  }
  StatusOr<std::unique_ptr<WritableFile>> CreateFile(const std::string& path) override {
    if (dead()) return Dead("create", path);
    return FileSystemWrapper::CreateFile(path);
  }
  StatusOr<std::unique_ptr<WritableFile>> CreateUniqueFile(const std::string& dir,
                                                           std::string_view prefix) override {
    if (dead()) return Dead("create", dir);
    return FileSystemWrapper::CreateUniqueFile(dir, prefix);
  }
  StatusOr<std::unique_ptr<WritableFile>> OpenForAppend(const std::string& path) override {
    if (dead()) return Dead("open", path);
    return FileSystemWrapper::OpenForAppend(path);
  }
  StatusOr<std::string> ReadFile(const std::string& path) override {
    if (dead()) return Dead("read", path);
    return FileSystemWrapper::ReadFile(path);
  }
  StatusOr<std::vector<DirEntry>> ListDir(const std::string& path) override {
    if (dead()) return Dead("list", path);
    return FileSystemWrapper::ListDir(path);
  }
  StatusOr<FileStat> Stat(const std::string& path) override {
    if (dead()) return Dead("stat", path);
    return FileSystemWrapper::Stat(path);
  }
  Status RemoveFile(const std::string& path) override {
    return dead() ? Dead("remove", path) : FileSystemWrapper::RemoveFile(path);
  }
  Status RemoveDir(const std::string& path) override {
    return dead() ? Dead("rmdir", path) : FileSystemWrapper::RemoveDir(path);
  }
  Status RemoveTree(const std::string& path) override {
    return dead() ? Dead("remove", path) : FileSystemWrapper::RemoveTree(path);
  }
  Status SetPermissions(const std::string& path, uint32_t mode) override {
    return dead() ? Dead("chmod", path) : FileSystemWrapper::SetPermissions(path, mode);
  }
  StatusOr<std::unique_ptr<DirLock>> LockDir(const std::string& path) override {
    if (dead()) return Dead("lock", path);
    return FileSystemWrapper::LockDir(path);
  }

 private:
  static Status Dead(std::string_view op, const std::string& path) {
    return Status::FromErrno(ESRCH, op, path);
  }

  std::atomic<bool> dead_{false};
};

}  // namespace

std::shared_ptr<ProcessFileSystem> NewProcessFileSystem(std::shared_ptr<FileSystem> target) {
  return std::make_shared<ProcessFileSystemImpl>(std::move(target));
}

}  // namespace spillway
