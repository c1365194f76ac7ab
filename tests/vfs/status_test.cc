#include "spillway/vfs/status.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace spillway {
namespace {

using ::testing::HasSubstr;

TEST(StatusTest, DefaultIsOk) {
  const Status status;
  EXPECT_TRUE(status.ok());
  EXPECT_EQ(status.code(), StatusCode::kOk);
  EXPECT_EQ(status.error_number(), 0);
  EXPECT_FALSE(status.IsErrno(0));
  EXPECT_EQ(StatusCodeName(status.code()), "OK");
  EXPECT_EQ(status.ToString(), "OK");
  EXPECT_EQ(status, OkStatus());
}

TEST(StatusTest, FromErrnoKeepsTheErrnoTheOpAndThePath) {
  const Status status = Status::FromErrno(ENOTDIR, "mkdir", "/local0/f/x");
  EXPECT_FALSE(status.ok());
  EXPECT_EQ(status.code(), StatusCode::kFailedPrecondition);  // Abseil's code for ENOTDIR.
  EXPECT_EQ(status.error_number(), ENOTDIR);
  EXPECT_TRUE(status.IsErrno(ENOTDIR));
  // The exact errno: related ones are different answers.
  EXPECT_FALSE(status.IsErrno(ENOENT));
  EXPECT_FALSE(status.IsErrno(EACCES));
  EXPECT_EQ(status.op(), "mkdir");
  EXPECT_EQ(status.path(), "/local0/f/x");
  EXPECT_EQ(status.message(), std::strerror(ENOTDIR));
}

TEST(StatusTest, WithMessageReplacesOnlyTheMessage) {
  const Status status = Status::FromErrno(ENOSPC, "create", "/local0/datafusion-x/f");
  const Status renamed = status.WithMessage("full; and more");
  EXPECT_EQ(renamed.message(), "full; and more");
  EXPECT_EQ(renamed.code(), status.code());
  EXPECT_TRUE(renamed.IsErrno(ENOSPC));
  EXPECT_EQ(renamed.op(), "create");
  EXPECT_EQ(renamed.path(), "/local0/datafusion-x/f");
  const Status plain = Status::InvalidArgument("bad").WithMessage("worse");
  EXPECT_EQ(plain, Status::InvalidArgument("worse"));
}

TEST(StatusTest, ToStringNamesTheOpThePathAndTheErrno) {
  const Status status = Status::FromErrno(ENOENT, "mkdir", "/local0/datafusion-x");
  const std::string text = status.ToString();
  EXPECT_THAT(text, HasSubstr("mkdir"));
  EXPECT_THAT(text, HasSubstr("/local0/datafusion-x"));
  EXPECT_THAT(text, HasSubstr("ENOENT"));
  EXPECT_THAT(text, HasSubstr(std::strerror(ENOENT)));
  // The documented layout: "op path: message (NAME)".
  EXPECT_EQ(text,
            "mkdir /local0/datafusion-x: " + std::string(std::strerror(ENOENT)) + " (ENOENT)");
}

TEST(StatusTest, AnErrorWithoutAnErrnoKeepsItsCodeAndMessage) {
  struct Case {
    Status status;
    StatusCode code;
    std::string text;
  };
  const std::vector<Case> cases = {
      {Status(StatusCode::kResourceExhausted, "200 > 100"), StatusCode::kResourceExhausted,
       "RESOURCE_EXHAUSTED: 200 > 100"},
      {Status(StatusCode::kFailedPrecondition, "off"), StatusCode::kFailedPrecondition,
       "FAILED_PRECONDITION: off"},
      {Status::InvalidArgument("bad path \"a\""), StatusCode::kInvalidArgument,
       "INVALID_ARGUMENT: bad path \"a\""},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.text);
    EXPECT_FALSE(c.status.ok());
    EXPECT_EQ(c.status.code(), c.code);
    // Not a system call's failure: no errno, op or path.
    EXPECT_EQ(c.status.error_number(), 0);
    EXPECT_FALSE(c.status.IsErrno(0));
    EXPECT_TRUE(c.status.op().empty());
    EXPECT_TRUE(c.status.path().empty());
    EXPECT_EQ(c.status.ToString(), c.text);
  }
  EXPECT_EQ(Status(StatusCode::kUnavailable, "m").message(), "m");
}

