// Helpers shared by the sweep's tests (sweep_test.cc, sweep_beyond_upstream_test.cc).
#ifndef SPILLWAY_TESTS_SUPPORT_SWEEP_TEST_SUPPORT_H_
#define SPILLWAY_TESTS_SUPPORT_SWEEP_TEST_SUPPORT_H_

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace spillway::workload_sweep {

// A fresh, empty output directory for the running test, named `prefix` + its name.
inline std::string TestOutDir(const std::string& prefix) {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  const std::filesystem::path dir =
      std::filesystem::path(::testing::TempDir()) / (prefix + info->name());
  std::filesystem::remove_all(dir);
  return dir.string();
}

// One plan, one file, a write that fits under the plan's limit and one that does not.
inline constexpr char kLimitWorkload[] = R"(dir /l
plan p /l limit=10
spill f p
write f 8
write f 8
drop f
drop p
)";

// The whole text of a file the sweep wrote ("" when it cannot be read).
inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace spillway::workload_sweep

#endif  // SPILLWAY_TESTS_SUPPORT_SWEEP_TEST_SUPPORT_H_
