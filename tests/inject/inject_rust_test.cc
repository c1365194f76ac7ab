// A Rust program that spills as DataFusion does (the tempfile crate): every one of its
// file calls in the scope is seen, and each one can be failed, statx included.
#include <string>
#include <vector>

#include "support/inject_support.h"

namespace spillway::inject {
namespace {

class RustTest : public InjectTest {
 protected:
  void SetUp() override {
    if (std::string(RUST_SPILL).empty()) {
      GTEST_SKIP() << "rust_spill was not built: install Debian's cargo, rustc and "
                      "librust-tempfile-dev (scripts/install-deps.sh test) and reconfigure";
    }
  }
  CommandResult Spill(const std::string& args) const {
    // Appended, not `std::string(RUST_SPILL) + " "`: GCC 12 warns of a memcpy out of bounds
    // in that (its -Warray-bounds false positive on a temporary string's operator+).
    std::string command = RUST_SPILL;
    command.append(" ").append(ShellQuote(scope_));
    return RunShell(Inject(args, command));
  }
};

TEST_F(RustTest, EveryInScopeCallIsSeenAndCanBeFailed) {
  const CommandResult baseline = Spill("");
  ASSERT_EQ(baseline.exit_code, 0);
  EXPECT_EQ(baseline.out, "100000 100000\n");
  const std::vector<nlohmann::json> calls = ReadTrace(trace_);
  std::set<std::string> ops, names;
  for (const nlohmann::json& line : calls) {
    ops.insert(line["op"].get<std::string>());
    names.insert(line["call"].get<std::string>());
  }
  for (const char* op : {"mkdir", "create", "write", "stat", "read", "remove", "rmdir", "list"}) {
    EXPECT_EQ(ops.count(op), 1u) << op;
  }
  EXPECT_EQ(names.count("statx"), 1u);

  // Fail the n-th in-scope call alone: it is the baseline's n-th call, and it is injected.
  for (size_t n = 1; n <= calls.size(); ++n) {
    const CommandResult run = Spill("--fault 'any EIO after=" + std::to_string(n - 1) + "'");
    const std::vector<nlohmann::json> trace = ReadTrace(trace_);
    ASSERT_GE(trace.size(), n) << "call " << n;
    EXPECT_EQ(trace[n - 1]["call"], calls[n - 1]["call"]) << "call " << n;
    EXPECT_EQ(trace[n - 1]["injected"], true) << "call " << n;
    EXPECT_EQ(trace[n - 1]["errno"], "EIO") << "call " << n;
  }
}

}  // namespace
}  // namespace spillway::inject
