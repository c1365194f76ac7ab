// The spelling of the scenario language, shared by the parser (scenario_parser.cc), the
// printer (scenario.cc) and the runner (scenario_runner.cc, run_scenario.cc). Internal to
// spillway_scenario.
#ifndef SPILLWAY_SCENARIO_SCENARIO_SYNTAX_H_
#define SPILLWAY_SCENARIO_SCENARIO_SYNTAX_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "spillway/scenario/scenario.h"

namespace spillway::scenario::internal {

// The configuration key a lazy (Comet) plan's limit errors name.
inline constexpr std::string_view kCometLimitKey = "spark.comet.maxTempDirectorySize";
// The DIRS words that are not a list of local dirs.
inline constexpr std::string_view kOsTmpWord = "os_tmp";
inline constexpr std::string_view kDisabledWord = "disabled";
// The plan option naming an executor-wide budget: budget=B.
inline constexpr std::string_view kBudgetOption = "budget";
// `times=` value for a rule that never stops failing.
inline constexpr std::string_view kForeverWord = "forever";
// The fault OP for every kind of call.
inline constexpr std::string_view kAnyOpWord = "any";
// The kinds of call `fault` names (by OpKindName), in the language's order: the one table
// of them (FaultOps()).
inline constexpr OpKind kFaultOpKinds[] = {OpKind::kMkdir, OpKind::kCreate, OpKind::kWrite,
                                           OpKind::kRead,  OpKind::kRemove, OpKind::kRmdir,
                                           OpKind::kList,  OpKind::kStat,   OpKind::kSync};
// The `expect error` words for a spill manager's own errors.
inline constexpr std::string_view kLimitWord = "LIMIT";
inline constexpr std::string_view kDisabledError = "DISABLED";
// The `expect error` word for damage a framed spill file's checks caught (kDataLoss).
inline constexpr std::string_view kDataLossWord = "DATA_LOSS";

// A size in its shortest exact spelling: 1024 -> "1K", 1536 -> "1536", 0 -> "0".
std::string FormatSize(uint64_t size);

// The OP words `fault` accepts: the names of kFaultOpKinds, and any (every kind, returned
// as nullopt). Returns false for any other word.
bool FaultOpFromName(std::string_view name, std::optional<OpKind>* op);
// The word for a rule's op ("any" for nullopt). A kind `fault` does not accept prints as
// OpKindName(kind), which the parser then rejects.
std::string FaultOpName(const std::optional<OpKind>& op);

// The name of a MissingDirPolicy or PlanMode as written after `missing_dir=` / `mode=`.
std::string_view MissingDirName(MissingDirPolicy policy);
using vocab::PlanModeName;
// The value of `failover=` and `frame=` (`layout=`'s is SpillDirLayoutName).
std::string_view OnOffName(bool on);

// An outcome for people, for the runner's messages (scenario.cc, beside OutcomeName).
std::string Describe(const Status& s);

}  // namespace spillway::scenario::internal

#endif  // SPILLWAY_SCENARIO_SCENARIO_SYNTAX_H_
