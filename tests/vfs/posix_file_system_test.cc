// What only PosixFileSystem can show: symlinks (which MemFileSystem does not have), real
// modes on disk, the randomness of unique names, the root option, O_NOFOLLOW, TempDir()'s
// choice, appends cut short by the kernel, and a tree removal (the fault injector's too)
// that does not follow a subdirectory swapped for a symlink. The common contract is in
// the file_system_conformance_*_test.cc files.
#include "spillway/vfs/posix_file_system.h"

#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "spillway/vfs/fault_injecting_file_system.h"
#include "spillway/vfs/file_system.h"
#include "spillway/vfs/status.h"
#include "support/file_helpers.h"
#include "support/status_matchers.h"
#include "support/temp_dir.h"

namespace spillway {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::SizeIs;
using ::testing::StartsWith;

using test_support::WriteNewFile;

// The host's view of a path: nullopt when lstat fails.
std::optional<struct stat> HostLstat(const std::string& path) {
  struct stat st;
  if (::lstat(path.c_str(), &st) != 0) return std::nullopt;
  return st;
}

// Host file access that does not go through the code under test.
std::optional<std::string> HostReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream contents;
  contents << in.rdbuf();
  return contents.str();
}

bool HostWriteFile(const std::string& path, std::string_view contents) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << contents;
  out.close();
  return !out.fail();
}

// Sets the process umask for the scope.
class ScopedUmask {
 public:
  explicit ScopedUmask(mode_t mask) : saved_(::umask(mask)) {}
  ~ScopedUmask() { ::umask(saved_); }

 private:
  mode_t saved_;
};

// Sets (or, with nullopt, unsets) an environment variable for the scope.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, std::optional<std::string> value) : name_(name) {
    if (const char* old = std::getenv(name); old != nullptr) saved_ = old;
    if (value.has_value()) {
      ::setenv(name, value->c_str(), 1);
    } else {
      ::unsetenv(name);
    }
  }
  ~ScopedEnv() {
    if (saved_.has_value()) {
      ::setenv(name_, saved_->c_str(), 1);
    } else {
      ::unsetenv(name_);
    }
  }

 private:
  const char* name_;
  std::optional<std::string> saved_;
};

class PosixFileSystemTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(root_.ok()) << root_.error();
    ASSERT_TRUE(outside_.ok()) << outside_.error();
    PosixFileSystemOptions options;
    options.root = root_.path();
    fs_ = NewPosixFileSystem(options);
  }

  // The host path of virtual path `path` under the root.
  std::string Host(std::string_view path) const { return root_.path() + std::string(path); }

  test_support::TempDir root_;     // The filesystem's "/".
  test_support::TempDir outside_;  // Host files the filesystem must never touch.
  std::shared_ptr<FileSystem> fs_;
};

// --- Symlinks -------------------------------------------------------------------------

TEST_F(PosixFileSystemTest, RemoveTreeRemovesPlantedSymlinksAsLinks) {
  // Targets outside the tree: a file and a directory with contents.
  const std::string target_file = outside_.path() + "/precious";
  const std::string target_dir = outside_.path() + "/precious_dir";
  ASSERT_EQ(::mkdir(target_dir.c_str(), 0700), 0);
  ASSERT_TRUE(HostWriteFile(target_file, "keep me"));
  ASSERT_TRUE(HostWriteFile(target_dir + "/inner", "and me"));

  ASSERT_THAT(fs_->CreateDir("/spill"), IsOk());
  ASSERT_THAT(fs_->CreateDir("/spill/sub"), IsOk());
  ASSERT_THAT(WriteNewFile(*fs_, "/spill/data", "spilled"), IsOk());
  ASSERT_EQ(::symlink(target_file.c_str(), Host("/spill/to_file").c_str()), 0);
  ASSERT_EQ(::symlink(target_dir.c_str(), Host("/spill/sub/to_dir").c_str()), 0);

  StatusOr<std::vector<DirEntry>> listed = fs_->ListDir("/spill");
  ASSERT_THAT(listed, IsOk());
  EXPECT_THAT(*listed, ElementsAre(DirEntry{"data", FileType::kRegular},
                                   DirEntry{"sub", FileType::kDirectory},
                                   DirEntry{"to_file", FileType::kSymlink}));

  ASSERT_THAT(fs_->RemoveTree("/spill"), IsOk());
  EXPECT_FALSE(HostLstat(Host("/spill")).has_value());
  EXPECT_EQ(HostReadFile(target_file), "keep me");
  EXPECT_EQ(HostReadFile(target_dir + "/inner"), "and me");
  std::optional<struct stat> dir = HostLstat(target_dir);
  ASSERT_TRUE(dir.has_value());
  EXPECT_TRUE(S_ISDIR(dir->st_mode));
}

