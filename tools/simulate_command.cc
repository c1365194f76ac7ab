// `spillway simulate`: its command line. The runs, shrinking, the quirk filter, the
// scenario files and the summaries are the model library's (spillway/model/simulate.h);
// this file parses the options, shows progress on stderr, picks the output directory,
// prints the summary and chooses the exit code.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "commands.h"
#include "spillway/model/simulate.h"
#include "spillway/vfs/status.h"

namespace spillway::tools {
namespace {

struct SimulateArgs {
  model::SimulateOptions options;  // But for fs and out_dir.
  std::string fs = "mem";
  bool json = false;
  std::string out;  // Empty: a fresh directory (OutDir).
};

// Progress on stderr: a bar redrawn in place on a terminal, a line per tenth otherwise;
// the last one when the run finished (Finish), none after an error.
class SimulateProgress {
 public:
  SimulateProgress(uint64_t total, const std::atomic<uint64_t>* done)
      : total_(total), done_(done), tty_(::isatty(STDERR_FILENO) != 0) {
    thread_ = std::thread([this] { Loop(); });
  }
  ~SimulateProgress() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
    if (finished_) Draw(/*final=*/true);
  }

  void Finish() { finished_ = true; }

 private:
  void Loop() {
    std::unique_lock<std::mutex> lock(mu_);
    while (!cv_.wait_for(lock, std::chrono::milliseconds(tty_ ? 100 : 250),
                         [this] { return stop_; })) {
      Draw(/*final=*/false);
    }
  }

  void Draw(bool final) {
    const uint64_t done = std::min(done_->load(), total_);
    const int percent = total_ == 0 ? 100 : static_cast<int>(done * 100 / total_);
    if (tty_) {
      constexpr int kWidth = 30;
      const int filled = percent * kWidth / 100;
      std::fprintf(stderr, "\r[%s%s] %3d%%  %llu/%llu steps", std::string(filled, '#').c_str(),
                   std::string(kWidth - filled, '-').c_str(), percent,
                   static_cast<unsigned long long>(done), static_cast<unsigned long long>(total_));
      if (final) std::fprintf(stderr, "\n");
    } else if (percent / 10 > last_tenth_ && (percent < 100 || final)) {
      last_tenth_ = percent / 10;
      std::fprintf(stderr, "simulate: %d%% (%llu/%llu steps)\n", percent,
                   static_cast<unsigned long long>(done), static_cast<unsigned long long>(total_));
    }
    std::fflush(stderr);
  }

  const uint64_t total_;
  const std::atomic<uint64_t>* const done_;
  const bool tty_;
  int last_tenth_ = 0;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  bool finished_ = false;
  std::thread thread_;
};

// The error of `status` as bad input. Throws UsageError unless it is OK.
void ThrowIfError(const Status& status) {
  if (!status.ok()) throw UsageError(status.message());
}

int RunSimulate(SimulateArgs& args) {
  model::SimulateOptions& options = args.options;
  options.fs = FsKindFromName(args.fs);
  ThrowIfError(model::CheckSimulateOptions(options));
  const OutDir out("simulate", args.out);  // Made only once the rest is valid.
  options.out_dir = out.path();
  std::optional<StatusOr<model::SimulateResult>> ran;
  {
    std::atomic<uint64_t> done{0};
    SimulateProgress progress(options.steps * static_cast<uint64_t>(options.jobs), &done);
    ran.emplace(model::Simulate(options, &done));
    if (ran->ok()) progress.Finish();
  }
  ThrowIfError(ran->status());
  const model::SimulateResult& result = ran->value();
  if (args.json) {
    std::printf("%s\n", model::SimulateSummaryJson(options, result).c_str());
  } else {
    std::fputs(model::SimulateSummaryText(options, result).c_str(), stdout);
  }
  std::fflush(stdout);
  for (const model::SeedResult& r : result.runs) {
    if (r.violation || !r.side_effects.empty()) return 1;
  }
  return 0;
}

}  // namespace

void AddSimulateCommand(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<SimulateArgs>();
  CLI::App* sub = app.add_subcommand(
      "simulate",
      "Run the spill model against the spill manager for a long seeded random run (several "
      "plans, injected faults, a tmp cleaner), checking every invariant after every step. "
      "Each violation is reported with the kind of invariant it breaks; with --quirk, a seed "
      "looks for the kinds that name its quirks' defects, and counts violations of other "
      "kinds as side effects, going on with a fresh program. Exits 0 when nothing was "
      "violated, 1 when something was (the shrunk program, with its quirk lines, is written "
      "into --out as a scenario file that replays by itself), 2 on bad input");
  sub->add_option("--seed", args->options.seed, "The first seed; --jobs N runs seed .. seed+N-1")
      ->capture_default_str();
  sub->add_option("--steps", args->options.steps, "Commands per seed")->capture_default_str();
  sub->add_option("--plans", args->options.plans, "Plans alive at once, at most")
      ->capture_default_str();
  sub->add_option("--dirs", args->options.dirs, "Local dirs (/l0 ...), 1 to 4")
      ->capture_default_str();
  sub->add_option("--fault-rate", args->options.fault_rate,
                  "About this fraction of commands inject a fault (0 <= P < 1)")
      ->capture_default_str();
  sub->add_option("--forever-percent", args->options.forever_percent,
                  "Percent of injected faults that fail every later matching call, not only "
                  "the next (0 to 100)")
      ->capture_default_str();
  AddFsOption(*sub, args->fs);
  AddQuirkOption(*sub, args->options.quirks);
  sub->add_option("--jobs", args->options.jobs, "Seeds run in parallel threads")
      ->capture_default_str();
  sub->add_flag("--json", args->json, "Print the summary as one JSON object");
  sub->add_option("--out", args->out,
                  "Where shrunk scenario files are written, one per distinct violation (the "
                  "same kind of violation and shrunk program), made if missing; not inside a "
                  "git checkout unless git ignores it (default: a fresh directory under "
                  "$TMPDIR or /tmp, removed if nothing is written); nothing else is written");
  sub->add_flag("--all-reproducers", args->options.all_reproducers,
                "Write a scenario file for every seed with a violation, also when an earlier "
                "seed's file holds the same program");
  sub->callback([args, &exit_code] { exit_code = RunSimulate(*args); });
}

}  // namespace spillway::tools
