#include "spillway/vfs/glob.h"

#include <algorithm>
#include <utility>

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

// Matches one component (no '/' in either argument). An empty name is matched only by an
// empty pattern, so that "/*" does not match "/" (whose last piece is empty).
bool MatchComponent(std::string_view pattern, std::string_view name) {
  if (name.empty()) return pattern.empty();
  // Greedy scan that remembers the last '*' and, on a mismatch, lets that '*' swallow one
  // more character. Linear in practice, O(|pattern| * |name|) at worst.
  size_t p = 0;
  size_t n = 0;
  size_t star_p = std::string_view::npos;
  size_t star_n = 0;
  while (n < name.size()) {
    if (p < pattern.size() && (pattern[p] == '?' || pattern[p] == name[n])) {
      ++p;
      ++n;
    } else if (p < pattern.size() && pattern[p] == '*') {
      star_p = p++;
      star_n = n;
    } else if (star_p != std::string_view::npos) {
      p = star_p + 1;
      n = ++star_n;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

}  // namespace

bool GlobMatch(std::string_view pattern, std::string_view path) {
  const std::vector<std::string_view> pattern_parts = SplitOnSlash(pattern);
  const std::vector<std::string_view> path_parts = SplitOnSlash(path);
  if (pattern_parts.size() != path_parts.size()) return false;
  for (size_t i = 0; i < pattern_parts.size(); ++i) {
    if (!MatchComponent(pattern_parts[i], path_parts[i])) return false;
  }
  return true;
}

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
        if (MatchComponent(parts[i], entry.name)) next.push_back(JoinPath(dir, entry.name));
      }
    }
    level = std::move(next);
    if (level.empty()) break;
  }
  std::sort(level.begin(), level.end());
  return level;
}

}  // namespace spillway