// /t/sub/x/file, and outside the root a directory whose x/keep a walk through a link
// planted at /t/sub would reach. The gate swaps /t/sub for that link once /t/sub has been
// listed, just before /t/sub/x is: the moment a removal that looks every path up again
// would follow it.
class SwappedSubdirTest : public PosixFileSystemTest {
 protected:
  void SetUp() override {
    PosixFileSystemTest::SetUp();
    victim_ = outside_.path() + "/victim";
    ASSERT_EQ(::mkdir(victim_.c_str(), 0700), 0);
    ASSERT_EQ(::mkdir((victim_ + "/x").c_str(), 0700), 0);
    ASSERT_TRUE(HostWriteFile(victim_ + "/x/keep", "keep me"));
    for (const char* dir : {"/t", "/t/sub", "/t/sub/x"}) ASSERT_THAT(fs_->CreateDir(dir), IsOk());
    ASSERT_THAT(WriteNewFile(*fs_, "/t/sub/x/file", "spilled"), IsOk());
  }

  // Swaps /t/sub for a link to the victim right before /t/sub/x is listed.
  TreeStepGate SwapGate() {
    return [this](TreeStep step, const std::string& path) {
      if (step == TreeStep::kList && path == "/t/sub/x" && swaps_++ == 0) {
        EXPECT_EQ(::rename(Host("/t/sub").c_str(), Host("/moved").c_str()), 0);
        EXPECT_EQ(::symlink(victim_.c_str(), Host("/t/sub").c_str()), 0);
      }
      return OkStatus();
    };
  }

  std::string victim_;
  int swaps_ = 0;
};

// The fault injector's tree removal goes through the target's directory handles: the swap
// does not lead it outside, the directory it opened is emptied, the link is not removed
// as a directory, and every step still counts as its call.
TEST_F(SwappedSubdirTest, TheFaultInjectorsTreeRemovalDoesNotFollowIt) {
  auto injector = NewFaultInjectingFileSystem(fs_);
  const Status removed = injector->RemoveTreeGated("/t", SwapGate());
  EXPECT_EQ(swaps_, 1);
  EXPECT_EQ(HostReadFile(victim_ + "/x/keep"), "keep me");
  EXPECT_FALSE(HostLstat(Host("/moved/x")).has_value());        // Emptied through its handle.
  EXPECT_TRUE(removed.IsErrno(ENOTDIR)) << removed.ToString();  // rmdir of the link.
  EXPECT_EQ(injector->calls(OpKind::kList), 3u);                // /t, /t/sub, /t/sub/x
  EXPECT_EQ(injector->calls(OpKind::kRemove), 1u);              // file
  EXPECT_EQ(injector->calls(OpKind::kRmdir), 2u);               // /t/sub/x, /t/sub
}

// The same swap under a walk that looks each path up again (RemoveTreeByParts, what the
// fault injector used to do) follows the link and removes what is outside: the race the
// test above guards against is real and reached.
TEST_F(SwappedSubdirTest, AWalkByPathFollowsIt) {
  ASSERT_THAT(RemoveTreeByParts(*fs_, "/t", SwapGate()), Not(IsOk()));
  EXPECT_EQ(swaps_, 1);
  EXPECT_FALSE(HostReadFile(victim_ + "/x/keep").has_value());
}

