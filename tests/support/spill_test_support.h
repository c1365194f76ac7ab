// What the spill manager's unit tests share: Status assertions, fault rules in one call,
// and a seeded in-memory filesystem.
#ifndef SPILLWAY_TESTS_SUPPORT_SPILL_TEST_SUPPORT_H_
#define SPILLWAY_TESTS_SUPPORT_SPILL_TEST_SUPPORT_H_

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "spillway/vfs/fault_injecting_file_system.h"
#include "spillway/vfs/mem_file_system.h"
#include "spillway/vfs/status.h"

// Assert or expect that a Status is OK, printing it when it is not.
#define ASSERT_OK(expr)                                                  \
  do {                                                                   \
    const ::spillway::Status& assert_ok_status_ = (expr);                \
    ASSERT_TRUE(assert_ok_status_.ok()) << assert_ok_status_.ToString(); \
  } while (0)
#define EXPECT_OK(expr)                                                  \
  do {                                                                   \
    const ::spillway::Status& expect_ok_status_ = (expr);                \
    EXPECT_TRUE(expect_ok_status_.ok()) << expect_ok_status_.ToString(); \
  } while (0)

// ASSERT_OK_AND_ASSIGN(lhs, expr): asserts a StatusOr is OK and moves its value into lhs.
#define SPILLWAY_TEST_CONCAT_(a, b) a##b
#define SPILLWAY_TEST_CONCAT(a, b) SPILLWAY_TEST_CONCAT_(a, b)
#define ASSERT_OK_AND_ASSIGN(lhs, expr) \
  ASSERT_OK_AND_ASSIGN_IMPL_(SPILLWAY_TEST_CONCAT(status_or_, __LINE__), lhs, expr)
// `tmp` is the name being declared and `lhs` may be a declaration (`auto x`): neither can
// be parenthesised.
#define ASSERT_OK_AND_ASSIGN_IMPL_(tmp, lhs, expr)                      \
  auto tmp = (expr); /* NOLINT(bugprone-macro-parentheses): declared */ \
  ASSERT_TRUE((tmp).ok()) << (tmp).status().ToString();                 \
  lhs = std::move(tmp).value() /* NOLINT(bugprone-macro-parentheses): declaration */

namespace spillway {

// A fault rule failing calls of `op` (every kind when nullopt) on paths matching `glob`
// (every path when empty) with `error`: `times` of them (every one when nullopt), after
// letting `after` through.
inline FaultRule Fail(std::optional<OpKind> op, int error, std::string glob = "",
                      std::optional<uint64_t> times = 1, uint64_t after = 0) {
  FaultRule rule;
  rule.op = op;
  rule.error_number = error;
  rule.path_glob = std::move(glob);
  rule.times = times;
  rule.after = after;
  return rule;
}

inline std::shared_ptr<MemFileSystem> NewMemFileSystem(uint64_t seed) {
  MemFileSystemOptions options;
  options.seed = seed;
  return NewMemFileSystem(options);
}

}  // namespace spillway

#endif  // SPILLWAY_TESTS_SUPPORT_SPILL_TEST_SUPPORT_H_
