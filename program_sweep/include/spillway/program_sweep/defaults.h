// The defaults of `spillway sweep -- CMD` that CmdSweepOptions leaves to the sweep: the
// errnos swept without --errno and the timeouts without --timeout. The command line's help
// and docs/sweep.md state them from here (tests/tools/help_defaults_test.cc checks both).
#ifndef SPILLWAY_PROGRAM_SWEEP_DEFAULTS_H_
#define SPILLWAY_PROGRAM_SWEEP_DEFAULTS_H_

#include <cstdint>
#include <vector>

namespace spillway::program_sweep {

// The errnos a call of the FaultOp `op_code` is failed with when CmdSweepOptions::errnos is
// empty, before those its operation cannot return are dropped: ENOSPC and EIO, plus ENOENT
// for create and mkdir (a missing parent). kFaultAnyOp: those of every operation.
std::vector<int> DefaultErrnosFor(uint8_t op_code);

// Without --timeout, a run may take kTimeoutFactor times the baseline's time, and at least
// kMinTimeoutSeconds; the baseline itself gets kBaselineTimeoutSeconds.
inline constexpr double kTimeoutFactor = 10;
inline constexpr double kMinTimeoutSeconds = 10;
inline constexpr double kBaselineTimeoutSeconds = 600;

}  // namespace spillway::program_sweep

#endif  // SPILLWAY_PROGRAM_SWEEP_DEFAULTS_H_