TEST_F(PosixFileSystemTest, RemoveTreeOfASymlinkRemovesOnlyTheLink) {
  const std::string target_dir = outside_.path() + "/dir";
  ASSERT_EQ(::mkdir(target_dir.c_str(), 0700), 0);
  ASSERT_TRUE(HostWriteFile(target_dir + "/inner", "x"));
  ASSERT_EQ(::symlink(target_dir.c_str(), Host("/link").c_str()), 0);
  // A link to a directory inside the filesystem, by a relative target.
  ASSERT_THAT(fs_->CreateDir("/real"), IsOk());
  ASSERT_THAT(WriteNewFile(*fs_, "/real/f", "y"), IsOk());
  ASSERT_EQ(::symlink("real", Host("/relative_link").c_str()), 0);

  EXPECT_THAT(fs_->RemoveTree("/link"), IsOk());
  EXPECT_THAT(fs_->RemoveTree("/relative_link"), IsOk());

  EXPECT_FALSE(HostLstat(Host("/link")).has_value());
  EXPECT_FALSE(HostLstat(Host("/relative_link")).has_value());
  EXPECT_EQ(HostReadFile(target_dir + "/inner"), "x");
  StatusOr<std::string> kept = fs_->ReadFile("/real/f");
  ASSERT_THAT(kept, IsOk());
  EXPECT_EQ(*kept, "y");
}

TEST_F(PosixFileSystemTest, AFinalSymlinkIsNeverFollowed) {
  const std::string target_dir = outside_.path() + "/dir";
  const std::string target_file = outside_.path() + "/file";
  ASSERT_EQ(::mkdir(target_dir.c_str(), 0700), 0);
  ASSERT_TRUE(HostWriteFile(target_file, "abc"));
  ASSERT_EQ(::chmod(target_file.c_str(), 0600), 0);
  ASSERT_EQ(::symlink(target_dir.c_str(), Host("/to_dir").c_str()), 0);
  ASSERT_EQ(::symlink(target_file.c_str(), Host("/to_file").c_str()), 0);

  EXPECT_THAT(fs_->ListDir("/to_dir"), FailsWith(ENOTDIR));
  EXPECT_THAT(fs_->RemoveDir("/to_dir"), FailsWith(ENOTDIR));
  EXPECT_THAT(fs_->OpenForAppend("/to_file"), FailsWith(ELOOP));
  EXPECT_THAT(fs_->ReadFile("/to_file"), FailsWith(ELOOP));
  // Linux cannot change a symlink's own mode; the target's must not change instead.
  EXPECT_THAT(fs_->SetPermissions("/to_file", 0644), FailsWith(EOPNOTSUPP));
  std::optional<struct stat> target = HostLstat(target_file);
  ASSERT_TRUE(target.has_value());
  EXPECT_EQ(target->st_mode & 07777, 0600u);

  StatusOr<FileStat> link = fs_->Stat("/to_file");
  ASSERT_THAT(link, IsOk());
  EXPECT_EQ(link->type, FileType::kSymlink);
  EXPECT_EQ(link->size, 0u);

  // RemoveFile unlinks the link itself.
  EXPECT_THAT(fs_->RemoveFile("/to_file"), IsOk());
  EXPECT_FALSE(HostLstat(Host("/to_file")).has_value());
  EXPECT_EQ(HostReadFile(target_file), "abc");
}

TEST_F(PosixFileSystemTest, CreateOnADanglingSymlinkIsEexistAndCreatesNoTarget) {
  const std::string target = outside_.path() + "/not_there";
  ASSERT_EQ(::symlink(target.c_str(), Host("/dangling").c_str()), 0);

  // O_CREAT|O_EXCL fails on any symlink, wherever it points (open(2)); so does mkdir.
  EXPECT_THAT(fs_->CreateFile("/dangling"), FailsWith(EEXIST));
  EXPECT_THAT(fs_->CreateDir("/dangling"), FailsWith(EEXIST));
  EXPECT_FALSE(HostLstat(target).has_value());
  std::optional<struct stat> link = HostLstat(Host("/dangling"));
  ASSERT_TRUE(link.has_value());
  EXPECT_TRUE(S_ISLNK(link->st_mode));
}

