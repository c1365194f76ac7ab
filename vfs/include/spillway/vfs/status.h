// Status and StatusOr: errors as values.
//
// Every fallible call in spillway returns a Status (or a StatusOr<T>). Both are
// [[nodiscard]], so an error that is silently dropped is a compile warning. Nothing in
// spillway throws across an API boundary.
//
// A Status has a canonical code, with the names, meanings and numbers of absl::StatusCode.
// A filesystem error (FromErrno) also keeps the exact errno (ENOENT, ENOTDIR and EACCES are
// different answers), the operation that failed and the path it failed on; its code comes
// from the errno (ErrnoToStatusCode), so an errno status always has error_number() != 0.
// Any other error is made from a code and a message, and has error_number() == 0: a layer
// above can tell its own errors from a system call's that share their code.
//
// Thread safety: Status and StatusOr are values; const methods may be called concurrently.
#ifndef SPILLWAY_VFS_STATUS_H_
#define SPILLWAY_VFS_STATUS_H_

#include <cassert>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace spillway {

// The canonical codes spillway uses: absl::StatusCode's names, meanings and numbers.
enum class StatusCode : int {
  kOk = 0,
  kUnknown = 2,             // An error without a better code (e.g. EIO).
  kInvalidArgument = 3,     // The caller passed something malformed, whatever the state.
  kNotFound = 5,            // Something named does not exist (ENOENT).
  kAlreadyExists = 6,       // Something to be created exists already (EEXIST).
  kPermissionDenied = 7,    // Not allowed (EACCES, EPERM, EROFS).
  kResourceExhausted = 8,   // Out of a resource: space, quota, descriptors (ENOSPC).
  kFailedPrecondition = 9,  // The system is not in the state the call needs (ENOTDIR).
  kAborted = 10,            // Interrupted by a concurrent change (ESTALE).
  kOutOfRange = 11,         // Past a valid range (EFBIG).
  kUnimplemented = 12,      // Not supported (ENOTSUP, EXDEV).
  kUnavailable = 14,        // Transient; retrying may succeed (EAGAIN, EINTR).
  kDataLoss = 15,           // Data read back is not what was stored (a spill frame's checksum).
};

// Abseil's spelling of a code: "OK", "INVALID_ARGUMENT", "RESOURCE_EXHAUSTED", ...
std::string_view StatusCodeName(StatusCode code);

// The canonical code of an errno, as absl::ErrnoToStatusCode maps it: ENOENT is kNotFound,
// ENOSPC kResourceExhausted, ENOTDIR kFailedPrecondition, and so on. 0 is kOk; an errno
// that ErrnoName does not know is kUnknown.
StatusCode ErrnoToStatusCode(int error_number);

class [[nodiscard]] Status {
 public:
  // An OK status.
  Status() = default;
  // An error that is not a system call's: `code` and a message for people.
  // REQUIRES: code != StatusCode::kOk.
  Status(StatusCode code, std::string_view message);

  // A failed system call: `error_number` is the errno it returned, `op` names the
  // operation ("mkdir", "open", "write", ...), `path` the path it acted on. The code is
  // ErrnoToStatusCode(error_number). REQUIRES: error_number != 0.
  static Status FromErrno(int error_number, std::string_view op, std::string_view path);
  // Status(kInvalidArgument, message).
  static Status InvalidArgument(std::string_view message);

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  // The errno of a FromErrno status; 0 for every other status.
  int error_number() const { return error_number_; }
  // True when this is a FromErrno status carrying exactly `error_number`.
  bool IsErrno(int error_number) const {
    return error_number_ != 0 && error_number_ == error_number;
  }
  const std::string& op() const { return op_; }
  const std::string& path() const { return path_; }
  const std::string& message() const { return message_; }
  // This status with `message` in place of its message; code, errno, op and path kept.
  // REQUIRES: !ok().
  Status WithMessage(std::string_view message) const;

  // One line for people. An errno status: "mkdir /local0/datafusion-x: No such file or
  // directory (ENOENT)"; any other error: "INVALID_ARGUMENT: <message>"; "OK".
  std::string ToString() const;

  friend bool operator==(const Status& a, const Status& b) = default;

 private:
  StatusCode code_ = StatusCode::kOk;
  int error_number_ = 0;
  std::string op_;
  std::string path_;
  std::string message_;
};

inline Status OkStatus() { return Status(); }

// The symbolic name of an errno value ("ENOENT"); "E<number>" for one it does not know.
std::string ErrnoName(int error_number);
// The errno value for a symbolic name ("ENOENT" -> ENOENT); nullopt if unknown.
std::optional<int> ErrnoFromName(std::string_view name);

// Either a value of type T or a non-OK Status.
template <typename T>
class [[nodiscard]] StatusOr {
 public:
  // REQUIRES: !status.ok().
  StatusOr(Status status) : rep_(std::move(status)) {  // NOLINT: implicit by design
    assert(!std::get<Status>(rep_).ok());
  }
  StatusOr(T value) : rep_(std::move(value)) {}  // NOLINT: implicit by design

  bool ok() const { return std::holds_alternative<T>(rep_); }
  // OK when a value is held; the error otherwise.
  Status status() const { return ok() ? Status() : std::get<Status>(rep_); }

  // REQUIRES: ok().
  T& value() & { return std::get<T>(rep_); }
  const T& value() const& { return std::get<T>(rep_); }
  T&& value() && { return std::get<T>(std::move(rep_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T&& operator*() && { return std::move(*this).value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

 private:
  std::variant<Status, T> rep_;
};

}  // namespace spillway

// Returns the status of `expr` from the enclosing function when it is not OK.
#define SPILLWAY_RETURN_IF_ERROR(expr)                   \
  do {                                                   \
    ::spillway::Status spillway_status_ = (expr);        \
    if (!spillway_status_.ok()) return spillway_status_; \
  } while (0)

#endif  // SPILLWAY_VFS_STATUS_H_
