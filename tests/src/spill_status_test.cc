#include "spillway/spill/spill_status.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <string>

#include "spillway/vfs/status.h"

namespace spillway {
namespace {

TEST(SpillStatusTest, ALimitErrorIsResourceExhaustedWithoutAnErrno) {
  const Status limit = LimitExceededError("200 B over 100 B");
  EXPECT_EQ(limit.code(), StatusCode::kResourceExhausted);
  EXPECT_EQ(limit.error_number(), 0);
  EXPECT_EQ(limit.message(), "200 B over 100 B");
  EXPECT_TRUE(IsLimitExceeded(limit));
  EXPECT_FALSE(IsDisabled(limit));
}

TEST(SpillStatusTest, ADisabledErrorIsFailedPreconditionWithoutAnErrno) {
  const Status disabled = DisabledError("spilling is disabled");
  EXPECT_EQ(disabled.code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(disabled.error_number(), 0);
  EXPECT_EQ(disabled.message(), "spilling is disabled");
  EXPECT_TRUE(IsDisabled(disabled));
  EXPECT_FALSE(IsLimitExceeded(disabled));
}

// Filesystem errors that share the spill errors' codes are still filesystem errors.
TEST(SpillStatusTest, NoErrnoIsEverASpillError) {
  for (const int error_number : {ENOSPC, EDQUOT, EMFILE, ENOTDIR, ENOTEMPTY, EBUSY}) {
    SCOPED_TRACE(ErrnoName(error_number));
    const Status status = Status::FromErrno(error_number, "write", "/l0/f");
    ASSERT_TRUE(status.code() == StatusCode::kResourceExhausted ||
                status.code() == StatusCode::kFailedPrecondition);
    EXPECT_FALSE(IsLimitExceeded(status));
    EXPECT_FALSE(IsDisabled(status));
  }
  // Nor is any other errno.
  for (int error_number = 1; error_number < 200; ++error_number) {
    const Status status = Status::FromErrno(error_number, "open", "/f");
    EXPECT_FALSE(IsLimitExceeded(status) || IsDisabled(status)) << ErrnoName(error_number);
  }
}

TEST(SpillStatusTest, OtherStatusesAreNeither) {
  for (const Status& status :
       {OkStatus(), Status::InvalidArgument("bad path"),
        Status(StatusCode::kUnavailable, "try again"), Status(StatusCode::kUnknown, "?")}) {
    SCOPED_TRACE(status.ToString());
    EXPECT_FALSE(IsLimitExceeded(status));
    EXPECT_FALSE(IsDisabled(status));
  }
}

}  // namespace
}  // namespace spillway
