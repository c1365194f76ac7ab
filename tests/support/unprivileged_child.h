// RunAsUnprivilegedChild: runs a test body in a forked child that has given up root, so
// that Linux checks permissions (root bypasses them) while the test process stays root.
//
// Thread safety: call from a test's thread while no other thread runs (fork copies only
// the calling thread).
#ifndef SPILLWAY_TESTS_SUPPORT_UNPRIVILEGED_CHILD_H_
#define SPILLWAY_TESTS_SUPPORT_UNPRIVILEGED_CHILD_H_

#include <grp.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <functional>

namespace spillway::test_support {

// The user and group a root test process switches to for permission checks ("nobody").
inline constexpr unsigned kUnprivilegedId = 65534;

enum class ChildOutcome {
  kPassed,        // `body` returned true.
  kFailed,        // `body` returned false (it printed why), or the child did not exit.
  kCannotSwitch,  // The child could not switch to kUnprivilegedId (no CAP_SETUID).
  kNoChild,       // fork(2) or waitpid(2) failed (printed).
};

// Forks; the child switches to kUnprivilegedId (groups, gid, then uid), runs `body` and
// leaves with _exit(2), so that it runs neither the parent's exit handlers nor gtest's
// teardown. Returns what became of it.
inline ChildOutcome RunAsUnprivilegedChild(const std::function<bool()>& body) {
  constexpr int kCannotSwitchExit = 77;
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) {
    std::fprintf(stderr, "fork: %s\n", std::strerror(errno));
    return ChildOutcome::kNoChild;
  }
  if (pid == 0) {
    const uid_t id = kUnprivilegedId;
    if (::setgroups(0, nullptr) != 0 || ::setgid(id) != 0 || ::setuid(id) != 0) {
      std::fprintf(stderr, "cannot switch to uid %u: %s\n", id, std::strerror(errno));
      std::fflush(nullptr);
      ::_exit(kCannotSwitchExit);
    }
    const bool passed = body();
    std::fflush(nullptr);
    ::_exit(passed ? 0 : 1);
  }
  int status = 0;
  if (::waitpid(pid, &status, 0) != pid) {
    std::fprintf(stderr, "waitpid: %s\n", std::strerror(errno));
    return ChildOutcome::kNoChild;
  }
  if (!WIFEXITED(status)) return ChildOutcome::kFailed;
  if (WEXITSTATUS(status) == kCannotSwitchExit) return ChildOutcome::kCannotSwitch;
  return WEXITSTATUS(status) == 0 ? ChildOutcome::kPassed : ChildOutcome::kFailed;
}

}  // namespace spillway::test_support

#endif  // SPILLWAY_TESTS_SUPPORT_UNPRIVILEGED_CHILD_H_
