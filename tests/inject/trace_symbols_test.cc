// SymbolizeTraceFrames (inject/launcher/trace_symbols.h): a bare frame of a module with
// symbols gets its function and file:line, everything else stays as it was.
#include "trace_symbols.h"

#include <dlfcn.h>
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "support/inject_support.h"

// A function of this executable for addr2line to name.
extern "C" [[gnu::noinline, gnu::used]] int SpillwayTraceSymbolsMarker(int x) { return x * 3 + 1; }

namespace spillway::inject {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::StartsWith;

std::string ReadAll(const fs::path& path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The marker as the shim writes a frame of it: MODULE+0xOFFSET, the offset a return
// address just past the function's first byte.
std::string MarkerFrame() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&SpillwayTraceSymbolsMarker), &info) == 0) return "";
  const auto offset = reinterpret_cast<uintptr_t>(&SpillwayTraceSymbolsMarker) -
                      reinterpret_cast<uintptr_t>(info.dli_fbase) + 1;
  return fmt::format("{}+0x{:x}", fs::read_symlink("/proc/self/exe").string(), offset);
}

class TraceSymbolsTest : public InjectTest {};

TEST_F(TraceSymbolsTest, ABareFrameGetsItsFunctionAndLineAndTheRestIsKept) {
  if (access("/usr/bin/addr2line", X_OK) != 0) GTEST_SKIP() << "addr2line is not installed";
  const std::string bare = MarkerFrame();
  ASSERT_FALSE(bare.empty());
  // A call line in an unusual spacing, which must survive byte for byte.
  const std::string call = "{\"seq\": 1,  \"op\":\"write\"}";
  std::ofstream(trace_) << call << "\n"
                        << "{\"site\":\"9f3a1c0b77e2\",\"frames\":[\"" << bare
                        << "\",\"/no/such/module+0x10\",\"" << bare << " named\"]}\n";
  SymbolizeTraceFrames(trace_.string());

  const std::string text = ReadAll(trace_);
  EXPECT_THAT(text, StartsWith(call + "\n"));
  const std::vector<nlohmann::json> sites = ReadSites(trace_);
  ASSERT_EQ(sites.size(), 1u);
  EXPECT_EQ(sites[0]["site"], "9f3a1c0b77e2");
  const auto frames = sites[0]["frames"].get<std::vector<std::string>>();
  ASSERT_EQ(frames.size(), 3u);
  EXPECT_THAT(frames[0], StartsWith(bare + " SpillwayTraceSymbolsMarker "));
  EXPECT_THAT(frames[0], HasSubstr("trace_symbols_test.cc:"));
  EXPECT_EQ(frames[1], "/no/such/module+0x10");
  EXPECT_EQ(frames[2], bare + " named");
}

TEST_F(TraceSymbolsTest, ATraceWithNothingToNameIsLeftAsItIs) {
  const std::string text =
      "{\"seq\":1,\"op\":\"write\"}\n{\"site\":\"000000000001\",\"frames\":[\"/no/such+0x1\"]}\n";
  std::ofstream(trace_) << text;
  SymbolizeTraceFrames(trace_.string());
  EXPECT_EQ(ReadAll(trace_), text);
}

}  // namespace
}  // namespace spillway::inject
