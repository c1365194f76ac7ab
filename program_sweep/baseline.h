// The baseline of `spillway sweep -- CMD`: what its trace says the plan needs (calls per
// operation, each operation's first call, the call sites), and the --baseline file that
// records it once so that shards plan alike.
#ifndef SPILLWAY_PROGRAM_SWEEP_BASELINE_H_
#define SPILLWAY_PROGRAM_SWEEP_BASELINE_H_

#include <string>
#include <string_view>
#include <vector>

#include "spillway/program_sweep/cmd_sweep.h"
#include "spillway/vfs/status.h"

namespace spillway::program_sweep {

// Reads `baseline->trace` once and fills its calls, calls_by_op, first_call_of_op and sites.
// Error (InvalidArgument) when a line of it is not JSON (`what` names the file in it) or,
// when `expected_calls` is not negative, when it holds another number of calls.
Status ScanBaselineTrace(const std::string& what, int64_t expected_calls, Baseline* baseline);

// Adds what `other`, another run without faults, did to `baseline` (one run more): the sites
// only it reached (each reached once so far), one more reach of the sites both reached, and
// its leftovers of paths `baseline` has not left.
void AddBaselineRun(const Baseline& other, Baseline* baseline);

// `pattern` widened to cover `path` too: components that differ (beyond SamePathPattern)
// become *; a path of another depth makes the pattern end in **.
std::string WidenPathPattern(const std::string& pattern, const std::string& path);

// Writes the --baseline file: one header line (command, scope, exit, stdout, stderr,
// seconds, calls, leftovers, runs, and the sites of every run), then the trace of the
// baseline's first run as inject wrote it.
Status WriteBaselineFile(const std::string& file, const std::vector<std::string>& command,
                         const Baseline& baseline);

// Reads a --baseline file written for `command`. Errors (InvalidArgument, one line): not a
// baseline file, one recorded for another command, a damaged one.
StatusOr<Baseline> ReadBaselineFile(const std::string& file,
                                    const std::vector<std::string>& command);

}  // namespace spillway::program_sweep

#endif  // SPILLWAY_PROGRAM_SWEEP_BASELINE_H_
