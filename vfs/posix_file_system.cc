#include "spillway/vfs/posix_file_system.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <algorithm>
#include <cassert>
#include <cerrno>
#include <cstdlib>
#include <functional>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "spillway/vfs/read_file_in_chunks.h"

namespace spillway {
namespace {

// Attempts at a fresh unique name (kUniqueNameLength characters of kUniqueNameAlphabet
// drawn from getrandom(2): 62^6 names, about 36 bits) before giving up with EEXIST. A
// collision is rare unless someone floods the directory on purpose.
constexpr int kMaxUniqueNameAttempts = 100;

// The one place where an errno becomes a Status. `virtual_path` is the path the caller
// passed (never the root-prefixed one), so errors read the same with or without a root.
Status PosixError(int error_number, std::string_view op, std::string_view virtual_path) {
  return Status::FromErrno(error_number, op, virtual_path);
}

FileType FileTypeFromMode(mode_t mode) {
  if (S_ISREG(mode)) return FileType::kRegular;
  if (S_ISDIR(mode)) return FileType::kDirectory;
  if (S_ISLNK(mode)) return FileType::kSymlink;
  return FileType::kOther;
}

// The type of a directory entry from d_type; nullopt when the filesystem did not say
// (DT_UNKNOWN) and the caller must fstatat.
std::optional<FileType> FileTypeFromDirent(unsigned char d_type) {
  switch (d_type) {
    case DT_REG:
      return FileType::kRegular;
    case DT_DIR:
      return FileType::kDirectory;
    case DT_LNK:
      return FileType::kSymlink;
    case DT_UNKNOWN:
      return std::nullopt;
    default:
      return FileType::kOther;
  }
}

// Closes `fd`, keeping errno intact (used on error paths where the first error matters).
void CloseQuietly(int fd) {
  const int saved = errno;
  ::close(fd);
  errno = saved;
}

// Reads the entries of the open directory `fd` (taking ownership of it) into `out`, sorted
// by name, with the type of each entry itself. Returns 0 or an errno.
int ReadDirEntries(int fd, std::vector<DirEntry>* out) {
  DIR* dir = ::fdopendir(fd);
  if (dir == nullptr) {
    CloseQuietly(fd);
    return errno;
  }
  int error = 0;
  while (true) {
    errno = 0;
    const dirent* entry = ::readdir(dir);
    if (entry == nullptr) {
      error = errno;
      break;
    }
    const std::string_view name = entry->d_name;
    if (name == "." || name == "..") continue;
    std::optional<FileType> type = FileTypeFromDirent(entry->d_type);
    if (!type.has_value()) {
      struct stat st;
      if (::fstatat(::dirfd(dir), entry->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
        // An entry removed since readdir returned it is simply no longer listed.
        if (errno == ENOENT) continue;
        error = errno;
        break;
      }
      type = FileTypeFromMode(st.st_mode);
    }
    out->push_back(DirEntry{std::string(name), *type});
  }
  ::closedir(dir);
  if (error != 0) return error;
  std::sort(out->begin(), out->end(),
            [](const DirEntry& a, const DirEntry& b) { return a.name < b.name; });
  return 0;
}

// `length` characters drawn uniformly from kUniqueNameAlphabet using getrandom(2).
// Returns 0 or an errno.
int RandomName(size_t length, std::string* out) {
  out->clear();
  // Bytes >= 248 are rejected so that every character is equally likely (248 = 4 * 62).
  constexpr std::string_view kAlphabet = kUniqueNameAlphabet;
  constexpr unsigned kAcceptBelow = 256 - 256 % kAlphabet.size();
  unsigned char buf[32];
  while (out->size() < length) {
    const ssize_t n = ::getrandom(buf, sizeof(buf), 0);
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    for (ssize_t i = 0; i < n && out->size() < length; ++i) {
      if (buf[i] < kAcceptBelow) out->push_back(kAlphabet[buf[i] % kAlphabet.size()]);
    }
  }
  return 0;
}

class PosixWritableFile final : public WritableFile {
 public:
  PosixWritableFile(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}

  ~PosixWritableFile() override {
    // Errors are dropped, as the interface documents; Close() reports them.
    if (fd_ >= 0) ::close(fd_);
  }

  const std::string& path() const override { return path_; }

  AppendResult Append(std::string_view data) override {
    // Shared: appends may run concurrently with each other (O_APPEND keeps each write
    // whole at the end), but never with Close(), so the fd number is never reused under us.
    std::shared_lock lock(mu_);
    if (fd_ < 0) return AppendResult{0, PosixError(EBADF, "write", path_)};
    uint64_t written = 0;
    while (written < data.size()) {
      const ssize_t n = ::write(fd_, data.data() + written, data.size() - written);
      if (n < 0) {
        if (errno == EINTR) continue;
        return AppendResult{written, PosixError(errno, "write", path_)};
      }
      if (n == 0) {
        // write(2) to a regular file does not return 0 for a non-empty buffer; should it,
        // retrying would spin forever.
        return AppendResult{written, PosixError(EIO, "write", path_)};
      }
      written += static_cast<uint64_t>(n);
    }
    return AppendResult{written, OkStatus()};
  }

  Status Sync() override {
    std::shared_lock lock(mu_);
    if (fd_ < 0) return PosixError(EBADF, "sync", path_);
    while (::fsync(fd_) != 0) {
      if (errno != EINTR) return PosixError(errno, "sync", path_);
    }
    return OkStatus();
  }

  StatusOr<uint64_t> Size() override {
    std::shared_lock lock(mu_);
    if (fd_ < 0) return PosixError(EBADF, "size", path_);
    struct stat st;
    if (::fstat(fd_, &st) != 0) return PosixError(errno, "size", path_);
    return static_cast<uint64_t>(st.st_size);
  }

  Status Close() override {
    std::unique_lock lock(mu_);
    if (fd_ < 0) return PosixError(EBADF, "close", path_);
    const int fd = std::exchange(fd_, -1);
    // On Linux the descriptor is released even when close fails, so it is never retried;
    // EINTR means only that the close was interrupted after releasing it.
    if (::close(fd) != 0 && errno != EINTR) return PosixError(errno, "close", path_);
    return OkStatus();
  }

 private:
  // Guards fd_: shared for I/O, exclusive for Close().
  std::shared_mutex mu_;
  int fd_;  // -1 once closed.
  const std::string path_;
};

// A held flock(2) on a directory's open descriptor; closing the descriptor releases it.
class PosixDirLock final : public DirLock {
 public:
  PosixDirLock(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}
  ~PosixDirLock() override { ::close(fd_); }

  const std::string& path() const override { return path_; }

 private:
  const int fd_;
  const std::string path_;
};

class PosixFileSystem final : public FileSystem {
 public:
  // TempDir() is chosen here, once, so that later calls read no shared state ($TMPDIR).
  explicit PosixFileSystem(PosixFileSystemOptions options)
      : root_(NormalizeRoot(std::move(options.root))),
        temp_dir_(ChooseTempDir(options.temp_dir, !root_.empty())) {}

  Status CreateDir(const std::string& path) override {
    SPILLWAY_RETURN_IF_ERROR(ValidatePath(path));
    if (::mkdir(Real(path).c_str(), kDirMode) != 0) return PosixError(errno, "mkdir", path);
    return OkStatus();
  }

  StatusOr<std::string> CreateUniqueDir(const std::string& parent,
                                        std::string_view prefix) override {
    SPILLWAY_RETURN_IF_ERROR(ValidatePath(parent));
    SPILLWAY_RETURN_IF_ERROR(ValidatePrefix(prefix));
    std::string name;
    for (int attempt = 0; attempt < kMaxUniqueNameAttempts; ++attempt) {
      if (int error = RandomName(kUniqueNameLength, &name); error != 0) {
        return PosixError(error, "mkdir", parent);
      }
      std::string path = JoinPath(parent, std::string(prefix) + name);
      if (::mkdir(Real(path).c_str(), kDirMode) == 0) return path;
      // Errors concern the parent (missing, not a directory, not writable), so they name it.
      if (errno != EEXIST) return PosixError(errno, "mkdir", parent);
    }
    return PosixError(EEXIST, "mkdir", parent);
  }

  StatusOr<std::unique_ptr<WritableFile>> CreateFile(const std::string& path) override {
    SPILLWAY_RETURN_IF_ERROR(ValidatePath(path));
    const int fd = ::open(Real(path).c_str(), kCreateFlags, kFileMode);
    if (fd < 0) return PosixError(errno, "create", path);
    return std::unique_ptr<WritableFile>(std::make_unique<PosixWritableFile>(fd, path));
  }

  StatusOr<std::unique_ptr<WritableFile>> CreateUniqueFile(const std::string& dir,
                                                           std::string_view prefix) override {
    SPILLWAY_RETURN_IF_ERROR(ValidatePath(dir));
    SPILLWAY_RETURN_IF_ERROR(ValidatePrefix(prefix));
    std::string name;
    for (int attempt = 0; attempt < kMaxUniqueNameAttempts; ++attempt) {
      if (int error = RandomName(kUniqueNameLength, &name); error != 0) {
        return PosixError(error, "create", dir);
      }
      std::string path = JoinPath(dir, std::string(prefix) + name);
      const int fd = ::open(Real(path).c_str(), kCreateFlags, kFileMode);
      if (fd >= 0) {
        return std::unique_ptr<WritableFile>(
            std::make_unique<PosixWritableFile>(fd, std::move(path)));
      }
      if (errno != EEXIST) return PosixError(errno, "create", dir);
    }
    return PosixError(EEXIST, "create", dir);
  }

  StatusOr<std::unique_ptr<WritableFile>> OpenForAppend(const std::string& path) override {
    SPILLWAY_RETURN_IF_ERROR(ValidatePath(path));
    // O_NONBLOCK so that a FIFO at `path` cannot hang the call; it has no effect on a
    // regular file, which is all this returns.
    const int fd =
        ::open(Real(path).c_str(), O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) return PosixError(errno, "open", path);
    if (int error = RequireRegular(fd); error != 0) {
      ::close(fd);
      return PosixError(error, "open", path);
    }
    return std::unique_ptr<WritableFile>(std::make_unique<PosixWritableFile>(fd, path));
  }

  StatusOr<std::string> ReadFile(const std::string& path) override {
    return ReadInChunks(path, nullptr);
  }

  // ReadFile, calling `on_read` (when set) after every read (read_file_in_chunks.h).
  StatusOr<std::string> ReadInChunks(const std::string& path,
                                     const std::function<void(std::string_view)>& on_read) {
    SPILLWAY_RETURN_IF_ERROR(ValidatePath(path));
    const int fd = ::open(Real(path).c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) return PosixError(errno, "read", path);
    struct stat st;
    int error = ::fstat(fd, &st) == 0 ? 0 : errno;
    if (error == 0 && S_ISDIR(st.st_mode)) error = EISDIR;
    if (error == 0 && !S_ISREG(st.st_mode)) error = EINVAL;
    std::string contents;
    if (error == 0) {
      contents.reserve(static_cast<size_t>(st.st_size));
      char buf[64 * 1024];
      while (true) {
        const ssize_t n = ::read(fd, buf, sizeof(buf));
        if (n < 0) {
          if (errno == EINTR) continue;
          error = errno;
          break;
        }
        if (n == 0) break;
        contents.append(buf, static_cast<size_t>(n));
        if (on_read) on_read(contents);
      }
    }
    ::close(fd);
    if (error != 0) return PosixError(error, "read", path);
    return contents;
  }

  StatusOr<std::vector<DirEntry>> ListDir(const std::string& path) override {
    SPILLWAY_RETURN_IF_ERROR(ValidatePath(path));
    const int fd = ::open(Real(path).c_str(), kOpenDirFlags);
    if (fd < 0) return PosixError(errno, "list", path);
    std::vector<DirEntry> entries;
    if (int error = ReadDirEntries(fd, &entries); error != 0) {
      return PosixError(error, "list", path);
    }
    return entries;
  }

  StatusOr<FileStat> Stat(const std::string& path) override {
    SPILLWAY_RETURN_IF_ERROR(ValidatePath(path));
    struct stat st;
    if (::lstat(Real(path).c_str(), &st) != 0) return PosixError(errno, "stat", path);
    return ToFileStat(st);
  }

  Status RemoveFile(const std::string& path) override {
    SPILLWAY_RETURN_IF_ERROR(ValidatePath(path));
    if (::unlink(Real(path).c_str()) != 0) return PosixError(errno, "remove", path);
    return OkStatus();
  }

  Status RemoveDir(const std::string& path) override {
    SPILLWAY_RETURN_IF_ERROR(ValidatePath(path));
    // The root directory cannot be removed; under a root, "/" is the root itself and gets
    // the answer Linux gives for "/".
    if (path == "/" && !root_.empty()) return PosixError(EBUSY, "rmdir", path);
    if (::rmdir(Real(path).c_str()) != 0) return PosixError(errno, "rmdir", path);
    return OkStatus();
  }

  Status RemoveTree(const std::string& path) override { return RemoveTreeGated(path, nullptr); }

  Status RemoveTreeGated(const std::string& path, const TreeStepGate& gate) override {
    SPILLWAY_RETURN_IF_ERROR(ValidatePath(path));
    // Mirrors RemoveTreeByParts: list the path as a directory; anything that is not one
    // (a file, a symlink: O_NOFOLLOW makes a link ENOTDIR here) is unlinked as itself.
    SPILLWAY_RETURN_IF_ERROR(Pass(gate, TreeStep::kList, path));
    const int fd = ::open(Real(path).c_str(), kOpenDirFlags);
    if (fd < 0) {
      if (errno != ENOTDIR) return PosixError(errno, "list", path);
      SPILLWAY_RETURN_IF_ERROR(Pass(gate, TreeStep::kRemove, path));
      if (::unlink(Real(path).c_str()) != 0) return PosixError(errno, "remove", path);
      return OkStatus();
    }
    SPILLWAY_RETURN_IF_ERROR(RemoveContents(fd, path, gate));
    SPILLWAY_RETURN_IF_ERROR(Pass(gate, TreeStep::kRmdir, path));
    return RemoveDir(path);
  }

  Status SetPermissions(const std::string& path, uint32_t mode) override {
    SPILLWAY_RETURN_IF_ERROR(ValidatePath(path));
    const std::string real = Real(path);
    const mode_t bits = static_cast<mode_t>(mode & 07777);
    if (::fchmodat(AT_FDCWD, real.c_str(), bits, AT_SYMLINK_NOFOLLOW) == 0) return OkStatus();
    if (errno != EOPNOTSUPP) return PosixError(errno, "chmod", path);
    // EOPNOTSUPP: either `path` is a symlink (whose mode Linux cannot change), or this
    // libc could not change a non-link without following (e.g. /proc is not mounted). In
    // the second case, check the type and chmod.
    struct stat st;
    if (::lstat(real.c_str(), &st) != 0) return PosixError(errno, "chmod", path);
    if (S_ISLNK(st.st_mode)) return PosixError(EOPNOTSUPP, "chmod", path);
    if (::chmod(real.c_str(), bits) != 0) return PosixError(errno, "chmod", path);
    return OkStatus();
  }

  std::string TempDir() override { return temp_dir_; }

  StatusOr<std::unique_ptr<DirLock>> LockDir(const std::string& path) override {
    SPILLWAY_RETURN_IF_ERROR(ValidatePath(path));
    const int fd = ::open(Real(path).c_str(), kOpenDirFlags);
    // A final symlink is ELOOP under O_NOFOLLOW; it is reported as ListDir reports it.
    if (fd < 0) return PosixError(errno == ELOOP ? ENOTDIR : errno, "lock", path);
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      const int error = errno;
      ::close(fd);
      return PosixError(error, "lock", path);
    }
    return std::unique_ptr<DirLock>(std::make_unique<PosixDirLock>(fd, path));
  }

 private:
  static constexpr mode_t kDirMode = 0700;
  static constexpr mode_t kFileMode = 0600;
  static constexpr int kCreateFlags =
      O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_WRONLY | O_APPEND;
  static constexpr int kOpenDirFlags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;

  // Drops trailing '/' so that root_ + "/a" is well formed; a root of "/" is no root.
  static std::string NormalizeRoot(std::string root) {
    assert(root.empty() || root.front() == '/');
    while (!root.empty() && root.back() == '/') root.pop_back();
    return root;
  }

  static std::string ChooseTempDir(const std::string& configured, bool rooted) {
    if (!configured.empty()) return configured;
    if (rooted) return "/tmp";
    if (const char* env = std::getenv("TMPDIR"); env != nullptr) {
      std::string dir = env;
      while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
      // Only a usable absolute path; a relative or malformed one falls back to "/tmp".
      if (ValidatePath(dir).ok()) return dir;
    }
    return "/tmp";
  }

  static FileStat ToFileStat(const struct stat& st) {
    FileStat out;
    out.type = FileTypeFromMode(st.st_mode);
    out.size = S_ISREG(st.st_mode) ? static_cast<uint64_t>(st.st_size) : 0;
    out.mode = static_cast<uint32_t>(st.st_mode & 07777);
    return out;
  }

  // 0 when `fd` is a regular file; EISDIR for a directory; EINVAL for anything else.
  static int RequireRegular(int fd) {
    struct stat st;
    if (::fstat(fd, &st) != 0) return errno;
    if (S_ISDIR(st.st_mode)) return EISDIR;
    if (!S_ISREG(st.st_mode)) return EINVAL;
    return 0;
  }

  // The host path of virtual path `path`.
  std::string Real(const std::string& path) const {
    if (root_.empty()) return path;
    if (path == "/") return root_;
    return root_ + path;
  }

  // The gate's answer for a step; OK without a gate.
  static Status Pass(const TreeStepGate& gate, TreeStep step, const std::string& path) {
    return gate != nullptr ? gate(step, path) : OkStatus();
  }

  // Removes everything inside the open directory `fd` (taking ownership of it), whose
  // virtual path is `path`, asking `gate` before each step, working relative to the
  // descriptor so that nothing is looked up through a symlink. Entries are handled in
  // name order, so the first error is the one RemoveTreeByParts would meet. One
  // descriptor stays open per level of depth, so a tree deeper than the descriptor limit
  // fails with EMFILE (the trees spillway makes are two levels deep).
  Status RemoveContents(int fd, const std::string& path, const TreeStepGate& gate) {
    // ReadDirEntries consumes a descriptor; keep `fd` for the unlinkat calls below.
    const int list_fd = ::dup(fd);
    if (list_fd < 0) {
      CloseQuietly(fd);
      return PosixError(errno, "list", path);
    }
    std::vector<DirEntry> entries;
    if (int error = ReadDirEntries(list_fd, &entries); error != 0) {
      ::close(fd);
      return PosixError(error, "list", path);
    }
    Status status;
    for (const DirEntry& entry : entries) {
      status = RemoveEntry(fd, entry, JoinPath(path, entry.name), gate);
      // A child that is already gone is what the removal wanted (as rm -rf).
      if (status.IsErrno(ENOENT)) status = OkStatus();
      if (!status.ok()) break;
    }
    ::close(fd);
    return status;
  }

  // Removes the entry `entry` of directory `parent_fd`, whose virtual path is `path`,
  // asking `gate` before each step.
  Status RemoveEntry(int parent_fd, const DirEntry& entry, const std::string& path,
                     const TreeStepGate& gate) {
    const char* name = entry.name.c_str();
    if (entry.type == FileType::kDirectory) {
      SPILLWAY_RETURN_IF_ERROR(Pass(gate, TreeStep::kList, path));
      const int fd = ::openat(parent_fd, name, kOpenDirFlags);
      if (fd >= 0) {
        SPILLWAY_RETURN_IF_ERROR(RemoveContents(fd, path, gate));
        SPILLWAY_RETURN_IF_ERROR(Pass(gate, TreeStep::kRmdir, path));
        if (::unlinkat(parent_fd, name, AT_REMOVEDIR) != 0) {
          return PosixError(errno, "rmdir", path);
        }
        return OkStatus();
      }
      // Replaced by a non-directory (say a symlink) since it was listed: unlink that.
      if (errno != ENOTDIR) return PosixError(errno, "list", path);
    }
    SPILLWAY_RETURN_IF_ERROR(Pass(gate, TreeStep::kRemove, path));
    if (::unlinkat(parent_fd, name, 0) != 0) return PosixError(errno, "remove", path);
    return OkStatus();
  }

  const std::string root_;      // Host directory "/" maps to; empty for the host's "/".
  const std::string temp_dir_;  // What TempDir() returns.
};

}  // namespace

std::shared_ptr<FileSystem> NewPosixFileSystem(PosixFileSystemOptions options) {
  return std::make_shared<PosixFileSystem>(std::move(options));
}

StatusOr<std::string> ReadFileInChunks(FileSystem& fs, const std::string& path,
                                       const std::function<void(std::string_view)>& on_read) {
  if (auto* posix = dynamic_cast<PosixFileSystem*>(&fs)) return posix->ReadInChunks(path, on_read);
  StatusOr<std::string> contents = fs.ReadFile(path);
  if (contents.ok() && !contents->empty()) on_read(*contents);
  return contents;
}

}  // namespace spillway