// absl::ErrnoToStatusCode's answer for every errno spillway names.
TEST(ErrnoToStatusCodeTest, MapsEachErrnoAsAbseilDoes) {
  const std::vector<std::pair<int, StatusCode>> expected = {
      {EPERM, StatusCode::kPermissionDenied},
      {ENOENT, StatusCode::kNotFound},
      {EINTR, StatusCode::kUnavailable},
      {EIO, StatusCode::kUnknown},
      {EBADF, StatusCode::kFailedPrecondition},
      {EAGAIN, StatusCode::kUnavailable},
      {ENOMEM, StatusCode::kResourceExhausted},
      {EACCES, StatusCode::kPermissionDenied},
      {EBUSY, StatusCode::kFailedPrecondition},
      {EEXIST, StatusCode::kAlreadyExists},
      {EXDEV, StatusCode::kUnimplemented},
      {ENOTDIR, StatusCode::kFailedPrecondition},
      {EISDIR, StatusCode::kFailedPrecondition},
      {EINVAL, StatusCode::kInvalidArgument},
      {ENFILE, StatusCode::kResourceExhausted},
      {EMFILE, StatusCode::kResourceExhausted},
      {EFBIG, StatusCode::kOutOfRange},
      {ENOSPC, StatusCode::kResourceExhausted},
      {EROFS, StatusCode::kPermissionDenied},
      {EMLINK, StatusCode::kResourceExhausted},
      {ENAMETOOLONG, StatusCode::kInvalidArgument},
      {ENOTEMPTY, StatusCode::kFailedPrecondition},
      {ELOOP, StatusCode::kUnknown},
      {EDQUOT, StatusCode::kResourceExhausted},
      {ESTALE, StatusCode::kAborted},
      {ENOTSUP, StatusCode::kUnimplemented},
  };
  for (const auto& [error_number, code] : expected) {
    SCOPED_TRACE(ErrnoName(error_number));
    EXPECT_EQ(ErrnoToStatusCode(error_number), code);
    // A status from the errno takes its code from the same mapping, and keeps the errno.
    const Status status = Status::FromErrno(error_number, "open", "/f");
    EXPECT_EQ(status.code(), code);
    EXPECT_TRUE(status.IsErrno(error_number));
  }
  EXPECT_EQ(ErrnoToStatusCode(0), StatusCode::kOk);
  EXPECT_EQ(ErrnoToStatusCode(9999), StatusCode::kUnknown);
}

TEST(StatusCodeNameTest, SpellsEachCodeAsAbseilDoes) {
  const std::vector<std::pair<StatusCode, std::string>> expected = {
      {StatusCode::kOk, "OK"},
      {StatusCode::kUnknown, "UNKNOWN"},
      {StatusCode::kInvalidArgument, "INVALID_ARGUMENT"},
      {StatusCode::kNotFound, "NOT_FOUND"},
      {StatusCode::kAlreadyExists, "ALREADY_EXISTS"},
      {StatusCode::kPermissionDenied, "PERMISSION_DENIED"},
      {StatusCode::kResourceExhausted, "RESOURCE_EXHAUSTED"},
      {StatusCode::kFailedPrecondition, "FAILED_PRECONDITION"},
      {StatusCode::kAborted, "ABORTED"},
      {StatusCode::kOutOfRange, "OUT_OF_RANGE"},
      {StatusCode::kUnimplemented, "UNIMPLEMENTED"},
      {StatusCode::kUnavailable, "UNAVAILABLE"},
      {StatusCode::kDataLoss, "DATA_LOSS"},
  };
  for (const auto& [code, name] : expected) EXPECT_EQ(StatusCodeName(code), name);
  // Abseil's numbers, so a code converts to absl::StatusCode by value.
  EXPECT_EQ(static_cast<int>(StatusCode::kInvalidArgument), 3);
  EXPECT_EQ(static_cast<int>(StatusCode::kResourceExhausted), 8);
  EXPECT_EQ(static_cast<int>(StatusCode::kFailedPrecondition), 9);
  EXPECT_EQ(static_cast<int>(StatusCode::kUnavailable), 14);
  EXPECT_EQ(static_cast<int>(StatusCode::kDataLoss), 15);
}

TEST(StatusTest, EqualityComparesEveryField) {
  const Status a = Status::FromErrno(EIO, "write", "/f");
  EXPECT_EQ(a, Status::FromErrno(EIO, "write", "/f"));
  EXPECT_NE(a, Status::FromErrno(ENOSPC, "write", "/f"));
  EXPECT_NE(a, Status::FromErrno(EIO, "fsync", "/f"));
  EXPECT_NE(a, Status::FromErrno(EIO, "write", "/g"));
  EXPECT_NE(a, OkStatus());
  EXPECT_NE(Status(StatusCode::kFailedPrecondition, "x"), Status::InvalidArgument("x"));
  EXPECT_NE(Status::InvalidArgument("x"), Status::InvalidArgument("y"));
  // Same code, but one carries an errno.
  EXPECT_NE(Status(StatusCode::kResourceExhausted, std::strerror(ENOSPC)),
            Status::FromErrno(ENOSPC, "", ""));
}

