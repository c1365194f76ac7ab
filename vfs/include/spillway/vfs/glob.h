// Path globs: the one matcher of spillway. Fault rules (fault_injecting_file_system.h and
// `spillway inject`), the scenario language and the sweep match paths with GlobMatch.
//
// '*' matches any run of characters (also none) and '?' any one character, both within
// one path component (never '/'); unlike a shell, both also match names that begin with
// '.'. Every other character matches itself: there are no escapes and no [sets]. A
// wildcard never matches an empty component, so "/*" does not match "/".
//
// Thread safety: both functions are safe to call concurrently (ExpandGlob as much as the
// FileSystem it is given).
#ifndef SPILLWAY_VFS_GLOB_H_
#define SPILLWAY_VFS_GLOB_H_

#include <string>
#include <string_view>
#include <vector>

#include "spillway/vfs/file_system.h"

namespace spillway {

// True when `path` matches `pattern` as a whole, component by component.
bool GlobMatch(std::string_view pattern, std::string_view path);

// Every existing path in `fs` that matches `pattern` (an absolute glob), sorted. It lists
// "/", keeps the entries matching the first component, lists those that are directories
// (symlinks are not followed), and so on, so a pattern without wildcards is found by
// listing its parents too. A directory that cannot be listed on the way contributes
// nothing. A pattern that is not absolute, or has an empty component, matches nothing;
// "/" gives {"/"} without a call. Uses ListDir only, one call per directory it visits.
std::vector<std::string> ExpandGlob(FileSystem& fs, std::string_view pattern);

}  // namespace spillway

#endif  // SPILLWAY_VFS_GLOB_H_
