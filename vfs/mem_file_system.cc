// MemFileSystem: an in-memory tree that answers as Linux does.
//
// Every operation runs under one mutex, so each call is atomic with respect to every other
// call, including appends through open files. Errors are produced in the order the kernel
// checks them: path-walk errors first (search permission on each directory walked, then
// ENAMETOOLONG, ENOENT, ENOTDIR for each component), then what is (or is not) at the last
// component (EEXIST, ENOENT), then permission on the parent or the file itself, then the
// type checks that Linux makes after permission (EISDIR of unlink, ENOTDIR of rmdir).
// Statuses name the op as PosixFileSystem does (OpKindName: "mkdir", "create", "list",
// "remove", ...) and the path as the caller gave it; CreateUnique* errors name the parent.

#include "spillway/vfs/mem_file_system.h"

#include <algorithm>
#include <cerrno>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace spillway {
namespace {

constexpr uint32_t kDirMode = 0700;
constexpr uint32_t kFileMode = 0600;
constexpr uint32_t kRootMode = 0755;
constexpr uint32_t kTmpMode = 01777;
constexpr uint32_t kModeMask = 07777;
constexpr uint32_t kOwnerRead = 0400;
constexpr uint32_t kOwnerWrite = 0200;
constexpr uint32_t kOwnerSearch = 0100;

constexpr size_t kNameMax = 255;   // NAME_MAX: longest path component.
constexpr size_t kPathMax = 4096;  // PATH_MAX: longest path, counting its NUL.

// Unique names (prefix + kUniqueNameLength characters of kUniqueNameAlphabet) are retried
// on collision as mkdtemp(3) does, this many times.
constexpr int kUniqueAttempts = 100;

constexpr std::string_view kTempDir = "/tmp";

// A directory or a regular file.
struct Inode {
  Inode(FileType t, uint32_t m) : type(t), mode(m) {}

  const FileType type;
  uint32_t mode;
  // Directories: entries by name (sorted, byte order).
  std::map<std::string, std::shared_ptr<Inode>, std::less<>> children;
  // Regular files: the contents (only when keep_contents), the size, whether a directory
  // still names the file, and how many WritableFiles have it open. The bytes count in
  // used_bytes() while the file is linked or open.
  std::string data;
  uint64_t size = 0;
  bool linked = true;
  int open_handles = 0;
  // Directories: the LockDir handle holding the lock (its id), 0 when none.
  uint64_t lock_holder = 0;
};

// Everything the filesystem and its open files share.
struct State {
  explicit State(const MemFileSystemOptions& opts)
      : options(opts),
        capacity(opts.capacity),
        rng(opts.seed),
        root(std::make_shared<Inode>(FileType::kDirectory, kRootMode)) {
    root->children.emplace(std::string(kTempDir.substr(1)),
                           std::make_shared<Inode>(FileType::kDirectory, kTmpMode));
  }

  const MemFileSystemOptions options;
  std::mutex mu;
  std::optional<uint64_t> capacity;   // Guarded by mu.
  uint64_t used = 0;                  // Guarded by mu.
  std::mt19937_64 rng;                // Guarded by mu.
  const std::shared_ptr<Inode> root;  // The tree below it is guarded by mu.
  uint64_t next_lock_id = 1;          // Guarded by mu.

  // True when permission bits are checked and `inode` lacks one of the owner bits `bits`.
  bool Denied(const Inode& inode, uint32_t bits) const {
    return options.enforce_permissions && (inode.mode & bits) != bits;
  }

