// GoogleMock matchers for Status, StatusOr and AppendResult: IsOk(), FailsWith(errno) and
// IsErrno(errno, op, path). On a mismatch they print the Status; the PrintTo overloads make
// gtest print these values as their Status, not as bytes.
#ifndef SPILLWAY_TESTS_SUPPORT_STATUS_MATCHERS_H_
#define SPILLWAY_TESTS_SUPPORT_STATUS_MATCHERS_H_

#include <gmock/gmock.h>

#include <ostream>

#include "spillway/vfs/file_system.h"
#include "spillway/vfs/status.h"

namespace spillway {

inline Status StatusOf(const Status& status) { return status; }
inline Status StatusOf(const AppendResult& result) { return result.status; }
template <typename T>
Status StatusOf(const StatusOr<T>& status_or) {
  return status_or.status();
}

// Found by ADL when gtest prints a value of these types.
inline void PrintTo(const Status& status, std::ostream* os) { *os << status.ToString(); }
inline void PrintTo(const AppendResult& result, std::ostream* os) {
  *os << result.bytes_written << " bytes written, " << result.status.ToString();
}
template <typename T>
void PrintTo(const StatusOr<T>& status_or, std::ostream* os) {
  *os << (status_or.ok() ? "a value" : status_or.status().ToString());
}

MATCHER(IsOk, "is OK") {
  const Status status = StatusOf(arg);
  *result_listener << status.ToString();
  return status.ok();
}

MATCHER_P(FailsWith, error_number, "fails with " + ErrnoName(error_number)) {
  const Status status = StatusOf(arg);
  *result_listener << status.ToString();
  return status.IsErrno(error_number);
}

// Matches an errno Status (Status::FromErrno) with this errno, op and path.
MATCHER_P3(IsErrno, error_number, op, path,
           ErrnoName(error_number) + " from " + op + " on " + path) {
  const Status status = StatusOf(arg);
  *result_listener << status.ToString();
  return status.IsErrno(error_number) && status.op() == op && status.path() == path;
}

}  // namespace spillway

#endif  // SPILLWAY_TESTS_SUPPORT_STATUS_MATCHERS_H_