TEST_F(PosixFileSystemTest, CreateOnASymlinkToAFileLeavesTheFileAlone) {
  const std::string target = outside_.path() + "/file";
  ASSERT_TRUE(HostWriteFile(target, "original"));
  ASSERT_EQ(::symlink(target.c_str(), Host("/link").c_str()), 0);
  EXPECT_THAT(fs_->CreateFile("/link"), FailsWith(EEXIST));
  EXPECT_EQ(HostReadFile(target), "original");
}

// --- Modes ----------------------------------------------------------------------------

TEST_F(PosixFileSystemTest, CreatedFilesAndDirectoriesHaveOwnerOnlyModesOnDisk) {
  for (const mode_t mask : {mode_t{022}, mode_t{077}, mode_t{0}}) {
    SCOPED_TRACE("umask 0" + std::to_string(mask));
    ScopedUmask umask(mask);
    const std::string dir = "/d" + std::to_string(mask);
    ASSERT_THAT(fs_->CreateDir(dir), IsOk());
    ASSERT_THAT(WriteNewFile(*fs_, dir + "/f", ""), IsOk());
    StatusOr<std::string> unique_dir = fs_->CreateUniqueDir(dir, "u-");
    ASSERT_THAT(unique_dir, IsOk());
    StatusOr<std::unique_ptr<WritableFile>> unique_file = fs_->CreateUniqueFile(dir, "u-");
    ASSERT_THAT(unique_file, IsOk());

    for (const std::string& path : {dir, *unique_dir}) {
      std::optional<struct stat> st = HostLstat(Host(path));
      ASSERT_TRUE(st.has_value()) << path;
      EXPECT_TRUE(S_ISDIR(st->st_mode)) << path;
      EXPECT_EQ(st->st_mode & 07777, 0700u) << path;
    }
    for (const std::string& path : {dir + "/f", (*unique_file)->path()}) {
      std::optional<struct stat> st = HostLstat(Host(path));
      ASSERT_TRUE(st.has_value()) << path;
      EXPECT_TRUE(S_ISREG(st->st_mode)) << path;
      EXPECT_EQ(st->st_mode & 07777, 0600u) << path;
    }
  }
}

// --- Unique names ---------------------------------------------------------------------

TEST_F(PosixFileSystemTest, UniqueNamesAreRandomAndCarryNoPid) {
  constexpr int kEach = 50;
  constexpr std::string_view kPrefix = "spill-";
  ASSERT_THAT(fs_->CreateDir("/names"), IsOk());
  // Two instances: a per-instance counter or seed would repeat names across them.
  PosixFileSystemOptions options;
  options.root = root_.path();
  std::shared_ptr<FileSystem> other = NewPosixFileSystem(options);

  std::vector<std::string> suffixes;
  for (int i = 0; i < kEach; ++i) {
    for (FileSystem* fs : {fs_.get(), other.get()}) {
      StatusOr<std::unique_ptr<WritableFile>> file = fs->CreateUniqueFile("/names", kPrefix);
      ASSERT_THAT(file, IsOk());
      StatusOr<std::string> dir = fs->CreateUniqueDir("/names", kPrefix);
      ASSERT_THAT(dir, IsOk());
      for (const std::string& path : {(*file)->path(), *dir}) {
        const std::string name = BaseName(path);
        ASSERT_THAT(name, StartsWith(kPrefix));
        suffixes.push_back(name.substr(kPrefix.size()));
      }
    }
  }

  const std::set<std::string> distinct(suffixes.begin(), suffixes.end());
  EXPECT_THAT(distinct, SizeIs(suffixes.size()));
  const std::string pid = std::to_string(::getpid());
  size_t with_pid = 0;
  for (const std::string& suffix : suffixes) {
    EXPECT_EQ(suffix.size(), 6u) << suffix;  // Rust tempfile's NUM_RAND_CHARS, as upstream.
    EXPECT_EQ(suffix.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                       "0123456789"),
              std::string::npos)
        << suffix;
    if (suffix.find(pid) != std::string::npos) ++with_pid;
  }
  // A random suffix may contain the pid's digits by chance, but not every time.
  EXPECT_LT(with_pid, suffixes.size());
  // Every position varies: a counter would keep its high digits, a pid its own place.
  const size_t length = suffixes.front().size();
  for (size_t pos = 0; pos < length; ++pos) {
    std::set<char> seen;
    for (const std::string& suffix : suffixes) {
      if (pos < suffix.size()) seen.insert(suffix[pos]);
    }
    EXPECT_GT(seen.size(), 1u) << "position " << pos << " never changes";
  }
}