  // A file's last link or last handle went away: its bytes leave the filesystem.
  // REQUIRES: mu held, !inode.linked, inode.open_handles == 0.
  void Release(Inode& inode) {
    used -= inode.size;
    inode.size = 0;
    std::string().swap(inode.data);
  }
};

// Where a path leads: the directory holding its last component, that component, and what
// is there now.
struct Resolved {
  Inode* parent = nullptr;      // nullptr for "/".
  std::string_view name;        // Empty for "/".
  std::shared_ptr<Inode> node;  // nullptr when nothing is there.
};

// Walks `path` as Linux's path walk does, up to and including the lookup of its last
// component: for each component, search permission on the directory it is in (EACCES),
// then its length (ENAMETOOLONG), then whether it exists (ENOENT) and, unless it is the
// last one, is a directory (ENOTDIR). A missing last component is not an error here.
// REQUIRES: ValidatePath(path) is OK, state.mu held.
Status Resolve(const State& state, std::string_view path, std::string_view op, Resolved* out) {
  if (path.size() >= kPathMax) return Status::FromErrno(ENAMETOOLONG, op, path);
  *out = Resolved{};
  if (path == "/") {
    out->node = state.root;
    return OkStatus();
  }
  Inode* dir = state.root.get();
  size_t start = 1;
  while (true) {
    const size_t slash = path.find('/', start);
    const bool last = slash == std::string_view::npos;
    const std::string_view name = path.substr(start, last ? std::string_view::npos : slash - start);
    if (state.Denied(*dir, kOwnerSearch)) return Status::FromErrno(EACCES, op, path);
    if (name.size() > kNameMax) return Status::FromErrno(ENAMETOOLONG, op, path);
    auto it = dir->children.find(name);
    if (last) {
      out->parent = dir;
      out->name = name;
      if (it != dir->children.end()) out->node = it->second;
      return OkStatus();
    }
    if (it == dir->children.end()) return Status::FromErrno(ENOENT, op, path);
    if (it->second->type != FileType::kDirectory) {
      return Status::FromErrno(ENOTDIR, op, path);
    }
    dir = it->second.get();
    start = slash + 1;
  }
}

class MemWritableFile final : public WritableFile {
 public:
  // REQUIRES: inode->open_handles already counts this handle.
  MemWritableFile(std::shared_ptr<State> state, std::shared_ptr<Inode> inode, std::string path)
      : state_(std::move(state)), inode_(std::move(inode)), path_(std::move(path)) {}

  ~MemWritableFile() override {
    std::lock_guard<std::mutex> lock(state_->mu);
    if (!closed_) CloseLocked();
  }

  const std::string& path() const override { return path_; }

  AppendResult Append(std::string_view data) override {
    std::lock_guard<std::mutex> lock(state_->mu);
    if (closed_) return {0, Status::FromErrno(EBADF, "write", path_)};
    uint64_t room = data.size();
    if (state_->capacity.has_value()) {
      const uint64_t free_bytes =
          state_->used >= *state_->capacity ? 0 : *state_->capacity - state_->used;
      room = std::min<uint64_t>(room, free_bytes);
    }
    if (state_->options.keep_contents) inode_->data.append(data.substr(0, room));
    inode_->size += room;
    state_->used += room;
    // As a POSIX append loop: a short write(2), then one that fails with ENOSPC. An empty
    // append writes nothing and so never fails.
    if (room < data.size()) return {room, Status::FromErrno(ENOSPC, "write", path_)};
    return {room, OkStatus()};
  }

  Status Sync() override {
    std::lock_guard<std::mutex> lock(state_->mu);
    if (closed_) return Status::FromErrno(EBADF, "sync", path_);
    return OkStatus();
  }

  StatusOr<uint64_t> Size() override {
    std::lock_guard<std::mutex> lock(state_->mu);
    if (closed_) return Status::FromErrno(EBADF, "size", path_);
    return inode_->size;
  }

  Status Close() override {
    std::lock_guard<std::mutex> lock(state_->mu);
    if (closed_) return Status::FromErrno(EBADF, "close", path_);
    CloseLocked();
    return OkStatus();
  }

 private:
  // REQUIRES: state_->mu held, !closed_.
  void CloseLocked() {
    closed_ = true;
    --inode_->open_handles;
    if (!inode_->linked && inode_->open_handles == 0) state_->Release(*inode_);
  }

  const std::shared_ptr<State> state_;
  const std::shared_ptr<Inode> inode_;
  const std::string path_;
  bool closed_ = false;  // Guarded by state_->mu.
};

// A LockDir handle: releases its directory's lock unless the lock has gone (a Crash, or
// the directory was removed) since.
class MemDirLock final : public DirLock {
 public:
  MemDirLock(std::shared_ptr<State> state, std::weak_ptr<Inode> dir, uint64_t id, std::string path)
      : state_(std::move(state)), dir_(std::move(dir)), id_(id), path_(std::move(path)) {}
  ~MemDirLock() override {
    std::lock_guard<std::mutex> lock(state_->mu);
    if (std::shared_ptr<Inode> dir = dir_.lock(); dir != nullptr && dir->lock_holder == id_) {
      dir->lock_holder = 0;
    }
  }

  const std::string& path() const override { return path_; }

