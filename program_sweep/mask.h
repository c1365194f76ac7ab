// --mask: the parts of a program's stdout that vary on their own (a pid, a time), each
// replaced by one placeholder in the baseline's and every run's stdout before they are
// compared, so that the comparison and the reports see only what the program was asked to
// get right.
#ifndef SPILLWAY_PROGRAM_SWEEP_MASK_H_
#define SPILLWAY_PROGRAM_SWEEP_MASK_H_

#include <regex>
#include <string>
#include <string_view>
#include <vector>

#include "spillway/vfs/status.h"

namespace spillway::program_sweep {

// What each match of a mask becomes.
inline constexpr std::string_view kMaskWord = "{masked}";

// The --mask patterns (ECMAScript), compiled in order. Errors (InvalidArgument, one line
// naming the pattern): one that is not a regular expression, or one that matches the
// empty string (it would match between every two characters).
StatusOr<std::vector<std::regex>> CompileMasks(const std::vector<std::string>& patterns);

// `text` with every match of each mask, in order, replaced by kMaskWord.
std::string MaskText(const std::vector<std::regex>& masks, std::string text);

}  // namespace spillway::program_sweep

#endif  // SPILLWAY_PROGRAM_SWEEP_MASK_H_
