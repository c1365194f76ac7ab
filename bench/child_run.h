// Running a benchmark's child process and reading what wait4 says of it, for the
// benchmarks that time or weigh whole spillway commands.
#ifndef SPILLWAY_BENCH_CHILD_RUN_H_
#define SPILLWAY_BENCH_CHILD_RUN_H_

#include <string>
#include <vector>

namespace spillway::bench {

struct ChildRun {
  int exit_code = -1;       // -1 when it could not be started or did not exit by itself.
  double wall_seconds = 0;  // From its start to its end.
  double cpu_seconds = 0;   // User + system: its own and the processes it waited for.
  double peak_rss_mb = 0;   // ru_maxrss: its own or the largest of the processes it waited for.
};

// Runs `argv` (argv[0] searched on PATH when it holds no slash) with stdout and stderr
// discarded, and waits for it.
ChildRun RunChild(const std::vector<std::string>& argv);

}  // namespace spillway::bench

#endif  // SPILLWAY_BENCH_CHILD_RUN_H_
