// GlobMatch: the one path matcher of spillway, used by FaultInjectingFileSystem, the rule
// engine (fault_rules.h) and ExpandGlob (expand_glob.cc). It needs nothing at link time but
// the C library (no allocation, no exceptions), so that the preloaded shim of `spillway
// inject` compiles it in too.
#include "spillway/vfs/glob.h"

namespace spillway {
namespace {

// Matches one component (no '/' in either). Greedy scan that remembers the last '*'.
// Not fnmatch(3): with FNM_PATHNAME, its '*' matches an empty component ("/*" matches "/",
// so `list ... path=/*` would fail listing "/" itself) and '[' starts a set, while '[' is
// an ordinary character in file names (fault_rules_test: GlobDiffersFromFnmatch...).
bool MatchComponent(std::string_view pattern, std::string_view name) {
  if (name.empty()) return pattern.empty();
  size_t p = 0, n = 0, star_p = std::string_view::npos, star_n = 0;
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

// Splits off the component before the next '/' (or the rest) from *s. (Not substr, which
// would pull in the C++ library's exception path that the shim does not link.)
std::string_view NextComponent(std::string_view* s, bool* more) {
  const size_t slash = s->find('/');
  *more = slash != std::string_view::npos;
  const std::string_view part(s->data(), *more ? slash : s->size());
  if (*more) s->remove_prefix(slash + 1);
  if (!*more) *s = std::string_view();
  return part;
}

}  // namespace

bool GlobMatch(std::string_view pattern, std::string_view path) {
  bool pattern_more = true, path_more = true;
  while (pattern_more && path_more) {
    if (!MatchComponent(NextComponent(&pattern, &pattern_more), NextComponent(&path, &path_more))) {
      return false;
    }
  }
  return pattern_more == path_more;
}

}  // namespace spillway
