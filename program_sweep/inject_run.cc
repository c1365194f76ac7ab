#include "inject_run.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace spillway::program_sweep {
namespace {

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<std::string> InjectArgv(const InjectInvocation& inv) {
  std::vector<std::string> argv = {
      inv.spillway_binary,         "inject", "--under", inv.scope, "--trace",
      inv.files_prefix + ".trace", "--json"};
  if (!inv.symbolize) argv.push_back("--no-symbolize");
  for (const std::string& fault : inv.faults) {
    argv.push_back("--fault");
    argv.push_back(fault);
  }
  if (inv.timeout > 0) {
    std::ostringstream seconds;
    seconds << inv.timeout;
    argv.push_back("--timeout");
    argv.push_back(seconds.str());
  }
  if (!inv.share_with.empty()) {
    argv.push_back("--share-with");
    argv.push_back(inv.share_with);
  }
  argv.push_back("--");
  argv.insert(argv.end(), inv.command.begin(), inv.command.end());
  return argv;
}

// Forks and execs `argv` with stdout and stderr into files; returns its exit status
// (128+signal when killed), or 127 when it could not start.
int Spawn(const std::vector<std::string>& argv, const std::string& out, const std::string& err) {
  std::vector<char*> args;
  args.reserve(argv.size() + 1);
  for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  const pid_t pid = fork();
  if (pid == 0) {
    const int in_fd = open("/dev/null", O_RDONLY);
    const int out_fd = open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int err_fd = open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (in_fd < 0 || out_fd < 0 || err_fd < 0) _exit(127);
    dup2(in_fd, 0);
    dup2(out_fd, 1);
    dup2(err_fd, 2);
    execv(args[0], args.data());
    _exit(127);
  }
  if (pid < 0) return 127;
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
}

// Splits inject's stdout into the program's output and the JSON summary printed after it
// (on the last line, possibly after program output that did not end with a newline).
bool SplitSummary(const std::string& text, std::string* program, nlohmann::json* summary) {
  size_t end = text.size();
  if (end > 0 && text[end - 1] == '\n') --end;
  const size_t line = text.rfind('\n', end == 0 ? 0 : end - 1);
  const size_t start = line == std::string::npos ? 0 : line + 1;
  for (size_t brace = text.find('{', start); brace < end; brace = text.find('{', brace + 1)) {
    *summary = nlohmann::json::parse(text.begin() + static_cast<long>(brace),
                                     text.begin() + static_cast<long>(end), nullptr, false);
    if (!summary->is_discarded() && summary->is_object() && summary->contains("leftovers")) {
      *program = text.substr(0, brace);
      return true;
    }
  }
  return false;
}

void ReadSummary(const nlohmann::json& summary, InjectOutcome* outcome) {
  for (const nlohmann::json& entry : summary["leftovers"]) {
    outcome->leftovers.push_back(
        {entry.value("path", ""), entry.value("size", uint64_t{0}), Leftover::Kind::kLeak});
  }
  if (summary.contains("faults")) {
    for (const nlohmann::json& f : summary["faults"]) {
      outcome->faults.push_back({f.value("op", ""), f.value("errno", ""), f.value("path", "")});
    }
  }
}

}  // namespace

InjectOutcome RunInject(const InjectInvocation& invocation) {
  InjectOutcome outcome;
  const std::string out = invocation.files_prefix + ".stdout";
  const std::string err = invocation.files_prefix + ".stderr";
  const auto start = std::chrono::steady_clock::now();
  outcome.status = Spawn(InjectArgv(invocation), out, err);
  outcome.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  outcome.inject_stderr = ReadFile(err);
  nlohmann::json summary;
  outcome.summary = SplitSummary(ReadFile(out), &outcome.program_stdout, &summary);
  if (outcome.summary) ReadSummary(summary, &outcome);
  outcome.trace = invocation.files_prefix + ".trace";
  return outcome;
}

std::string ShellWord(std::string_view word) {
  const bool safe = !word.empty() && word.find_first_not_of(
                                         "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                         "0123456789_-./=:,+@%") == std::string_view::npos;
  if (safe) return std::string(word);
  std::string quoted = "'";
  for (char c : word) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

}  // namespace spillway::program_sweep
