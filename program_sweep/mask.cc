// CompileMasks and MaskText (mask.h).
#include "mask.h"

#include <fmt/format.h>

#include <utility>

namespace spillway::program_sweep {

StatusOr<std::vector<std::regex>> CompileMasks(const std::vector<std::string>& patterns) {
  std::vector<std::regex> masks;
  masks.reserve(patterns.size());
  for (const std::string& pattern : patterns) {
    try {
      masks.emplace_back(pattern);
    } catch (const std::regex_error& e) {
      return Status::InvalidArgument(
          fmt::format("--mask {}: not a regular expression: {}", pattern, e.what()));
    }
    if (std::regex_match(std::string(), masks.back())) {
      return Status::InvalidArgument(fmt::format("--mask {}: matches the empty string", pattern));
    }
  }
  return masks;
}

std::string MaskText(const std::vector<std::regex>& masks, std::string text) {
  // The placeholder has no '$', so it is inserted as it is.
  for (const std::regex& mask : masks)
    text = std::regex_replace(text, mask, std::string(kMaskWord));
  return text;
}

}  // namespace spillway::program_sweep
