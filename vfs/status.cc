#include "spillway/vfs/status.h"

#include <fmt/format.h>

#include <array>
#include <cassert>
#include <cerrno>
#include <cstring>
#include <utility>

namespace spillway {
namespace {

struct ErrnoEntry {
  int value;
  std::string_view name;
  StatusCode code;  // As absl::ErrnoToStatusCode maps it.
};

using C = StatusCode;

// The errnos a filesystem can meet: their names and canonical codes.
constexpr std::array kErrnos = {
    ErrnoEntry{EPERM, "EPERM", C::kPermissionDenied},
    ErrnoEntry{ENOENT, "ENOENT", C::kNotFound},
    ErrnoEntry{EINTR, "EINTR", C::kUnavailable},
    ErrnoEntry{EIO, "EIO", C::kUnknown},
    ErrnoEntry{EBADF, "EBADF", C::kFailedPrecondition},
    ErrnoEntry{EAGAIN, "EAGAIN", C::kUnavailable},
    ErrnoEntry{ENOMEM, "ENOMEM", C::kResourceExhausted},
    ErrnoEntry{EACCES, "EACCES", C::kPermissionDenied},
    ErrnoEntry{EBUSY, "EBUSY", C::kFailedPrecondition},
    ErrnoEntry{EEXIST, "EEXIST", C::kAlreadyExists},
    ErrnoEntry{EXDEV, "EXDEV", C::kUnimplemented},
    ErrnoEntry{ENOTDIR, "ENOTDIR", C::kFailedPrecondition},
    ErrnoEntry{EISDIR, "EISDIR", C::kFailedPrecondition},
    ErrnoEntry{EINVAL, "EINVAL", C::kInvalidArgument},
    ErrnoEntry{ENFILE, "ENFILE", C::kResourceExhausted},
    ErrnoEntry{EMFILE, "EMFILE", C::kResourceExhausted},
    ErrnoEntry{EFBIG, "EFBIG", C::kOutOfRange},
    ErrnoEntry{ENOSPC, "ENOSPC", C::kResourceExhausted},
    ErrnoEntry{EROFS, "EROFS", C::kPermissionDenied},
    ErrnoEntry{EMLINK, "EMLINK", C::kResourceExhausted},
    ErrnoEntry{ENAMETOOLONG, "ENAMETOOLONG", C::kInvalidArgument},
    ErrnoEntry{ENOTEMPTY, "ENOTEMPTY", C::kFailedPrecondition},
    ErrnoEntry{ELOOP, "ELOOP", C::kUnknown},
    ErrnoEntry{EDQUOT, "EDQUOT", C::kResourceExhausted},
    ErrnoEntry{ESTALE, "ESTALE", C::kAborted},
    ErrnoEntry{ENOTSUP, "ENOTSUP", C::kUnimplemented},
};

const ErrnoEntry* FindErrno(int error_number) {
  for (const ErrnoEntry& e : kErrnos) {
    if (e.value == error_number) return &e;
  }
  return nullptr;
}

}  // namespace

std::string_view StatusCodeName(StatusCode code) {
  switch (code) {
    case C::kOk:
      return "OK";
    case C::kUnknown:
      return "UNKNOWN";
    case C::kInvalidArgument:
      return "INVALID_ARGUMENT";
    case C::kNotFound:
      return "NOT_FOUND";
    case C::kAlreadyExists:
      return "ALREADY_EXISTS";
    case C::kPermissionDenied:
      return "PERMISSION_DENIED";
    case C::kResourceExhausted:
      return "RESOURCE_EXHAUSTED";
    case C::kFailedPrecondition:
      return "FAILED_PRECONDITION";
    case C::kAborted:
      return "ABORTED";
    case C::kOutOfRange:
      return "OUT_OF_RANGE";
    case C::kUnimplemented:
      return "UNIMPLEMENTED";
    case C::kUnavailable:
      return "UNAVAILABLE";
    case C::kDataLoss:
      return "DATA_LOSS";
  }
  return "UNKNOWN";
}

StatusCode ErrnoToStatusCode(int error_number) {
  if (error_number == 0) return C::kOk;
  const ErrnoEntry* entry = FindErrno(error_number);
  return entry != nullptr ? entry->code : C::kUnknown;
}

Status::Status(StatusCode code, std::string_view message)
    : code_(code), message_(std::string(message)) {
  assert(code != StatusCode::kOk);
}

Status Status::FromErrno(int error_number, std::string_view op, std::string_view path) {
  assert(error_number != 0);
  Status s(ErrnoToStatusCode(error_number), std::strerror(error_number));
  s.error_number_ = error_number;
  s.op_ = std::string(op);
  s.path_ = std::string(path);
  return s;
}

Status Status::InvalidArgument(std::string_view message) {
  return Status(StatusCode::kInvalidArgument, message);
}

Status Status::WithMessage(std::string_view message) const {
  assert(!ok());
  Status s = *this;
  s.message_ = std::string(message);
  return s;
}

std::string Status::ToString() const {
  if (ok()) return "OK";
  if (error_number_ != 0) {
    return fmt::format("{} {}: {} ({})", op_, path_, message_, ErrnoName(error_number_));
  }
  return fmt::format("{}: {}", StatusCodeName(code_), message_);
}

std::string ErrnoName(int error_number) {
  const ErrnoEntry* entry = FindErrno(error_number);
  if (entry != nullptr) return std::string(entry->name);
  return fmt::format("E{}", error_number);
}

std::optional<int> ErrnoFromName(std::string_view name) {
  for (const ErrnoEntry& e : kErrnos) {
    if (e.name == name) return e.value;
  }
  return std::nullopt;
}

}  // namespace spillway