 private:
  const std::shared_ptr<State> state_;
  const std::weak_ptr<Inode> dir_;
  const uint64_t id_;
  const std::string path_;
};

// Releases every lock in the tree below `dir`. REQUIRES: mu held.
void ReleaseLocks(Inode& dir) {
  dir.lock_holder = 0;
  for (auto& [name, child] : dir.children) {
    if (child->type == FileType::kDirectory) ReleaseLocks(*child);
  }
}

class MemFileSystemImpl final : public MemFileSystem {
 public:
  explicit MemFileSystemImpl(const MemFileSystemOptions& options)
      : state_(std::make_shared<State>(options)) {}

  Status CreateDir(const std::string& path) override {
    SPILLWAY_RETURN_IF_ERROR(ValidatePath(path));
    std::lock_guard<std::mutex> lock(state_->mu);
    return CreateDirLocked(path);
  }

  StatusOr<std::string> CreateUniqueDir(const std::string& parent,
                                        std::string_view prefix) override {
    SPILLWAY_RETURN_IF_ERROR(ValidatePath(parent));
    SPILLWAY_RETURN_IF_ERROR(ValidatePrefix(prefix));
    std::lock_guard<std::mutex> lock(state_->mu);
    Status status;
    for (int attempt = 0; attempt < kUniqueAttempts; ++attempt) {
      std::string path = JoinPath(parent, UniqueNameLocked(prefix));
      status = CreateDirLocked(path);
      if (status.ok()) return path;
      if (!status.IsErrno(EEXIST)) break;
    }
    // Errors concern the parent (missing, not a directory, not writable), so they name it.
    return Status::FromErrno(status.error_number(), "mkdir", parent);
  }

  StatusOr<std::unique_ptr<WritableFile>> CreateFile(const std::string& path) override {
    SPILLWAY_RETURN_IF_ERROR(ValidatePath(path));
    std::lock_guard<std::mutex> lock(state_->mu);
    return CreateFileLocked(path);
  }

  StatusOr<std::unique_ptr<WritableFile>> CreateUniqueFile(const std::string& dir,
                                                           std::string_view prefix) override {
    SPILLWAY_RETURN_IF_ERROR(ValidatePath(dir));
    SPILLWAY_RETURN_IF_ERROR(ValidatePrefix(prefix));
    std::lock_guard<std::mutex> lock(state_->mu);
    Status status;
    for (int attempt = 0; attempt < kUniqueAttempts; ++attempt) {
      StatusOr<std::unique_ptr<WritableFile>> file =
          CreateFileLocked(JoinPath(dir, UniqueNameLocked(prefix)));
      if (file.ok()) return file;
      status = file.status();
      if (!status.IsErrno(EEXIST)) break;
    }
    return Status::FromErrno(status.error_number(), "create", dir);
  }

  StatusOr<std::unique_ptr<WritableFile>> OpenForAppend(const std::string& path) override {
    SPILLWAY_RETURN_IF_ERROR(ValidatePath(path));
    std::lock_guard<std::mutex> lock(state_->mu);
    Resolved r;
    SPILLWAY_RETURN_IF_ERROR(Resolve(*state_, path, "open", &r));
    if (r.node == nullptr) return Status::FromErrno(ENOENT, "open", path);
    // may_open(): a directory opened for writing is EISDIR before any permission check.
    if (r.node->type == FileType::kDirectory) return Status::FromErrno(EISDIR, "open", path);
    if (state_->Denied(*r.node, kOwnerWrite)) return Status::FromErrno(EACCES, "open", path);
    return OpenLocked(r.node, path);
  }

  StatusOr<std::string> ReadFile(const std::string& path) override {
    SPILLWAY_RETURN_IF_ERROR(ValidatePath(path));
    std::lock_guard<std::mutex> lock(state_->mu);
    Resolved r;
    SPILLWAY_RETURN_IF_ERROR(Resolve(*state_, path, "read", &r));
    if (r.node == nullptr) return Status::FromErrno(ENOENT, "read", path);
    if (state_->Denied(*r.node, kOwnerRead)) return Status::FromErrno(EACCES, "read", path);
    // A directory opens read-only on Linux (so EACCES comes first); reading it fails.
    if (r.node->type == FileType::kDirectory) return Status::FromErrno(EISDIR, "read", path);
    if (!state_->options.keep_contents) return std::string(r.node->size, '\0');
    return r.node->data;
  }

  StatusOr<std::vector<DirEntry>> ListDir(const std::string& path) override {
    SPILLWAY_RETURN_IF_ERROR(ValidatePath(path));
    std::lock_guard<std::mutex> lock(state_->mu);
    return ListDirLocked(path);
  }

