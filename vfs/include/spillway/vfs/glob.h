// Path globs as scenario files and fault rules use them.
//
// '*' matches any run of characters and '?' any one character, both within one path
// component (never '/'); unlike a shell, both also match names that begin with '.'.
// Every other character matches itself.
#ifndef SPILLWAY_VFS_GLOB_H_
#define SPILLWAY_VFS_GLOB_H_

#include <string>
#include <string_view>
#include <vector>

#include "spillway/vfs/file_system.h"

namespace spillway {

// True when `path` matches `pattern` as a whole.
bool GlobMatch(std::string_view pattern, std::string_view path);

// Every existing path in `fs` that matches `pattern` (an absolute glob), sorted. A
// directory that cannot be listed on the way contributes nothing. Uses ListDir only.
std::vector<std::string> ExpandGlob(FileSystem& fs, std::string_view pattern);

}  // namespace spillway

#endif  // SPILLWAY_VFS_GLOB_H_
