#include "trace_symbols.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

extern char** environ;

namespace spillway::inject {
namespace {

constexpr char kAddr2line[] = "/usr/bin/addr2line";
constexpr size_t kAddressesPerRun = 512;  // Keeps the command line short.

// Splits "MODULE+0xOFFSET" (no symbol) into its parts; false for anything else.
bool SplitBareFrame(const std::string& frame, std::string* module, uint64_t* offset) {
  if (frame.find(' ') != std::string::npos) return false;
  const size_t plus = frame.rfind("+0x");
  if (plus == std::string::npos || plus == 0) return false;
  *module = frame.substr(0, plus);
  *offset = std::strtoull(frame.c_str() + plus + 3, nullptr, 16);
  return true;
}

// Runs addr2line on `module` for `addresses`; returns its stdout ("" on failure).
std::string RunAddr2line(const std::string& module, const std::vector<std::string>& addresses) {
  std::vector<std::string> args = {kAddr2line, "-f", "-C", "-e", module};
  args.insert(args.end(), addresses.begin(), addresses.end());
  std::vector<char*> argv;
  argv.reserve(args.size() + 1);
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  int pipe_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC) != 0) return {};
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], 1);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  pid_t pid = -1;
  const bool started = posix_spawn(&pid, kAddr2line, &actions, nullptr, argv.data(), environ) == 0;
  posix_spawn_file_actions_destroy(&actions);
  close(pipe_fds[1]);
  std::string out;
  char buf[65536];
  ssize_t n;
  while (started && (n = read(pipe_fds[0], buf, sizeof(buf))) > 0) out.append(buf, n);
  close(pipe_fds[0]);
  int status = 0;
  if (started) waitpid(pid, &status, 0);
  return started && WIFEXITED(status) && WEXITSTATUS(status) == 0 ? out : std::string();
}

// The symbol text addr2line gives for one address: "FUNCTION FILE:LINE", parts it could
// not name left out.
std::string SymbolText(const std::string& function, const std::string& location) {
  std::string text = function == "??" ? "" : function;
  if (location.rfind("??", 0) != 0 && !location.empty()) {
    text += (text.empty() ? "" : " ") + location.substr(0, location.find(" (discriminator"));
  }
  return text;
}

// Names every (module, offset) asked for that addr2line can name.
std::map<std::pair<std::string, uint64_t>, std::string> Symbolize(
    const std::map<std::string, std::set<uint64_t>>& wanted) {
  std::map<std::pair<std::string, uint64_t>, std::string> names;
  for (const auto& [module, offsets] : wanted) {
    if (access(module.c_str(), R_OK) != 0) continue;
    const std::vector<uint64_t> all(offsets.begin(), offsets.end());
    for (size_t start = 0; start < all.size(); start += kAddressesPerRun) {
      std::vector<std::string> addresses;
      for (size_t i = start; i < all.size() && i < start + kAddressesPerRun; ++i) {
        // A return address follows its call: name the call's last byte.
        char hex[32];
        std::snprintf(hex, sizeof(hex), "0x%llx", static_cast<unsigned long long>(all[i] - 1));
        addresses.push_back(hex);
      }
      std::istringstream out(RunAddr2line(module, addresses));
      for (size_t i = 0; i < addresses.size(); ++i) {
        std::string function, location;
        if (!std::getline(out, function) || !std::getline(out, location)) break;
        const std::string text = SymbolText(function, location);
        if (!text.empty()) names[{module, all[start + i]}] = text;
      }
    }
  }
  return names;
}

}  // namespace

void SymbolizeTraceFrames(const std::string& path) {
  if (access(kAddr2line, X_OK) != 0) return;
  std::string text;
  {
    std::ifstream in(path, std::ios::binary);
    if (!in) return;
    std::ostringstream all;
    all << in.rdbuf();
    text = std::move(all).str();
  }
  // Frames lines begin `{"site":` (the shim writes that key first); call lines `{"seq":`.
  // Only they are parsed: a trace holds a line per call and few sites.
  constexpr std::string_view kFramesStart = "{\"site\":";
  std::map<size_t, std::pair<size_t, nlohmann::ordered_json>> frames_lines;  // Begin -> end, line.
  std::map<std::string, std::set<uint64_t>> wanted;
  for (size_t begin = 0; begin < text.size();) {
    size_t end = text.find('\n', begin);
    if (end == std::string::npos) end = text.size();
    if (std::string_view(text).substr(begin, kFramesStart.size()) == kFramesStart) {
      nlohmann::ordered_json line = nlohmann::ordered_json::parse(
          text.begin() + static_cast<ptrdiff_t>(begin), text.begin() + static_cast<ptrdiff_t>(end),
          nullptr, /*allow_exceptions=*/false);
      if (line.is_object() && !line.contains("seq") && line["frames"].is_array()) {
        for (const auto& frame : line["frames"]) {
          std::string module;
          uint64_t offset;
          if (frame.is_string() && SplitBareFrame(frame.get<std::string>(), &module, &offset)) {
            wanted[module].insert(offset);
          }
        }
        frames_lines[begin] = {end, std::move(line)};
      }
    }
    begin = end + 1;
  }
  if (wanted.empty()) return;
  const auto names = Symbolize(wanted);
  if (names.empty()) return;  // Nothing to add: the file stays as it is.
  std::string out;
  out.reserve(text.size() + 64 * names.size());
  size_t copied = 0;
  for (auto& [begin, entry] : frames_lines) {
    auto& [end, line] = entry;
    for (auto& frame : line["frames"]) {
      std::string module;
      uint64_t offset;
      if (!SplitBareFrame(frame.get<std::string>(), &module, &offset)) continue;
      const auto it = names.find({module, offset});
      if (it != names.end()) frame = frame.get<std::string>() + " " + it->second;
    }
    out.append(text, copied, begin - copied);
    out += line.dump();
    copied = end;
  }
  out.append(text, copied, std::string::npos);
  // In place, so that the file keeps its owner and mode (--share-with).
  std::ofstream(path, std::ios::binary | std::ios::trunc)
      .write(out.data(), static_cast<std::streamsize>(out.size()));
}

}  // namespace spillway::inject