TEST(ErrnoNameTest, NamesTheErrnosAFileSystemMeets) {
  const std::vector<std::pair<int, std::string>> known = {
      {EPERM, "EPERM"},         {ENOENT, "ENOENT"},
      {EINTR, "EINTR"},         {EIO, "EIO"},
      {EBADF, "EBADF"},         {EAGAIN, "EAGAIN"},
      {ENOMEM, "ENOMEM"},       {EACCES, "EACCES"},
      {EBUSY, "EBUSY"},         {EEXIST, "EEXIST"},
      {EXDEV, "EXDEV"},         {ENOTDIR, "ENOTDIR"},
      {EISDIR, "EISDIR"},       {EINVAL, "EINVAL"},
      {ENFILE, "ENFILE"},       {EMFILE, "EMFILE"},
      {EFBIG, "EFBIG"},         {ENOSPC, "ENOSPC"},
      {EROFS, "EROFS"},         {EMLINK, "EMLINK"},
      {ELOOP, "ELOOP"},         {ENAMETOOLONG, "ENAMETOOLONG"},
      {ENOTEMPTY, "ENOTEMPTY"}, {EDQUOT, "EDQUOT"},
      {ESTALE, "ESTALE"},       {ENOTSUP, "ENOTSUP"},
  };
  for (const auto& [value, name] : known) {
    EXPECT_EQ(ErrnoName(value), name);
    EXPECT_EQ(ErrnoFromName(name), value) << name;
  }
}

TEST(ErrnoNameTest, EveryNamedErrnoRoundTrips) {
  // Over the whole errno range: whatever has a name maps back to itself.
  int named = 0;
  for (int value = 1; value < 4096; ++value) {
    const std::string name = ErrnoName(value);
    ASSERT_FALSE(name.empty());
    ASSERT_EQ(name.front(), 'E') << value;
    if (name == "E" + std::to_string(value)) {
      EXPECT_EQ(ErrnoFromName(name), std::nullopt) << name;
      continue;
    }
    ++named;
    EXPECT_EQ(ErrnoFromName(name), value) << name;
  }
  EXPECT_GE(named, 26);
}

TEST(ErrnoNameTest, UnknownValuesAndNames) {
  EXPECT_EQ(ErrnoName(9999), "E9999");
  EXPECT_EQ(ErrnoName(0), "E0");
  EXPECT_EQ(ErrnoFromName("E9999"), std::nullopt);
  EXPECT_EQ(ErrnoFromName("ENOSUCHTHING"), std::nullopt);
  EXPECT_EQ(ErrnoFromName(""), std::nullopt);
  EXPECT_EQ(ErrnoFromName("ENOENT "), std::nullopt);
  EXPECT_EQ(ErrnoFromName("OK"), std::nullopt);
  // The Status of an unknown errno still prints.
  EXPECT_THAT(Status::FromErrno(9999, "open", "/f").ToString(), HasSubstr("E9999"));
  EXPECT_EQ(Status::FromErrno(9999, "open", "/f").code(), StatusCode::kUnknown);
}

TEST(StatusOrTest, HoldsAValue) {
  StatusOr<int> value = 42;
  EXPECT_TRUE(value.ok());
  EXPECT_TRUE(value.status().ok());
  EXPECT_EQ(value.value(), 42);
  EXPECT_EQ(*value, 42);
  *value = 7;
  EXPECT_EQ(value.value(), 7);

  const StatusOr<std::string> text = std::string("spill");
  EXPECT_EQ(text->size(), 5u);
  EXPECT_EQ(*text, "spill");
}

TEST(StatusOrTest, HoldsAnError) {
  const Status error = Status::FromErrno(ENOSPC, "write", "/spill/f");
  const StatusOr<int> failed = error;
  EXPECT_FALSE(failed.ok());
  EXPECT_EQ(failed.status(), error);
  const StatusOr<std::string> exhausted = Status(StatusCode::kResourceExhausted, "over");
  EXPECT_EQ(exhausted.status().code(), StatusCode::kResourceExhausted);
}

TEST(StatusOrTest, MovesOutAMoveOnlyValue) {
  StatusOr<std::unique_ptr<int>> holder = std::make_unique<int>(5);
  ASSERT_TRUE(holder.ok());
  EXPECT_EQ(**holder, 5);
  std::unique_ptr<int> taken = std::move(holder).value();
  ASSERT_NE(taken, nullptr);
  EXPECT_EQ(*taken, 5);

  StatusOr<std::unique_ptr<int>> other = std::make_unique<int>(6);
  std::unique_ptr<int> by_star = *std::move(other);
  EXPECT_EQ(*by_star, 6);
}

// Runs steps in order through SPILLWAY_RETURN_IF_ERROR, recording which ran.
Status RunSteps(const std::vector<Status>& steps, std::vector<size_t>* ran) {
  for (size_t i = 0; i < steps.size(); ++i) {
    SPILLWAY_RETURN_IF_ERROR((ran->push_back(i), steps[i]));
  }
  return OkStatus();
}

TEST(ReturnIfErrorTest, ReturnsTheFirstErrorAndEvaluatesOnce) {
  std::vector<size_t> ran;
  const Status error = Status::FromErrno(EIO, "write", "/f");
  EXPECT_EQ(RunSteps({OkStatus(), error, Status::InvalidArgument("later")}, &ran), error);
  EXPECT_EQ(ran, (std::vector<size_t>{0, 1}));

  ran.clear();
  EXPECT_TRUE(RunSteps({OkStatus(), OkStatus()}, &ran).ok());
  EXPECT_EQ(ran, (std::vector<size_t>{0, 1}));
}

}  // namespace
}  // namespace spillway
