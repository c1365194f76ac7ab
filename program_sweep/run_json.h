// A run as JSON: one element of a report's "runs", which is also one line of the runs'
// spool (run_spool.h), and reading it back.
#ifndef SPILLWAY_PROGRAM_SWEEP_RUN_JSON_H_
#define SPILLWAY_PROGRAM_SWEEP_RUN_JSON_H_

#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "spillway/program_sweep/cmd_sweep.h"

namespace spillway::program_sweep {

using Json = nlohmann::ordered_json;

// `[{"path", "size", "kind"}, ...]`.
Json LeftoversJson(const std::vector<SweepLeftover>& leftovers);

// `{"id", "op", "call", "calls", "path", "frames", "baselines"}`: an element of a report's
// "sites" (without its verdicts) and of a --baseline file's.
Json SiteJson(const SiteInfo& site);

// `{"index", "n", "site", "nth", "op", "call", "path", "errno", "mode", "exit", "signal",
// "reported_error", "verdicts", "leftovers", "diverged_at", "reproducer", "kept"}`; a kill
// run's errno is null and it adds "orphans": [{"path", "size"}] and "restart": {"exit",
// "signal", "timed_out", "output_matches", "leftovers"} (null when its rule never fired); a
// corrupt or lost run's errno is null and it adds "damage": {"op", "path", "offset", "bit"}
// or {"op", "path", "offset", "lost_bytes"} (null when nothing was damaged).
Json RunJson(const RunResult& run);

// The value `kNameOf` calls `name` (vocab::ParseName). Throws std::invalid_argument for a
// name that is none of them.
template <auto kNameOf>
vocab::EnumOf<kNameOf> FromName(const std::string& name) {
  if (const auto value = vocab::ParseName<kNameOf>(name)) return *value;
  throw std::invalid_argument("unknown name '" + name + "'");
}

// Reads LeftoversJson's list back. Throws (std::invalid_argument, nlohmann::json's
// exceptions) for a list that is not one.
std::vector<SweepLeftover> LeftoversFromJson(const nlohmann::json& list);

// Reads SiteJson's object back ("baselines" is 1 when missing: reports and files from
// before --baselines). Throws as LeftoversFromJson.
SiteInfo SiteFromJson(const nlohmann::json& j);

// Reads RunJson's object back, for a plan of `depth` (which says whether the run's rule was
// by site). Throws as LeftoversFromJson.
RunResult RunFromJson(const nlohmann::json& j, Depth depth);

}  // namespace spillway::program_sweep

#endif  // SPILLWAY_PROGRAM_SWEEP_RUN_JSON_H_
