// ExpandGlob: the paths of a FileSystem that a glob matches, found by listing.
#include <algorithm>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "spillway/vfs/file_system.h"
#include "spillway/vfs/glob.h"

namespace spillway {
namespace {

// Splits on '/', keeping empty pieces: "/a/b" -> {"", "a", "b"}, "/" -> {"", ""}.
std::vector<std::string_view> SplitOnSlash(std::string_view s) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (true) {
    const size_t slash = s.find('/', start);
    if (slash == std::string_view::npos) {
      parts.push_back(s.substr(start));
      return parts;
    }
    parts.push_back(s.substr(start, slash - start));
    start = slash + 1;
  }
}

}  // namespace

std::vector<std::string> ExpandGlob(FileSystem& fs, std::string_view pattern) {
  if (pattern.empty() || pattern.front() != '/') return {};
  if (pattern == "/") return {"/"};  // The root always exists.
  std::vector<std::string_view> parts = SplitOnSlash(pattern.substr(1));
  // An empty component ("//", a trailing '/') names nothing.
  for (std::string_view part : parts) {
    if (part.empty()) return {};
  }

  // Walk one level at a time: list every directory reached so far and keep the entries
  // whose names match this level's component. Only directories are walked into, without
  // following symlinks (as ListDir does not follow them).
  std::vector<std::string> level = {"/"};
  for (size_t i = 0; i < parts.size(); ++i) {
    const bool last = i + 1 == parts.size();
    std::vector<std::string> next;
    for (const std::string& dir : level) {
      StatusOr<std::vector<DirEntry>> entries = fs.ListDir(dir);
      if (!entries.ok()) continue;  // Unlistable (gone, not a dir, no access): nothing.
      for (const DirEntry& entry : *entries) {
        if (!last && entry.type != FileType::kDirectory) continue;
        if (GlobMatch(parts[i], entry.name)) next.push_back(JoinPath(dir, entry.name));
      }
    }
    level = std::move(next);
    if (level.empty()) break;
  }
  std::sort(level.begin(), level.end());
  return level;
}

}  // namespace spillway