TEST_F(PosixFileSystemTest, APrefixThatLeavesItsDirectoryIsInvalid) {
  ASSERT_THAT(fs_->CreateDir("/d"), IsOk());
  ASSERT_THAT(fs_->CreateDir("/d/sub"), IsOk());
  EXPECT_EQ(fs_->CreateUniqueDir("/d", "sub/x").status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(fs_->CreateUniqueFile("/d", "sub/x").status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(fs_->CreateUniqueFile("/d", std::string_view("a\0b", 3)).status().code(),
            StatusCode::kInvalidArgument);
  StatusOr<std::vector<DirEntry>> listed = fs_->ListDir("/d/sub");
  ASSERT_THAT(listed, IsOk());
  EXPECT_TRUE(listed->empty());
}

// --- The root option ------------------------------------------------------------------

TEST_F(PosixFileSystemTest, VirtualPathsMapUnderTheRoot) {
  ASSERT_THAT(fs_->CreateDir("/a"), IsOk());
  StatusOr<std::unique_ptr<WritableFile>> file = fs_->CreateFile("/a/f");
  ASSERT_THAT(file, IsOk());
  EXPECT_EQ((*file)->path(), "/a/f");
  ASSERT_THAT((*file)->Append("12345"), IsOk());
  ASSERT_THAT((*file)->Close(), IsOk());

  std::optional<struct stat> host = HostLstat(Host("/a/f"));
  ASSERT_TRUE(host.has_value());
  EXPECT_EQ(host->st_size, 5);

  // What appears on the host appears in the filesystem.
  ASSERT_EQ(::mkdir(Host("/from_host").c_str(), 0700), 0);
  StatusOr<std::vector<DirEntry>> root = fs_->ListDir("/");
  ASSERT_THAT(root, IsOk());
  EXPECT_THAT(*root, ElementsAre(DirEntry{"a", FileType::kDirectory},
                                 DirEntry{"from_host", FileType::kDirectory}));
}

TEST_F(PosixFileSystemTest, ErrorsReportTheVirtualPath) {
  ASSERT_THAT(WriteNewFile(*fs_, "/f", ""), IsOk());
  const std::vector<Status> errors = {
      fs_->CreateDir("/missing/x"), fs_->CreateFile("/f/x").status(),
      fs_->ListDir("/f").status(),  fs_->Stat("/nope").status(),
      fs_->RemoveTree("/nope"),     fs_->SetPermissions("/nope", 0700),
  };
  const std::vector<std::string> paths = {"/missing/x", "/f/x", "/f", "/nope", "/nope", "/nope"};
  ASSERT_EQ(errors.size(), paths.size());
  for (size_t i = 0; i < errors.size(); ++i) {
    EXPECT_NE(errors[i].error_number(), 0) << errors[i].ToString();
    EXPECT_EQ(errors[i].path(), paths[i]);
    EXPECT_FALSE(errors[i].op().empty()) << errors[i].ToString();
    EXPECT_THAT(errors[i].ToString(), HasSubstr(paths[i]));
    EXPECT_THAT(errors[i].ToString(), Not(HasSubstr(root_.path())));
  }
}

TEST_F(PosixFileSystemTest, ARootWithATrailingSlashWorks) {
  PosixFileSystemOptions options;
  options.root = root_.path() + "/";
  std::shared_ptr<FileSystem> fs = NewPosixFileSystem(options);
  ASSERT_THAT(fs->CreateDir("/a"), IsOk());
  EXPECT_TRUE(HostLstat(Host("/a")).has_value());
  StatusOr<FileStat> root = fs->Stat("/");
  ASSERT_THAT(root, IsOk());
  EXPECT_EQ(root->type, FileType::kDirectory);
}

TEST_F(PosixFileSystemTest, TheRootItselfCannotBeRemoved) {
  // As rmdir("/") on Linux.
  EXPECT_THAT(fs_->RemoveDir("/"), FailsWith(EBUSY));
  EXPECT_THAT(fs_->RemoveFile("/"), FailsWith(EISDIR));
  EXPECT_TRUE(HostLstat(root_.path()).has_value());
}

TEST_F(PosixFileSystemTest, WithoutARootPathsAreHostPaths) {
  std::shared_ptr<FileSystem> host = NewPosixFileSystem();
  const std::string dir = outside_.path() + "/made";
  ASSERT_THAT(host->CreateDir(dir), IsOk());
  ASSERT_THAT(WriteNewFile(*host, dir + "/f", "x"), IsOk());
  EXPECT_EQ(HostReadFile(dir + "/f"), "x");
  EXPECT_THAT(host->RemoveTree(dir), IsOk());
  EXPECT_FALSE(HostLstat(dir).has_value());
}

// --- TempDir --------------------------------------------------------------------------

TEST_F(PosixFileSystemTest, TempDirPrefersTheOptionThenTheRootThenTmpdir) {
  PosixFileSystemOptions configured;
  configured.root = root_.path();
  configured.temp_dir = "/scratch";
  EXPECT_EQ(NewPosixFileSystem(configured)->TempDir(), "/scratch");

  {
    ScopedEnv env("TMPDIR", "/var/spool/tmp");
    // Under a root, the host's TMPDIR means nothing.
    EXPECT_EQ(fs_->TempDir(), "/tmp");
    PosixFileSystemOptions rooted;
    rooted.root = root_.path();
    EXPECT_EQ(NewPosixFileSystem(rooted)->TempDir(), "/tmp");
    EXPECT_EQ(NewPosixFileSystem()->TempDir(), "/var/spool/tmp");
  }
  {
    ScopedEnv env("TMPDIR", "/var/spool/tmp/");
    EXPECT_EQ(NewPosixFileSystem()->TempDir(), "/var/spool/tmp");
  }
  {
    ScopedEnv env("TMPDIR", "relative/tmp");
    EXPECT_EQ(NewPosixFileSystem()->TempDir(), "/tmp");
  }
  {
    ScopedEnv env("TMPDIR", "");
    EXPECT_EQ(NewPosixFileSystem()->TempDir(), "/tmp");
  }
  {
    ScopedEnv env("TMPDIR", std::nullopt);
    EXPECT_EQ(NewPosixFileSystem()->TempDir(), "/tmp");
  }
}

// --- Files ----------------------------------------------------------------------------

TEST_F(PosixFileSystemTest, AClosedFileNeverTouchesAReusedDescriptor) {
  StatusOr<std::unique_ptr<WritableFile>> closed = fs_->CreateFile("/closed");
  ASSERT_THAT(closed, IsOk());
  ASSERT_THAT((*closed)->Close(), IsOk());
  // The kernel hands out the lowest free descriptor, so this one likely takes the closed
  // file's number; whichever it takes, nothing may reach it through the closed file.
  const int other = ::open(Host("/other").c_str(), O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0600);
  ASSERT_GE(other, 0);

  EXPECT_THAT((*closed)->Append("stray"), FailsWith(EBADF));
  EXPECT_THAT((*closed)->Sync(), FailsWith(EBADF));
  EXPECT_THAT((*closed)->Size(), FailsWith(EBADF));
  EXPECT_THAT((*closed)->Close(), FailsWith(EBADF));
  closed->reset();  // Destroying the closed file must not close `other` either.

  EXPECT_EQ(::write(other, "ok", 2), 2);
  EXPECT_EQ(::close(other), 0);
  EXPECT_EQ(HostReadFile(Host("/other")), "ok");
  EXPECT_EQ(HostReadFile(Host("/closed")), "");
}

// Lowers RLIMIT_FSIZE for the scope, with SIGXFSZ ignored, so that writes past `limit`
// bytes fail with EFBIG as they would at a quota.
class ScopedFileSizeLimit {
 public:
  explicit ScopedFileSizeLimit(rlim_t limit) {
    ok_ = ::getrlimit(RLIMIT_FSIZE, &saved_limit_) == 0;
    struct sigaction ignore = {};
    ignore.sa_handler = SIG_IGN;
    ok_ = ok_ && ::sigaction(SIGXFSZ, &ignore, &saved_action_) == 0;
    struct rlimit lowered = saved_limit_;
    lowered.rlim_cur = limit;
    ok_ = ok_ && ::setrlimit(RLIMIT_FSIZE, &lowered) == 0;
  }
  ~ScopedFileSizeLimit() {
    ::setrlimit(RLIMIT_FSIZE, &saved_limit_);
    ::sigaction(SIGXFSZ, &saved_action_, nullptr);
  }
  bool ok() const { return ok_; }

 private:
  bool ok_ = false;
  struct rlimit saved_limit_ = {};
  struct sigaction saved_action_ = {};
};

TEST_F(PosixFileSystemTest, AnAppendCutShortReportsTheBytesThatLanded) {
  constexpr rlim_t kLimit = 1000;
  StatusOr<std::unique_ptr<WritableFile>> file = fs_->CreateFile("/f");
  ASSERT_THAT(file, IsOk());
  ASSERT_THAT((*file)->Append(std::string(400, 'a')), IsOk());

  AppendResult result;
  {
    // The kernel writes what fits below the limit, then refuses the rest.
    ScopedFileSizeLimit limit(kLimit);
    ASSERT_TRUE(limit.ok());
    result = (*file)->Append(std::string(1500, 'b'));
  }
  EXPECT_THAT(result, FailsWith(EFBIG));
  EXPECT_EQ(result.status.op(), "write");
  EXPECT_EQ(result.status.path(), "/f");
  EXPECT_EQ(result.bytes_written, kLimit - 400);
  StatusOr<uint64_t> size = (*file)->Size();
  ASSERT_THAT(size, IsOk());
  EXPECT_EQ(*size, kLimit);
  EXPECT_THAT((*file)->Close(), IsOk());
  EXPECT_EQ(HostReadFile(Host("/f")), std::string(400, 'a') + std::string(600, 'b'));
}

TEST_F(PosixFileSystemTest, SpecialFilesNeitherHangNorPassForRegularFiles) {
  ASSERT_EQ(::mkfifo(Host("/fifo").c_str(), 0600), 0);
  StatusOr<FileStat> stat = fs_->Stat("/fifo");
  ASSERT_THAT(stat, IsOk());
  EXPECT_EQ(stat->type, FileType::kOther);
  StatusOr<std::vector<DirEntry>> listed = fs_->ListDir("/");
  ASSERT_THAT(listed, IsOk());
  EXPECT_THAT(*listed, ElementsAre(DirEntry{"fifo", FileType::kOther}));

  // Opened without blocking: no reader means ENXIO for a writer (open(2)); a reader gets
  // a descriptor, which is not a regular file.
  EXPECT_THAT(fs_->OpenForAppend("/fifo"), FailsWith(ENXIO));
  EXPECT_THAT(fs_->ReadFile("/fifo"), FailsWith(EINVAL));
  EXPECT_THAT(fs_->RemoveTree("/fifo"), IsOk());
  EXPECT_FALSE(HostLstat(Host("/fifo")).has_value());
}

TEST_F(PosixFileSystemTest, RemoveTreeHandlesDeepTrees) {
  constexpr int kDepth = 32;
  std::string path;
  for (int i = 0; i < kDepth; ++i) {
    path += "/d" + std::to_string(i);
    ASSERT_THAT(fs_->CreateDir(path), IsOk());
    ASSERT_THAT(WriteNewFile(*fs_, path + "/f", "x"), IsOk());
  }
  EXPECT_THAT(fs_->RemoveTree("/d0"), IsOk());
  EXPECT_FALSE(HostLstat(Host("/d0")).has_value());
}

}  // namespace
}  // namespace spillway
