// Private to the spill library: the texts a user of Apache DataFusion's DiskManager sees
// (sizes in errors, error messages, temp file and directory names), reproduced exactly so
// that spillway reads the same as the original. Not installed.
//
// Upstream: datafusion/execution/src/disk_manager.rs at DataFusion commit 02ee6daeb0cf, and
// datafusion/common/src/display/human_readable.rs (human_readable_size). Where spillway
// cannot match exactly, docs/compatibility.md says how and why.
#ifndef SPILLWAY_SRC_UPSTREAM_TEXT_H_
#define SPILLWAY_SRC_UPSTREAM_TEXT_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace spillway::internal {

// human_readable_size: "{value:.1} {unit}" with the largest of TB, GB, MB, KB (powers of
// 1024) that the size is at least twice of, else B: 1023 -> "1023.0 B", 2048 -> "2.0 KB",
// 100 GiB -> "100.0 GB".
std::string HumanReadableSize(uint64_t size);

// escape_for_temp_file_name_prefix: ".tmp." + the text's alphanumeric characters in lower
// case, each run of other characters between two of them as one '_', + ".". The text is
// read as UTF-8 and classified by Unicode (bytes that are not UTF-8 count as other
// characters). Stops adding characters once the result reaches kMaxEscapedPrefixBytes
// bytes before the final '.': "Testing with./spécial" -> ".tmp.testing_with_spécial.".
std::string EscapeForTempFileNamePrefix(std::string_view text);
// The length at which EscapeForTempFileNamePrefix stops taking characters (upstream's 123:
// 128 bytes less room for one more UTF-8 character and the final dot).
inline constexpr size_t kMaxEscapedPrefixBytes = 123;

// The FileSpillWriter's limit error, naming `limit` and the configuration key to raise.
std::string LimitExceededMessage(uint64_t limit, std::string_view config_key);
// create_tmp_file on a disabled manager ("Memory Exhausted while {description} (DiskManager
// is disabled)"); upstream shows it behind DataFusionError's "Resources exhausted: ".
std::string DisabledCreateMessage(std::string_view description);
// set_max_temp_directory_size(non-zero) on a disabled manager; upstream shows it behind
// DataFusionError's "Invalid or Unsupported Configuration: ".
inline constexpr std::string_view kDisabledSetLimitMessage =
    "Cannot set max temp directory size for a disk manager that spilling is disabled";

}  // namespace spillway::internal

#endif  // SPILLWAY_SRC_UPSTREAM_TEXT_H_
