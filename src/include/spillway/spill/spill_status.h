// The spill managers' own errors, as canonical Status codes, and the predicates that
// recognise them.
//
// A manager fails with a filesystem error (a Status::FromErrno, with its errno, operation
// and path) or with one of two errors of its own:
// - a limit error: the bytes would take used_disk_space over max_temp_directory_size
//   (DataFusion's ResourcesExhausted). Code kResourceExhausted.
// - a disabled error: spilling is disabled for this manager. Code kFailedPrecondition.
//
// The rule that tells them apart: a spill error has no errno (error_number() == 0), while a
// filesystem error always has one. So ENOSPC or EDQUOT (kResourceExhausted too) is never
// IsLimitExceeded, and ENOTDIR or ENOTEMPTY (kFailedPrecondition too) is never IsDisabled.
// The spill library makes no other error without an errno with either code.
//
// Thread safety: pure functions.
#ifndef SPILLWAY_SPILL_SPILL_STATUS_H_
#define SPILLWAY_SPILL_SPILL_STATUS_H_

#include <string_view>

#include "spillway/vfs/status.h"

namespace spillway {

// A limit error saying `message`.
Status LimitExceededError(std::string_view message);
// A disabled error saying `message`.
Status DisabledError(std::string_view message);

// True for a limit error (LimitExceededError), false for every other status.
bool IsLimitExceeded(const Status& status);
// True for a disabled error (DisabledError), false for every other status.
bool IsDisabled(const Status& status);

}  // namespace spillway

#endif  // SPILLWAY_SPILL_SPILL_STATUS_H_
