#include "spillway/vfs/status.h"

#include <array>
#include <cerrno>
#include <cstring>
#include <utility>

#include <fmt/format.h>

namespace spillway {
namespace {

struct ErrnoEntry {
  int value;
  std::string_view name;
};

// The errnos a filesystem or a scenario can meet.
constexpr std::array kErrnoNames = {
    ErrnoEntry{EPERM, "EPERM"},         ErrnoEntry{ENOENT, "ENOENT"},
    ErrnoEntry{EINTR, "EINTR"},         ErrnoEntry{EIO, "EIO"},
    ErrnoEntry{EBADF, "EBADF"},         ErrnoEntry{EAGAIN, "EAGAIN"},
    ErrnoEntry{ENOMEM, "ENOMEM"},       ErrnoEntry{EACCES, "EACCES"},
    ErrnoEntry{EBUSY, "EBUSY"},         ErrnoEntry{EEXIST, "EEXIST"},
    ErrnoEntry{EXDEV, "EXDEV"},         ErrnoEntry{ENOTDIR, "ENOTDIR"},
    ErrnoEntry{EISDIR, "EISDIR"},       ErrnoEntry{EINVAL, "EINVAL"},
    ErrnoEntry{ENFILE, "ENFILE"},       ErrnoEntry{EMFILE, "EMFILE"},
    ErrnoEntry{EFBIG, "EFBIG"},         ErrnoEntry{ENOSPC, "ENOSPC"},
    ErrnoEntry{EROFS, "EROFS"},         ErrnoEntry{EMLINK, "EMLINK"},
    ErrnoEntry{ENAMETOOLONG, "ENAMETOOLONG"}, ErrnoEntry{ENOTEMPTY, "ENOTEMPTY"},
    ErrnoEntry{ELOOP, "ELOOP"},         ErrnoEntry{EDQUOT, "EDQUOT"},
    ErrnoEntry{ESTALE, "ESTALE"},       ErrnoEntry{ENOTSUP, "ENOTSUP"},
};

}  // namespace

Status Status::FromErrno(int error_number, std::string_view op, std::string_view path) {
  Status s;
  s.code_ = StatusCode::kErrno;
  s.error_number_ = error_number;
  s.op_ = std::string(op);
  s.path_ = std::string(path);
  s.message_ = std::strerror(error_number);
  return s;
}

Status Status::LimitExceeded(std::string_view message) {
  Status s;
  s.code_ = StatusCode::kLimitExceeded;
  s.message_ = std::string(message);
  return s;
}

Status Status::Disabled(std::string_view message) {
  Status s;
  s.code_ = StatusCode::kDisabled;
  s.message_ = std::string(message);
  return s;
}

Status Status::InvalidArgument(std::string_view message) {
  Status s;
  s.code_ = StatusCode::kInvalidArgument;
  s.message_ = std::string(message);
  return s;
}

std::string Status::CodeName() const {
  switch (code_) {
    case StatusCode::kOk:
      return "OK";
    case StatusCode::kErrno:
      return ErrnoName(error_number_);
    case StatusCode::kLimitExceeded:
      return "LIMIT";
    case StatusCode::kDisabled:
      return "DISABLED";
    case StatusCode::kInvalidArgument:
      return "INVALID";
  }
  return "UNKNOWN";
}

std::string Status::ToString() const {
  switch (code_) {
    case StatusCode::kOk:
      return "OK";
    case StatusCode::kErrno:
      return fmt::format("{} {}: {} ({})", op_, path_, message_, ErrnoName(error_number_));
    default:
      return fmt::format("{}: {}", CodeName(), message_);
  }
}

std::string ErrnoName(int error_number) {
  for (const ErrnoEntry& e : kErrnoNames) {
    if (e.value == error_number) return std::string(e.name);
  }
  return fmt::format("E{}", error_number);
}

std::optional<int> ErrnoFromName(std::string_view name) {
  for (const ErrnoEntry& e : kErrnoNames) {
    if (e.name == name) return e.value;
  }
  return std::nullopt;
}

}  // namespace spillway
