// Status and StatusOr: errors as values.
//
// Every fallible call in spillway returns a Status (or a StatusOr<T>). Both are
// [[nodiscard]], so an error that is silently dropped is a compile warning. Nothing in
// spillway throws across an API boundary.
//
// A filesystem error keeps the exact errno (ENOENT, ENOTDIR and EACCES are different
// answers), the operation that failed and the path it failed on. The spill manager adds two
// errors of its own: kLimitExceeded (a plan's max_temp_directory_size would be exceeded)
// and kDisabled (spilling is disabled for this manager).
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

enum class StatusCode {
  kOk = 0,
  kErrno,            // A system call failed; error_number() says why.
  kLimitExceeded,    // A spill would exceed the manager's size limit.
  kDisabled,         // Spilling is disabled for this manager.
  kInvalidArgument,  // The caller passed something malformed.
};

class [[nodiscard]] Status {
 public:
  // An OK status.
  Status() = default;

  // A failed system call: `error_number` is the errno it returned (non-zero), `op` names
  // the operation ("mkdir", "open", "write", ...), `path` the path it acted on.
  static Status FromErrno(int error_number, std::string_view op, std::string_view path);
  static Status LimitExceeded(std::string_view message);
  static Status Disabled(std::string_view message);
  static Status InvalidArgument(std::string_view message);

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  // The errno of a kErrno status; 0 for every other code.
  int error_number() const { return error_number_; }
  // True when this is a kErrno status carrying exactly `error_number`.
  bool IsErrno(int error_number) const {
    return code_ == StatusCode::kErrno && error_number_ == error_number;
  }
  const std::string& op() const { return op_; }
  const std::string& path() const { return path_; }
  const std::string& message() const { return message_; }

  // The short name used in scenario files and reports: "OK", an errno name such as
  // "ENOENT", "LIMIT", "DISABLED" or "INVALID".
  std::string CodeName() const;
  // One line for people: "mkdir /local0/datafusion-x: No such file or directory (ENOENT)".
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
