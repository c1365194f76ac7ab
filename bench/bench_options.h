// The standalone benchmarks' command line and main: CLI11, one line and exit 2 on bad
// input; one line and exit 1 for what the benchmark throws.
#ifndef SPILLWAY_BENCH_BENCH_OPTIONS_H_
#define SPILLWAY_BENCH_BENCH_OPTIONS_H_

#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>
#include <optional>

namespace spillway::bench {

// Parses `argv` into `app`'s options. Returns the exit status to end with: 0 after --help
// (printed), 2 after bad input (one line on stderr, prefixed with the app's name), or
// nothing when the benchmark should run.
inline std::optional<int> ParseOptions(CLI::App& app, int argc, char** argv) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "%s: %s\n", app.get_name().c_str(), e.what());
    return 2;
  }
  return std::nullopt;
}

// Runs a benchmark's `body` and returns its exit status; what it throws (out of memory, a
// filesystem error) is one line on stderr, prefixed with `name`, and exit 1.
inline int RunMain(const char* name, int (*body)(int, char**), int argc, char** argv) {
  try {
    return body(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: %s\n", name, e.what());
    return 1;
  }
}

}  // namespace spillway::bench

#endif  // SPILLWAY_BENCH_BENCH_OPTIONS_H_
