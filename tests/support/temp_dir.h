// TempDir: a fresh private directory on the real disk for one test, removed afterwards.
//
// Tests that run PosixFileSystem root it here, so they never touch anything but their own
// directory. The directory comes from mkdtemp(3) (mode 0700) under $TMPDIR (when absolute)
// or /tmp. Removal is recursive and never follows a symlink: a link inside is removed as a
// link, its target untouched. Directories whose permissions a test took away are given
// back first, so that they can be emptied.
//
// Thread safety: none needed; one test owns one TempDir.
#ifndef SPILLWAY_TESTS_SUPPORT_TEMP_DIR_H_
#define SPILLWAY_TESTS_SUPPORT_TEMP_DIR_H_

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

namespace spillway::test_support {

class TempDir {
 public:
  // Creates the directory. On failure path() is empty and error() says why.
  TempDir() {
    std::string base = "/tmp";
    if (const char* env = std::getenv("TMPDIR"); env != nullptr && env[0] == '/') base = env;
    std::string pattern = base + "/spillway-test-XXXXXX";
    if (::mkdtemp(pattern.data()) == nullptr) {
      error_ = "mkdtemp " + pattern + ": " + std::strerror(errno);
      return;
    }
    path_ = std::move(pattern);
  }

  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  ~TempDir() {
    if (!path_.empty()) RemoveAll(path_);
  }

  bool ok() const { return !path_.empty(); }
  // The absolute host path of the directory; empty when creation failed.
  const std::string& path() const { return path_; }
  const std::string& error() const { return error_; }

  // Removes `path` recursively without following symlinks, restoring owner permissions on
  // directories on the way down. Best effort: errors are ignored (what cannot be removed
  // stays behind in the temp dir).
  static void RemoveAll(const std::filesystem::path& path) {
    namespace fs = std::filesystem;
    std::error_code ec;
    const fs::file_status status = fs::symlink_status(path, ec);
    if (ec) return;
    if (fs::is_directory(status)) {
      fs::permissions(path, fs::perms::owner_all, fs::perm_options::add, ec);
      // Collect first: removing entries while iterating a directory is unspecified.
      std::vector<fs::path> children;
      for (fs::directory_iterator it(path, ec), end; !ec && it != end; it.increment(ec)) {
        children.push_back(it->path());
      }
      for (const fs::path& child : children) RemoveAll(child);
    }
    fs::remove(path, ec);
  }

 private:
  std::string path_;
  std::string error_;
};

}  // namespace spillway::test_support

#endif  // SPILLWAY_TESTS_SUPPORT_TEMP_DIR_H_
