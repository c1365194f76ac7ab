// The command lines of a sweep's runs: a run's words, a restart's, and the reproducer.
#include "command_line.h"

#include <fmt/format.h>

#include <algorithm>

#include "inject_run.h"

namespace spillway::program_sweep {
namespace {

// Each piece of `arg` around {dir}, transformed by `piece`, joined by `dir`.
std::string ReplaceDir(const std::string& arg, const std::string& dir,
                       std::string (*piece)(std::string_view)) {
  std::string out;
  size_t start = 0;
  for (size_t at = arg.find(kDirWord); at != std::string::npos; at = arg.find(kDirWord, start)) {
    if (at > start) out += piece(std::string_view(arg).substr(start, at - start));
    out += dir;
    start = at + kDirWord.size();
  }
  if (start < arg.size() || arg.empty()) out += piece(std::string_view(arg).substr(start));
  return out;
}

std::string Verbatim(std::string_view text) { return std::string(text); }

// `spillway inject --under SCOPE [--seed S] [--fault RULE] --timeout T [--share-with U] --
// WORDS`, the scope a shell word already; --seed with a rule that damages data (the seed
// chooses the byte and bit a corrupt rule flips).
std::string InjectLine(const LineContext& sweep, const std::string& scope, const std::string& rule,
                       bool damage, const std::vector<std::string>& words) {
  const CmdSweepOptions& options = *sweep.options;
  std::string line = fmt::format("{} inject --under {}", ShellWord(options.spillway_binary), scope);
  if (damage) line += fmt::format(" --seed {}", options.seed);
  if (!rule.empty()) {
    line += " --fault ";
    line += ShellWord(rule);
  }
  line += fmt::format(" --timeout {:g}", sweep.timeout);
  if (!options.share_with.empty()) {
    line += " --share-with ";
    line += ShellWord(options.share_with);
  }
  if (!options.java_frames) line += " --no-java-frames";
  line += " --";
  // Appended a piece at a time: GCC 12 warns (-Wrestrict, a false positive) on `" " + word`.
  for (const std::string& arg : words) {
    line += ' ';
    line += sweep.with_dir ? ReplaceDir(arg, "\"$d\"", ShellWord) : ShellWord(arg);
  }
  return line;
}

}  // namespace

bool HasDirWord(const std::vector<std::string>& command) {
  return std::any_of(command.begin(), command.end(), [](const std::string& arg) {
    return arg.find(kDirWord) != std::string::npos;
  });
}

std::vector<std::string> CommandFor(const std::vector<std::string>& words,
                                    const std::string& scope) {
  std::vector<std::string> command;
  command.reserve(words.size());
  for (const std::string& arg : words) command.push_back(ReplaceDir(arg, scope, Verbatim));
  return command;
}

std::vector<std::string> RestartWords(const CmdSweepOptions& options) {
  if (options.restart) return {"/bin/sh", "-c", *options.restart};
  return options.command;
}

std::string Reproducer(const LineContext& sweep, const RunSpec& spec) {
  std::string line;
  std::string scope = ShellWord(sweep.under);
  if (sweep.with_dir) {
    line = fmt::format("d=$(mktemp -d -p {}) && ", ShellWord(sweep.under));
    scope = "\"$d\"";
  }
  line +=
      InjectLine(sweep, scope, FaultRuleFor(spec), IsDamageMode(spec.mode), sweep.options->command);
  if (spec.mode == FaultMode::kKill) {
    line += "; ";
    line += InjectLine(sweep, scope, {}, false, RestartWords(*sweep.options));
  }
  return line;
}

}  // namespace spillway::program_sweep
