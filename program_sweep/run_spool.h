// The finished runs of a sweep, spooled to files as they finish instead of held: a sweep of
// any size keeps only its counts in memory, and its reports read the runs back.
#ifndef SPILLWAY_PROGRAM_SWEEP_RUN_SPOOL_H_
#define SPILLWAY_PROGRAM_SWEEP_RUN_SPOOL_H_

#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "spillway/program_sweep/cmd_sweep.h"
#include "spillway/vfs/status.h"

namespace spillway::program_sweep {

// One file per writer (a thread that takes runs from the plan in plan order), each a JSON
// line per run (run_json.h's RunJson), so that every file is in plan order and ForEach
// merges them holding one run per writer. The files are unlinked as soon as they are made:
// nothing is left behind however the sweep ends.
class RunSpool final : public RunSource {
 public:
  // A spool of `writers` files in `dir` for the runs of a plan of `depth`. Errors (as
  // Status::FromErrno): a file cannot be made there.
  static StatusOr<std::shared_ptr<RunSpool>> Create(const std::string& dir, int writers,
                                                    Depth depth);
  ~RunSpool() override;
  RunSpool(const RunSpool&) = delete;
  RunSpool& operator=(const RunSpool&) = delete;

  // Appends `run` to the file of `writer`. Errors (as Status::FromErrno): the write failed
  // (a full disk). Thread-safe for distinct writers. REQUIRES: 0 <= writer < writers; the
  // runs of one writer come from one thread at a time, in plan order; no ForEach running.
  Status Append(int writer, const RunResult& run);

  // Writes out what Append buffered. Errors as Append's. REQUIRES: no Append running.
  Status Flush();

  // Reads every writer's file from its start, merging them by plan index. Errors (as
  // Status::FromErrno): a file cannot be read; (kUnknown) a line is no run.
  Status ForEach(const std::function<void(const RunResult&)>& visit) const override;

 private:
  struct File {
    std::FILE* file = nullptr;
    std::string name;  // Its path when it was made, for messages.
  };
  RunSpool(std::vector<File> files, Depth depth);

  // The next run of `file`; false at its end or on an error (then *status is set).
  bool ReadRun(const File& file, RunResult* run, Status* status) const;

  std::vector<File> files_;
  Depth depth_;
};

}  // namespace spillway::program_sweep

#endif  // SPILLWAY_PROGRAM_SWEEP_RUN_SPOOL_H_
