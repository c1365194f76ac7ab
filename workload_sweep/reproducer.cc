// The reproducer of a violation: its scenario text, written to a file, and replayed.
#include "reproducer.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace spillway::workload_sweep::internal {

using scenario::Command;

Status WriteTextFile(const std::string& path, const std::string& text) {
  std::FILE* file = std::fopen(path.c_str(), "w");
  if (file == nullptr) return Status::FromErrno(errno, "open", path);
  const size_t written = std::fwrite(text.data(), 1, text.size(), file);
  const int write_errno = errno;
  if (std::fclose(file) != 0) return Status::FromErrno(errno, "close", path);
  if (written != text.size()) return Status::FromErrno(write_errno, "write", path);
  return OkStatus();
}

namespace {

// How often the fault of `mode` fails, after "operation n fails with E".
std::string_view HowOften(FaultMode mode) {
  switch (mode) {
    case FaultMode::kTransient:
      return ", once";
    case FaultMode::kPersistent:
      return ", and so does every later one";
    case FaultMode::kKill:
    case FaultMode::kCorrupt:
    case FaultMode::kLost:
      return {};
  }
  return {};
}

}  // namespace

std::string ScenarioText(const WorkloadRun& run, const Finding& finding,
                         const WorkloadRunSpec& spec, const SweepOptions& options, int* act_line) {
  const std::string_view fs_name = vocab::FsKindName(options.fs);
  std::string text;
  text += fmt::format("# Found by `spillway sweep-workload --fs {}{}`: {}\n", fs_name,
                      options.quirks.empty() ? "" : " --quirk " + options.quirks.ToString(),
                      CheckName(finding.check));
  text += fmt::format("#   {}\n", finding.message);
  if (spec.error_number) {
    text += fmt::format("# The fault: filesystem operation {} fails with {}{}.\n", spec.fault_op,
                        ErrnoName(*spec.error_number), HowOften(spec.mode));
  } else if (IsDamageMode(spec.mode)) {
    text += fmt::format("# The fault: {} lies (it succeeds and damages the data).\n",
                        DescribeDamage(spec.mode, spec.damaged_op, spec.fault_op));
  } else if (spec.mode == FaultMode::kKill) {
    text += fmt::format(
        "# The process is killed at its filesystem call {} (`kill`); the next one reaps.\n",
        spec.fault_op);
  } else {
    text += "# No fault is injected: the workload alone shows it.\n";
  }
  text += fmt::format("# Replay: spillway run --fs {} FILE\n", fs_name);
  int line_number = static_cast<int>(std::count(text.begin(), text.end(), '\n'));
  *act_line = 0;
  auto append_finding = [&] {
    for (const Command& expect : finding.expects) {
      text += fmt::format("{}  # sweep: {}\n", expect.ToString(), CheckName(finding.check));
      ++line_number;
    }
    if (!finding.note.empty()) {
      text += fmt::format("# sweep: {}\n", finding.note);
      ++line_number;
    }
  };
  const std::vector<Line>& lines = run.lines();
  for (size_t i = 0; i < lines.size(); ++i) {
    text += lines[i].command.ToString() + "\n";
    ++line_number;
    if (static_cast<int>(i) == finding.line) {
      *act_line = line_number;
      append_finding();
    }
  }
  if (finding.line < 0) append_finding();
  return text;
}

std::pair<int, std::string> Replay(const std::string& text, const std::string& file_name,
                                   scenario::FsKind fs) {
  std::FILE* out = std::tmpfile();
  std::FILE* err = std::tmpfile();
  if (out == nullptr || err == nullptr) {
    if (out != nullptr) std::fclose(out);
    if (err != nullptr) std::fclose(err);
    return {-1, fmt::format("cannot replay: tmpfile: {}", std::strerror(errno))};
  }
  scenario::RunnerOptions options;
  options.fs = fs;
  const int exit_code =
      scenario::RunScenarioText(text, file_name, options, /*verbose=*/false, out, err);
  std::string first_line;
  std::rewind(err);
  for (int c = std::fgetc(err); c != EOF && c != '\n'; c = std::fgetc(err)) {
    first_line.push_back(static_cast<char>(c));
  }
  std::fclose(out);
  std::fclose(err);
  return {exit_code, first_line};
}

}  // namespace spillway::workload_sweep::internal
