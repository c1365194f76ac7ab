// Which slice of a sweep's runs this process makes: --shard K/N, or the sharding variables
// of Bazel, GoogleTest or a Kubernetes Indexed Job (docs/sweep.md, "Sharding").
#ifndef SPILLWAY_PROGRAM_SWEEP_SHARD_H_
#define SPILLWAY_PROGRAM_SWEEP_SHARD_H_

#include <string>

#include "spillway/program_sweep/cmd_sweep.h"
#include "spillway/vfs/status.h"

namespace spillway::program_sweep {

// Sets options->shard_index (1-based) and shard_count from `shard` ("K/N"; empty: none), or
// from `shard_count` (0: none) and JOB_COMPLETION_INDEX (0-based); without either, from
// Bazel's TEST_TOTAL_SHARDS and TEST_SHARD_INDEX (then touching TEST_SHARD_STATUS_FILE, as
// Bazel asks a test that shards) or GoogleTest's GTEST_TOTAL_SHARDS and GTEST_SHARD_INDEX
// (0-based); with none of them, leaves the options alone.
// Errors: kInvalidArgument naming the word or variable that is wrong (a malformed K/N,
// both --shard and --shard-count, a missing or malformed variable, a status file that
// cannot be touched). Reads the environment: not thread-safe against setenv.
Status ChooseShard(const std::string& shard, int shard_count, CmdSweepOptions* options);

}  // namespace spillway::program_sweep

#endif  // SPILLWAY_PROGRAM_SWEEP_SHARD_H_
