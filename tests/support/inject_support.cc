#include "support/inject_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <iterator>

namespace spillway::inject {

CommandResult RunShell(const std::string& command) {
  CommandResult result;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return result;
  char buf[65536];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), pipe)) > 0) result.out.append(buf, n);
  const int status = pclose(pipe);
  result.exit_code = WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
  return result;
}

CommandResult RunShellWithStderr(const std::string& command) {
  std::string err_file = (std::filesystem::temp_directory_path() / "spillway-stderr-XXXXXX");
  const int fd = mkstemp(err_file.data());
  if (fd < 0) return {};
  close(fd);
  CommandResult result = RunShell("{ " + command + "\n} 2>" + ShellQuote(err_file));
  std::ifstream err(err_file);
  result.err.assign(std::istreambuf_iterator<char>(err), std::istreambuf_iterator<char>());
  std::filesystem::remove(err_file);
  return result;
}

void ExpectUsageError(const CommandResult& result, const std::string& command,
                      const std::string& what) {
  EXPECT_EQ(result.exit_code, 2) << what << "\n" << result.err;
  EXPECT_EQ(result.out, "") << what;
  EXPECT_TRUE(result.err.starts_with("spillway " + command + ": ")) << what << "\n" << result.err;
  EXPECT_EQ(std::count(result.err.begin(), result.err.end(), '\n'), 1) << what << "\n"
                                                                       << result.err;
}

namespace {

// The lines of the trace that have (calls) or lack (frames) the key "seq".
std::vector<nlohmann::json> ReadLines(const std::filesystem::path& trace, bool calls) {
  std::vector<nlohmann::json> lines;
  std::ifstream in(trace);
  for (std::string text; std::getline(in, text);) {
    nlohmann::json line = nlohmann::json::parse(text);
    if (line.contains("seq") == calls) lines.push_back(std::move(line));
  }
  return lines;
}

}  // namespace

std::vector<nlohmann::json> ReadTrace(const std::filesystem::path& trace) {
  return ReadLines(trace, true);
}

std::vector<nlohmann::json> ReadSites(const std::filesystem::path& trace) {
  return ReadLines(trace, false);
}

std::string ShellQuote(const std::string& word) {
  std::string quoted = "'";
  for (char c : word) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

InjectTest::InjectTest() {
  std::string pattern = (std::filesystem::temp_directory_path() / "spillway-inject-XXXXXX");
  root_ = mkdtemp(pattern.data());
  scope_ = root_ / "scope";
  twin_ = root_ / "twin";
  trace_ = root_ / "trace.jsonl";
  std::filesystem::create_directory(scope_);
  std::filesystem::create_directory(twin_);
}

InjectTest::~InjectTest() { std::filesystem::remove_all(root_); }

std::string InjectTest::Inject(const std::string& args, const std::string& command) const {
  return std::string(SPILLWAY_BINARY) + " inject --under " + ShellQuote(scope_) + " --trace " +
         ShellQuote(trace_) + " " + args + " -- " + command;
}

nlohmann::json InjectTest::SweepJson(const std::string& args, const std::string& program,
                                     int expected_exit) const {
  const CommandResult run =
      RunShell(std::string(SPILLWAY_BINARY) + " sweep --under " + ShellQuote(scope_) + " --json " +
               args + " -- " + program + " '{dir}'");
  EXPECT_EQ(run.exit_code, expected_exit) << args << " " << program;
  nlohmann::json result = nlohmann::json::parse(run.out, nullptr, false);
  return result.is_discarded() ? nlohmann::json(nullptr) : result;
}

}  // namespace spillway::inject
