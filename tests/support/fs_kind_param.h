// The filesystem kind (vocab::FsKind) as a test parameter: how GoogleTest prints it, and the
// name it gives a test run on it ("Mem", "Posix"). For the FileSystem conformance suite and
// the scenario tests.
#ifndef SPILLWAY_TESTS_SUPPORT_FS_KIND_PARAM_H_
#define SPILLWAY_TESTS_SUPPORT_FS_KIND_PARAM_H_

#include <gtest/gtest.h>

#include <cctype>
#include <ostream>
#include <string>

#include "spillway/vocab/vocab.h"

namespace spillway::vocab {

// Its name, capitalised; found by argument-dependent lookup.
inline void PrintTo(FsKind kind, std::ostream* os) {
  std::string name(FsKindName(kind));
  name[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(name[0])));
  *os << name;
}

}  // namespace spillway::vocab

namespace spillway::test_support {

// The name of a test run on filesystem `info.param`, as PrintTo prints it.
inline std::string FsKindParamName(const ::testing::TestParamInfo<vocab::FsKind>& info) {
  return ::testing::PrintToString(info.param);
}

}  // namespace spillway::test_support

#endif  // SPILLWAY_TESTS_SUPPORT_FS_KIND_PARAM_H_
