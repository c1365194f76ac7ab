// Which slice of the runs this process makes (shard.h).
#include "spillway/program_sweep/shard.h"

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

namespace spillway::program_sweep {
namespace {

bool HasEnv(const char* name) { return std::getenv(name) != nullptr; }

// A shard index or count from the environment variable `name`: false when it is not set or
// not a number in [min, max).
bool EnvNumber(const char* name, long min, long max, long* value) {
  const char* text = std::getenv(name);
  if (text == nullptr) return false;
  char* end = nullptr;
  *value = std::strtol(text, &end, 10);
  return *text != '\0' && *end == '\0' && *value >= min && *value < max;
}

// --shard K/N.
Status ParseShard(const std::string& shard, CmdSweepOptions* options) {
  int k = 0;
  int n = 0;
  char extra = 0;
  if (std::sscanf(shard.c_str(), "%d/%d%c", &k, &n, &extra) != 2 || n < 1 || k < 1 || k > n) {
    return Status::InvalidArgument("--shard " + shard + ": K/N with 1 <= K <= N");
  }
  options->shard_index = k;
  options->shard_count = n;
  return OkStatus();
}

}  // namespace

Status ChooseShard(const std::string& shard, int shard_count, CmdSweepOptions* options) {
  if (!shard.empty() && shard_count != 0) {
    return Status::InvalidArgument("--shard and --shard-count: give one of them");
  }
  if (!shard.empty()) return ParseShard(shard, options);
  const char* total_var = nullptr;
  const char* index_var = nullptr;
  long total = 0;
  if (shard_count != 0) {
    total_var = "--shard-count";
    index_var = "JOB_COMPLETION_INDEX";
    total = shard_count;
    if (!HasEnv(index_var)) {
      return Status::InvalidArgument("--shard-count needs JOB_COMPLETION_INDEX (an Indexed Job's)");
    }
  } else if (HasEnv("TEST_TOTAL_SHARDS") || HasEnv("TEST_SHARD_INDEX")) {
    total_var = "TEST_TOTAL_SHARDS";
    index_var = "TEST_SHARD_INDEX";
  } else if (HasEnv("GTEST_TOTAL_SHARDS") || HasEnv("GTEST_SHARD_INDEX")) {
    total_var = "GTEST_TOTAL_SHARDS";
    index_var = "GTEST_SHARD_INDEX";
  } else {
    return OkStatus();
  }
  if (shard_count == 0 && !EnvNumber(total_var, 1, INT_MAX, &total)) {
    return Status::InvalidArgument(std::string(total_var) + ": not a number of shards (1 or more)");
  }
  long index = 0;
  if (!EnvNumber(index_var, 0, total, &index)) {
    return Status::InvalidArgument(std::string(index_var) + ": not a shard index in 0.." +
                                   std::to_string(total - 1));
  }
  options->shard_index = static_cast<int>(index) + 1;
  options->shard_count = static_cast<int>(total);
  // Bazel asks a test that shards to say so by touching this file.
  if (const char* status_file = std::getenv("TEST_SHARD_STATUS_FILE");
      status_file != nullptr && *status_file != '\0' &&
      std::string(total_var) == "TEST_TOTAL_SHARDS") {
    if (!std::ofstream(status_file, std::ios::app)) {
      return Status::InvalidArgument(std::string("TEST_SHARD_STATUS_FILE ") + status_file +
                                     ": cannot touch it");
    }
  }
  return OkStatus();
}

}  // namespace spillway::program_sweep