  StatusOr<FileStat> Stat(const std::string& path) override {
    SPILLWAY_RETURN_IF_ERROR(ValidatePath(path));
    std::lock_guard<std::mutex> lock(state_->mu);
    Resolved r;
    SPILLWAY_RETURN_IF_ERROR(Resolve(*state_, path, "stat", &r));
    if (r.node == nullptr) return Status::FromErrno(ENOENT, "stat", path);
    FileStat stat;
    stat.type = r.node->type;
    stat.size = r.node->type == FileType::kRegular ? r.node->size : 0;
    stat.mode = r.node->mode;
    return stat;
  }

  Status RemoveFile(const std::string& path) override {
    SPILLWAY_RETURN_IF_ERROR(ValidatePath(path));
    std::lock_guard<std::mutex> lock(state_->mu);
    return RemoveFileLocked(path);
  }

  Status RemoveDir(const std::string& path) override {
    SPILLWAY_RETURN_IF_ERROR(ValidatePath(path));
    std::lock_guard<std::mutex> lock(state_->mu);
    return RemoveDirLocked(path);
  }

  Status RemoveTree(const std::string& path) override {
    SPILLWAY_RETURN_IF_ERROR(ValidatePath(path));
    std::lock_guard<std::mutex> lock(state_->mu);
    return RemoveTreeLocked(path);
  }

  Status SetPermissions(const std::string& path, uint32_t mode) override {
    SPILLWAY_RETURN_IF_ERROR(ValidatePath(path));
    std::lock_guard<std::mutex> lock(state_->mu);
    Resolved r;
    SPILLWAY_RETURN_IF_ERROR(Resolve(*state_, path, "chmod", &r));
    if (r.node == nullptr) return Status::FromErrno(ENOENT, "chmod", path);
    // The caller owns every inode, so chmod never fails with EPERM here.
    r.node->mode = mode & kModeMask;
    return OkStatus();
  }

  std::string TempDir() override { return std::string(kTempDir); }

  StatusOr<std::unique_ptr<DirLock>> LockDir(const std::string& path) override {
    SPILLWAY_RETURN_IF_ERROR(ValidatePath(path));
    std::lock_guard<std::mutex> lock(state_->mu);
    Resolved r;
    SPILLWAY_RETURN_IF_ERROR(Resolve(*state_, path, "lock", &r));
    if (r.node == nullptr) return Status::FromErrno(ENOENT, "lock", path);
    if (r.node->type != FileType::kDirectory) return Status::FromErrno(ENOTDIR, "lock", path);
    if (state_->Denied(*r.node, kOwnerRead)) return Status::FromErrno(EACCES, "lock", path);
    if (r.node->lock_holder != 0) return Status::FromErrno(EWOULDBLOCK, "lock", path);
    const uint64_t id = state_->next_lock_id++;
    r.node->lock_holder = id;
    return std::unique_ptr<DirLock>(std::make_unique<MemDirLock>(state_, r.node, id, path));
  }

  void Crash() override {
    std::lock_guard<std::mutex> lock(state_->mu);
    ReleaseLocks(*state_->root);
  }

  void SetCapacity(std::optional<uint64_t> capacity) override {
    std::lock_guard<std::mutex> lock(state_->mu);
    state_->capacity = capacity;
  }

  uint64_t used_bytes() const override {
    std::lock_guard<std::mutex> lock(state_->mu);
    return state_->used;
  }

 private:
  // Each *Locked method REQUIRES: ValidatePath(path) is OK and state_->mu held.

  // mkdir(2): EEXIST when anything is there (even in a read-only parent), then EACCES.
  Status CreateDirLocked(const std::string& path) {
    Resolved r;
    SPILLWAY_RETURN_IF_ERROR(Resolve(*state_, path, "mkdir", &r));
    if (r.node != nullptr) return Status::FromErrno(EEXIST, "mkdir", path);
    if (state_->Denied(*r.parent, kOwnerWrite)) return Status::FromErrno(EACCES, "mkdir", path);
    r.parent->children.emplace(std::string(r.name),
                               std::make_shared<Inode>(FileType::kDirectory, kDirMode));
    return OkStatus();
  }

  // open(2) with O_CREAT|O_EXCL: EEXIST when anything is there, then EACCES.
  StatusOr<std::unique_ptr<WritableFile>> CreateFileLocked(const std::string& path) {
    Resolved r;
    SPILLWAY_RETURN_IF_ERROR(Resolve(*state_, path, "create", &r));
    if (r.node != nullptr) return Status::FromErrno(EEXIST, "create", path);
    if (state_->Denied(*r.parent, kOwnerWrite)) return Status::FromErrno(EACCES, "create", path);
    auto inode = std::make_shared<Inode>(FileType::kRegular, kFileMode);
    r.parent->children.emplace(std::string(r.name), inode);
    return OpenLocked(std::move(inode), path);
  }

