// Reads a `spillway inject --trace` file as a stream: its calls in `seq` order and its site
// lines (`{"site","frames"}`, told apart from calls by having no "seq"), without holding
// the file.
#ifndef SPILLWAY_PROGRAM_SWEEP_TRACE_READER_H_
#define SPILLWAY_PROGRAM_SWEEP_TRACE_READER_H_

#include <cstdint>
#include <fstream>
#include <functional>
#include <queue>
#include <string>
#include <utility>
#include <vector>

#include "spillway/program_sweep/cmd_sweep.h"

namespace spillway::program_sweep {

// Calls reach the trace out of `seq` order only by the few calls other threads or processes
// made meanwhile; they are put back in order within a window of kTraceReorderWindow lines.
inline constexpr size_t kTraceReorderWindow = 4096;

class TraceReader {
 public:
  using SiteFn = std::function<void(const std::string& id, std::vector<std::string> frames)>;

  // Reads `path` after its first `skip` lines; each call's path is shown with ShowPath
  // (scope, with_dir). Site lines go to `on_site` (may be empty).
  TraceReader(const std::string& path, int skip, std::string scope, bool with_dir, SiteFn on_site);

  // False when the file could not be opened.
  bool ok() const { return ok_; }

  // The next call in `seq` order; false at the end.
  bool Next(TracedCall* call);

  // The number of the first line that was not a JSON object (a damaged or cut trace);
  // 0 when none so far.
  uint64_t bad_line() const { return bad_line_; }

 private:
  using Entry = std::pair<uint64_t, TracedCall>;
  struct Later {
    bool operator()(const Entry& a, const Entry& b) const { return a.first > b.first; }
  };
  // Reads lines until the window is full or the file ends.
  void Fill();

  std::ifstream in_;
  bool ok_ = false;
  std::string scope_;
  bool with_dir_ = false;
  SiteFn on_site_;
  uint64_t line_number_ = 0;
  uint64_t bad_line_ = 0;
  std::priority_queue<Entry, std::vector<Entry>, Later> window_;
};

}  // namespace spillway::program_sweep

#endif  // SPILLWAY_PROGRAM_SWEEP_TRACE_READER_H_
