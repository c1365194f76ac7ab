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
  EXPECT_EQ(status.CodeName(), "OK");
  EXPECT_EQ(status.ToString(), "OK");
  EXPECT_EQ(status, OkStatus());
}

TEST(StatusTest, FromErrnoKeepsTheErrnoTheOpAndThePath) {
  const Status status = Status::FromErrno(ENOTDIR, "mkdir", "/local0/f/x");
  EXPECT_FALSE(status.ok());
  EXPECT_EQ(status.code(), StatusCode::kErrno);
  EXPECT_EQ(status.error_number(), ENOTDIR);
  EXPECT_TRUE(status.IsErrno(ENOTDIR));
  // The exact errno: related ones are different answers.
  EXPECT_FALSE(status.IsErrno(ENOENT));
  EXPECT_FALSE(status.IsErrno(EACCES));
  EXPECT_EQ(status.op(), "mkdir");
  EXPECT_EQ(status.path(), "/local0/f/x");
  EXPECT_EQ(status.message(), std::strerror(ENOTDIR));
  EXPECT_EQ(status.CodeName(), "ENOTDIR");
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

TEST(StatusTest, ManagerErrorsHaveTheirOwnCodes) {
  struct Case {
    Status status;
    StatusCode code;
    std::string code_name;
  };
  const std::vector<Case> cases = {
      {Status::LimitExceeded("plan p: 200 > 100"), StatusCode::kLimitExceeded, "LIMIT"},
      {Status::Disabled("plan p: spilling disabled"), StatusCode::kDisabled, "DISABLED"},
      {Status::InvalidArgument("bad path \"a\""), StatusCode::kInvalidArgument, "INVALID"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.code_name);
    EXPECT_FALSE(c.status.ok());
    EXPECT_EQ(c.status.code(), c.code);
    EXPECT_EQ(c.status.CodeName(), c.code_name);
    // Not a system call's failure: no errno, op or path.
    EXPECT_EQ(c.status.error_number(), 0);
    EXPECT_FALSE(c.status.IsErrno(0));
    EXPECT_TRUE(c.status.op().empty());
    EXPECT_TRUE(c.status.path().empty());
    EXPECT_THAT(c.status.ToString(), HasSubstr(c.code_name));
    EXPECT_THAT(c.status.ToString(), HasSubstr(c.status.message()));
  }
  EXPECT_EQ(Status::LimitExceeded("m").message(), "m");
}

TEST(StatusTest, EqualityComparesEveryField) {
  const Status a = Status::FromErrno(EIO, "write", "/f");
  EXPECT_EQ(a, Status::FromErrno(EIO, "write", "/f"));
  EXPECT_NE(a, Status::FromErrno(ENOSPC, "write", "/f"));
  EXPECT_NE(a, Status::FromErrno(EIO, "fsync", "/f"));
  EXPECT_NE(a, Status::FromErrno(EIO, "write", "/g"));
  EXPECT_NE(a, OkStatus());
  EXPECT_NE(Status::Disabled("x"), Status::InvalidArgument("x"));
  EXPECT_NE(Status::Disabled("x"), Status::Disabled("y"));
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
  EXPECT_EQ(ErrnoFromName("LIMIT"), std::nullopt);
  // The Status of an unknown errno still prints.
  EXPECT_THAT(Status::FromErrno(9999, "open", "/f").ToString(), HasSubstr("E9999"));
  EXPECT_EQ(Status::FromErrno(9999, "open", "/f").CodeName(), "E9999");
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
  const StatusOr<std::string> limit = Status::LimitExceeded("over");
  EXPECT_EQ(limit.status().code(), StatusCode::kLimitExceeded);
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
  EXPECT_EQ(RunSteps({OkStatus(), error, Status::Disabled("later")}, &ran), error);
  EXPECT_EQ(ran, (std::vector<size_t>{0, 1}));

  ran.clear();
  EXPECT_TRUE(RunSteps({OkStatus(), OkStatus()}, &ran).ok());
  EXPECT_EQ(ran, (std::vector<size_t>{0, 1}));
}

}  // namespace
}  // namespace spillway