  std::unique_ptr<WritableFile> OpenLocked(std::shared_ptr<Inode> inode, const std::string& path) {
    ++inode->open_handles;
    return std::make_unique<MemWritableFile>(state_, std::move(inode), path);
  }

  // opendir(3) (open with O_DIRECTORY|O_NOFOLLOW): ENOTDIR before EACCES.
  StatusOr<std::vector<DirEntry>> ListDirLocked(const std::string& path) {
    Resolved r;
    SPILLWAY_RETURN_IF_ERROR(Resolve(*state_, path, "list", &r));
    if (r.node == nullptr) return Status::FromErrno(ENOENT, "list", path);
    if (r.node->type != FileType::kDirectory) return Status::FromErrno(ENOTDIR, "list", path);
    if (state_->Denied(*r.node, kOwnerRead)) return Status::FromErrno(EACCES, "list", path);
    std::vector<DirEntry> entries;
    entries.reserve(r.node->children.size());
    for (const auto& [name, child] : r.node->children) entries.push_back({name, child->type});
    return entries;
  }

  // unlink(2): ENOENT, then EACCES on the parent, then EISDIR (may_delete's order).
  Status RemoveFileLocked(const std::string& path) {
    if (path == "/") return Status::FromErrno(EISDIR, "remove", path);
    Resolved r;
    SPILLWAY_RETURN_IF_ERROR(Resolve(*state_, path, "remove", &r));
    if (r.node == nullptr) return Status::FromErrno(ENOENT, "remove", path);
    if (state_->Denied(*r.parent, kOwnerWrite)) return Status::FromErrno(EACCES, "remove", path);
    if (r.node->type == FileType::kDirectory) return Status::FromErrno(EISDIR, "remove", path);
    r.parent->children.erase(r.parent->children.find(r.name));
    r.node->linked = false;
    if (r.node->open_handles == 0) state_->Release(*r.node);
    return OkStatus();
  }

  // rmdir(2): ENOENT, then EACCES on the parent, then ENOTDIR, then ENOTEMPTY.
  Status RemoveDirLocked(const std::string& path) {
    if (path == "/") return Status::FromErrno(EBUSY, "rmdir", path);
    Resolved r;
    SPILLWAY_RETURN_IF_ERROR(Resolve(*state_, path, "rmdir", &r));
    if (r.node == nullptr) return Status::FromErrno(ENOENT, "rmdir", path);
    if (state_->Denied(*r.parent, kOwnerWrite)) return Status::FromErrno(EACCES, "rmdir", path);
    if (r.node->type != FileType::kDirectory) return Status::FromErrno(ENOTDIR, "rmdir", path);
    if (!r.node->children.empty()) return Status::FromErrno(ENOTEMPTY, "rmdir", path);
    r.parent->children.erase(r.parent->children.find(r.name));
    return OkStatus();
  }

  // The steps of RemoveTreeByParts, taken under one lock so the removal is atomic.
  Status RemoveTreeLocked(const std::string& path) {
    StatusOr<std::vector<DirEntry>> entries = ListDirLocked(path);
    if (!entries.ok()) {
      if (entries.status().IsErrno(ENOTDIR)) return RemoveFileLocked(path);
      return entries.status();
    }
    for (const DirEntry& entry : *entries) {
      const std::string child = JoinPath(path, entry.name);
      SPILLWAY_RETURN_IF_ERROR(entry.type == FileType::kDirectory ? RemoveTreeLocked(child)
                                                                  : RemoveFileLocked(child));
    }
    return RemoveDirLocked(path);
  }

  // prefix + kUniqueNameLength characters drawn from the seeded generator.
  std::string UniqueNameLocked(std::string_view prefix) {
    std::string name(prefix);
    for (size_t i = 0; i < kUniqueNameLength; ++i) {
      name.push_back(kUniqueNameAlphabet[state_->rng() % kUniqueNameAlphabet.size()]);
    }
    return name;
  }

  const std::shared_ptr<State> state_;
};

}  // namespace

std::shared_ptr<MemFileSystem> NewMemFileSystem(MemFileSystemOptions options) {
  return std::make_shared<MemFileSystemImpl>(options);
}

}  // namespace spillway
