// Every call of the table in docs/inject.md, failed in scope with a realistic errno and
// untouched on a twin outside the scope (calls_probe.c makes the calls and checks what each
// returns).
#include <cerrno>
#include <fstream>
#include <map>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include "spillway/vfs/fault_rules.h"
#include "support/inject_support.h"

namespace spillway::inject {
namespace {

struct OpCase {
  const char* op;
  int error_number;
};

// gtest shows a case as its rule's words ("create ENOSPC"), not as raw bytes.
void PrintTo(const OpCase& c, std::ostream* os) {
  *os << c.op << ' ' << ErrnoSymbol(c.error_number);
}

class CallsTest : public InjectTest, public ::testing::WithParamInterface<OpCase> {
 protected:
  void SetUp() override {
    for (const auto& dir : {scope_, twin_}) {
      std::ofstream existing(dir / "existing");
      for (int i = 0; i < 20; ++i) existing << "line " << i << "\n";
    }
  }
};

TEST_P(CallsTest, EveryCallOfTheOpFailsInScopeWithTheErrnoAndOnceInTheTrace) {
  const OpCase c = GetParam();
  const std::string rule = std::string(c.op) + " " + ErrnoSymbol(c.error_number) + " times=forever";
  const CommandResult result =
      RunShell(Inject("--fault " + ShellQuote(rule),
                      std::string(CALLS_PROBE) + " " + c.op + " " + std::to_string(c.error_number) +
                          " " + ShellQuote(scope_) + " " + ShellQuote(twin_)));
  ASSERT_EQ(result.exit_code, 0) << "the probe saw a call behave wrongly (its stderr says which)";

  std::map<std::string, int> expected;  // Call name -> in-scope calls the probe made.
  std::istringstream names(result.out);
  for (std::string name; std::getline(names, name);) ++expected[name];
  ASSERT_FALSE(expected.empty());

  std::map<std::string, int> injected;
  for (const nlohmann::json& line : ReadTrace(trace_)) {
    const std::string path = line["path"];
    EXPECT_EQ(path.rfind(twin_.string(), 0), std::string::npos) << "twin traced: " << line;
    if (line["op"] != c.op || !line["injected"].get<bool>()) continue;
    EXPECT_EQ(line["errno"], ErrnoSymbol(c.error_number));
    EXPECT_EQ(line["result"], -1);
    ++injected[line["call"].get<std::string>()];
  }
  EXPECT_EQ(injected, expected);
}

TEST_F(InjectTest, CallsLetThroughLeaveErrnoAlone) {
  std::ofstream(scope_ / "existing") << "x\n";
  std::ofstream(twin_ / "existing") << "x\n";
  const CommandResult result =
      RunShell(Inject("", std::string(CALLS_PROBE) + " keep-errno 0 " + ShellQuote(scope_) + " " +
                              ShellQuote(twin_)));
  EXPECT_EQ(result.exit_code, 0);
}

INSTANTIATE_TEST_SUITE_P(
    EveryOp, CallsTest,
    ::testing::Values(OpCase{"create", ENOSPC}, OpCase{"open", EACCES}, OpCase{"write", ENOSPC},
                      OpCase{"read", EIO}, OpCase{"mkdir", EDQUOT}, OpCase{"remove", EBUSY},
                      OpCase{"rmdir", ENOTEMPTY}, OpCase{"rename", EXDEV}, OpCase{"list", EACCES},
                      OpCase{"stat", EACCES}, OpCase{"sync", EIO}, OpCase{"close", EIO}),
    [](const ::testing::TestParamInfo<OpCase>& param) { return std::string(param.param.op); });

}  // namespace
}  // namespace spillway::inject
