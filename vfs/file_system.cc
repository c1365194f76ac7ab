#include "spillway/vfs/file_system.h"

#include <cerrno>
#include <utility>

namespace spillway {

Status RemoveTreeByParts(FileSystem& fs, const std::string& path, const TreeStepGate& gate) {
  auto pass = [&gate](TreeStep step, const std::string& p) {
    return gate != nullptr ? gate(step, p) : OkStatus();
  };
  SPILLWAY_RETURN_IF_ERROR(pass(TreeStep::kList, path));
  StatusOr<std::vector<DirEntry>> entries = fs.ListDir(path);
  if (!entries.ok()) {
    // A file or symlink is removed as itself; anything else is the listing's error.
    if (!entries.status().IsErrno(ENOTDIR)) return entries.status();
    SPILLWAY_RETURN_IF_ERROR(pass(TreeStep::kRemove, path));
    return fs.RemoveFile(path);
  }
  for (const DirEntry& entry : *entries) {
    const std::string child = JoinPath(path, entry.name);
    Status removed = entry.type == FileType::kDirectory ? RemoveTreeByParts(fs, child, gate)
                                                        : pass(TreeStep::kRemove, child);
    if (removed.ok() && entry.type != FileType::kDirectory) removed = fs.RemoveFile(child);
    // A child that is already gone is what the removal wanted (as rm -rf).
    if (!removed.ok() && !removed.IsErrno(ENOENT)) return removed;
  }
  SPILLWAY_RETURN_IF_ERROR(pass(TreeStep::kRmdir, path));
  return fs.RemoveDir(path);
}

Status FileSystem::RemoveTreeGated(const std::string& path, const TreeStepGate& gate) {
  return RemoveTreeByParts(*this, path, gate);
}

FileSystemWrapper::FileSystemWrapper(std::shared_ptr<FileSystem> target)
    : target_(std::move(target)) {}

Status FileSystemWrapper::CreateDir(const std::string& path) { return target_->CreateDir(path); }
StatusOr<std::string> FileSystemWrapper::CreateUniqueDir(const std::string& parent,
                                                         std::string_view prefix) {
  return target_->CreateUniqueDir(parent, prefix);
}
StatusOr<std::unique_ptr<WritableFile>> FileSystemWrapper::CreateFile(const std::string& path) {
  return target_->CreateFile(path);
}
StatusOr<std::unique_ptr<WritableFile>> FileSystemWrapper::CreateUniqueFile(
    const std::string& dir, std::string_view prefix) {
  return target_->CreateUniqueFile(dir, prefix);
}
StatusOr<std::unique_ptr<WritableFile>> FileSystemWrapper::OpenForAppend(const std::string& path) {
  return target_->OpenForAppend(path);
}
StatusOr<std::string> FileSystemWrapper::ReadFile(const std::string& path) {
  return target_->ReadFile(path);
}
StatusOr<std::vector<DirEntry>> FileSystemWrapper::ListDir(const std::string& path) {
  return target_->ListDir(path);
}
StatusOr<FileStat> FileSystemWrapper::Stat(const std::string& path) { return target_->Stat(path); }
Status FileSystemWrapper::RemoveFile(const std::string& path) { return target_->RemoveFile(path); }
Status FileSystemWrapper::RemoveDir(const std::string& path) { return target_->RemoveDir(path); }
Status FileSystemWrapper::RemoveTreeGated(const std::string& path, const TreeStepGate& gate) {
  return target_->RemoveTreeGated(path, gate);
}
Status FileSystemWrapper::RemoveTree(const std::string& path) { return target_->RemoveTree(path); }
Status FileSystemWrapper::SetPermissions(const std::string& path, uint32_t mode) {
  return target_->SetPermissions(path, mode);
}
std::string FileSystemWrapper::TempDir() { return target_->TempDir(); }

StatusOr<std::unique_ptr<DirLock>> FileSystemWrapper::LockDir(const std::string& path) {
  return target_->LockDir(path);
}

StatusOr<std::unique_ptr<DirLock>> FileSystem::LockDir(const std::string& path) {
  return Status::FromErrno(ENOTSUP, "lock", path);
}

Status ValidatePath(std::string_view path) {
  auto bad = [&](std::string_view why) {
    return Status::InvalidArgument("bad path \"" + std::string(path) + "\": " + std::string(why));
  };
  if (path.empty() || path.front() != '/') return bad("not absolute");
  if (path == "/") return OkStatus();
  if (path.back() == '/') return bad("trailing '/'");
  size_t start = 1;
  while (start <= path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    std::string_view part = path.substr(start, end - start);
    if (part.empty()) return bad("empty component");
    if (part == "." || part == "..") return bad("'.' or '..' component");
    if (part.find('\0') != std::string_view::npos) return bad("NUL byte");
    start = end + 1;
  }
  return OkStatus();
}

Status ValidatePrefix(std::string_view prefix) {
  if (prefix.find('/') != std::string_view::npos || prefix.find('\0') != std::string_view::npos) {
    return Status::InvalidArgument("bad unique-name prefix \"" + std::string(prefix) +
                                   "\": it must not contain '/' or a NUL byte");
  }
  return OkStatus();
}

std::string ParentPath(std::string_view path) {
  size_t slash = path.rfind('/');
  if (slash == std::string_view::npos || slash == 0) return "/";
  return std::string(path.substr(0, slash));
}

std::string BaseName(std::string_view path) {
  size_t slash = path.rfind('/');
  if (slash == std::string_view::npos) return std::string(path);
  return std::string(path.substr(slash + 1));
}

std::string JoinPath(std::string_view dir, std::string_view name) {
  std::string out(dir);
  if (out.empty() || out.back() != '/') out.push_back('/');
  out.append(name);
  return out;
}

}  // namespace spillway
