// What the launcher checks before a program starts: where the program and the shim are,
// and whether LD_PRELOAD can reach the program's calls at all.
#ifndef SPILLWAY_INJECT_LAUNCHER_PROGRAM_CHECK_H_
#define SPILLWAY_INJECT_LAUNCHER_PROGRAM_CHECK_H_

#include <optional>
#include <string>

namespace spillway::inject {

inline constexpr char kShimName[] = "libspillway_inject.so";

// The file `name` runs: itself when it has a '/', else the first executable on PATH.
std::optional<std::string> FindProgram(const std::string& name);

// Empty when `program` can be interposed (a dynamically linked ELF that is not Go and not
// setuid, or a script whose interpreter is one); otherwise why not, in one line.
std::string WhyNotInterposable(const std::string& program);

// The shim: $SPILLWAY_INJECT_LIBRARY, else next to this executable (the build tree), else
// in the install tree's lib dir; nullopt when none exists.
std::optional<std::string> FindShim();

}  // namespace spillway::inject

#endif  // SPILLWAY_INJECT_LAUNCHER_PROGRAM_CHECK_H_
