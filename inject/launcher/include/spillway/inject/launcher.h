// The launcher behind `spillway inject` (docs/inject.md): runs an unmodified, dynamically
// linked program with the preload shim libspillway_inject.so (inject/), fault rules applied
// to its file calls under the scope directories, and reports what happened as data: the
// exit status or signal, the in-scope calls, the faults injected and what the run left in
// the scopes. The report never travels on the program's streams.
#ifndef SPILLWAY_INJECT_LAUNCHER_H_
#define SPILLWAY_INJECT_LAUNCHER_H_

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "spillway/vfs/status.h"

namespace spillway::inject {

// One run of a program under the shim.
struct Invocation {
  // The program and its arguments; a name without '/' is looked up on PATH.
  std::vector<std::string> command;
  // The scope directories: only calls on paths under them are counted and faulted.
  std::vector<std::string> under;
  // Fault rules in the rule language (docs/inject.md), tried in order.
  std::vector<std::string> faults;
  uint64_t quota = 0;  // Bytes the scopes may hold (ENOSPC past it); 0: no quota.
  uint64_t seed = 0;   // Seeds the rules' probability= draws and corrupt's bytes and bits.
  // A file for the trace (one JSON line per in-scope call and per call site); empty: none.
  std::string trace;
  bool symbolize = true;  // Names the trace's frames with addr2line after the run.
  double timeout = 0;     // Seconds before the program's process group is ended; 0: none.
  // A user the state and trace files are handed to, for a program that switches to that
  // user (needs root); empty: none.
  std::string share_with;
  // The shim's path; empty: $SPILLWAY_INJECT_LIBRARY, else next to this executable, else
  // in the install tree's library directory.
  std::string shim;
  // Files the program's stdout and stderr go to (created or truncated); empty: inherited.
  std::string stdout_path;
  std::string stderr_path;
  // Ignore SIGINT and SIGQUIT in this process while the program runs (see Run). False for a
  // caller that runs many programs and must itself stop on an interrupt (the sweep).
  bool ignore_interrupts = true;
  // A file the program's stdin reads (a sweep's runs: /dev/null); empty: inherited.
  std::string stdin_path;
  // Sites of calls from Java code carry their Java frames (docs/inject.md); false: only
  // native frames, as the shim's SPILLWAY_INJECT_JAVA_FRAMES=0 does.
  bool java_frames = true;
};

// A fault the shim injected into the program (a FaultInjectingFileSystem records its own
// as spillway::InjectedFault).
struct ProgramFault {
  std::string op;     // The operation's name ("create", "write", ...).
  std::string error;  // The errno's symbol ("ENOSPC"); empty for every action but fail.
  std::string path;
  int pid = 0;        // The process that made the call.
  // The call's number among the run's in-scope calls, from 1, in the order they reached
  // the shim: a trace's "seq".
  uint64_t seq = 0;
  // What the rule did: "fail" (with `error`), "kill", "corrupt", "lost" or "ok".
  std::string action = "fail";
  // corrupt: the file offset of the flipped byte (the stream's, for stdio) and its bit, -1
  // when no byte was (a read of 0 bytes, or an offset unknown: a pipe); lost: where the
  // dropped bytes were to go, and how many.
  int64_t offset = -1;
  int bit = -1;
  uint64_t lost_bytes = 0;
};

// An entry of a scope that was not there before the run.
struct Leftover {
  std::string path;   // Absolute, under the scope's real path.
  uint64_t size = 0;  // Bytes of a regular file; 0 for anything else.
};

// How far a fault rule got: the shim's counters for it (FaultRuleCounters) after the run.
struct RuleCount {
  uint64_t matched = 0;  // Calls the rule counted (of a site rule: that site's calls).
  uint64_t failed = 0;   // Of those, the ones it failed.
};

// What a run did.
struct Outcome {
  // The program's exit code, 128+signal when a signal ended it, 124 when the timeout did,
  // or 127 when it could not be started.
  int exit_status = 0;
  int signal = 0;  // The signal that ended the program (also after a timeout), or 0.
  bool timed_out = false;
  std::map<std::string, uint64_t> calls;  // In-scope calls by operation, none left at 0.
  uint64_t faults_injected = 0;
  std::vector<ProgramFault> faults;  // The first ones injected (inject::kMaxFaultRecords).
  std::vector<Leftover> leftovers;   // By scope, then by path.
  std::vector<RuleCount> rules;      // One per Invocation::faults rule, in its order.
};

// Runs `invocation.command` under the shim and waits for it (and, with a timeout, ends its
// process group when the time is up). Everything is checked before the program starts:
// the shim, the program (a dynamically linked ELF that is not Go and not setuid, or a
// script whose interpreter is one), the scopes, the rules, the trace file, the user.
// While the program runs, SIGINT and SIGQUIT are ignored in this process (unless
// `ignore_interrupts` is false), as system(3) does, so that an interrupt reaches the
// program and the run still reports.
// Errors, before the program starts: kInvalidArgument with a one-line message naming the
// bad input by its `spillway inject` option ("--under DIR: not an existing directory"),
// or kUnavailable when the run's state file cannot be made. A program that starts and
// fails is an Outcome, not an error.
// Thread safety: calls may run at once from several threads; each spawns its own program
// with its own state file.
StatusOr<Outcome> Run(const Invocation& invocation);

// "100", "64K", "10M", "1G": bytes; nullopt for anything else, 0 included.
std::optional<uint64_t> ParseQuota(std::string_view text);

// The outcome as `spillway inject --json` prints it: {"exit", "calls", "faults_injected",
// "faults": [{"op", "errno", "path", "pid"}], "leftovers": [{"path", "size"}]}.
nlohmann::json SummaryJson(const Outcome& outcome);

}  // namespace spillway::inject

#endif  // SPILLWAY_INJECT_LAUNCHER_H_
