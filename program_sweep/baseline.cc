#include "baseline.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "run_json.h"
#include "spillway/vfs/fault_rules.h"
#include "trace_reader.h"
#include "verdict.h"

namespace spillway::program_sweep {
namespace {

// The key that marks a --baseline file's header, with the format's version.
constexpr const char* kBaselineKey = "spillway_sweep_baseline";
constexpr int kBaselineVersion = 1;

}  // namespace

std::string WidenPathPattern(const std::string& pattern, const std::string& path) {
  if (SamePathPattern(pattern, path)) return pattern;
  const std::vector<std::string_view> a = PathComponents(pattern);
  const std::vector<std::string_view> b = PathComponents(path);
  std::string out;
  const size_t common = std::min(a.size(), b.size());
  size_t i = 0;
  for (; i < common; ++i) {
    if (a[i] == "**") break;
    const bool same = a[i] == "*" || SamePathPattern(a[i], b[i]);
    if (i > 0) out += '/';
    out += same ? a[i] : std::string_view("*");
  }
  if (a.size() != b.size() || i < common) out += "/**";
  return out;
}

Status ScanBaselineTrace(const std::string& what, int64_t expected_calls, Baseline* baseline) {
  std::map<std::string, std::vector<std::string>> frames;
  std::map<std::string, size_t> site_index;
  TraceReader reader(baseline->trace, baseline->trace_skip, baseline->scope, baseline->with_dir,
                     [&frames](const std::string& id, std::vector<std::string> f) {
                       frames.emplace(id, std::move(f));
                     });
  if (!reader.ok()) return Status::InvalidArgument(fmt::format("{}: cannot read it", what));
  baseline->calls = 0;
  baseline->calls_by_op.clear();
  baseline->calls_moving_no_bytes_by_op.clear();
  baseline->first_call_of_op.clear();
  baseline->sites.clear();
  TracedCall call;
  while (reader.Next(&call)) {
    const uint64_t n = ++baseline->calls;
    ++baseline->calls_by_op[call.op];
    const bool moves_bytes = FaultCallMovesBytes(call.call);
    if (!moves_bytes) ++baseline->calls_moving_no_bytes_by_op[call.op];
    baseline->first_call_of_op.emplace(call.op, Baseline::FirstCall{n, moves_bytes});
    if (call.site.empty()) continue;
    auto [it, fresh] = site_index.emplace(call.site, baseline->sites.size());
    if (fresh) baseline->sites.push_back({call.site, call.op, call.call, call.path, 0, {}});
    SiteInfo& site = baseline->sites[it->second];
    if (call.op != site.op) continue;
    ++site.calls;
    site.path = WidenPathPattern(site.path, call.path);
  }
  if (reader.bad_line() != 0) {
    return Status::InvalidArgument(
        fmt::format("{}: damaged: line {} is not a JSON object", what, reader.bad_line()));
  }
  if (expected_calls >= 0 && baseline->calls != static_cast<uint64_t>(expected_calls)) {
    return Status::InvalidArgument(fmt::format("{}: damaged: {} calls recorded, {} found", what,
                                               expected_calls, baseline->calls));
  }
  for (SiteInfo& site : baseline->sites) {
    if (auto it = frames.find(site.id); it != frames.end()) site.frames = it->second;
  }
  return OkStatus();
}

void AddBaselineRun(const Baseline& other, Baseline* baseline) {
  ++baseline->runs;
  for (const SiteInfo& site : other.sites) {
    auto it = std::find_if(baseline->sites.begin(), baseline->sites.end(),
                           [&site](const SiteInfo& known) { return known.id == site.id; });
    if (it != baseline->sites.end()) {
      ++it->baselines;
    } else {
      baseline->sites.push_back(site);
      baseline->sites.back().baselines = 1;
    }
  }
  for (const SweepLeftover& left : other.leftovers) {
    const bool known = std::any_of(
        baseline->leftovers.begin(), baseline->leftovers.end(),
        [&left](const SweepLeftover& mine) { return SamePathPattern(mine.path, left.path); });
    if (!known) baseline->leftovers.push_back(left);
  }
}

Status WriteBaselineFile(const std::string& file, const std::vector<std::string>& command,
                         const Baseline& baseline) {
  nlohmann::ordered_json leftovers = nlohmann::ordered_json::array();
  for (const SweepLeftover& left : baseline.leftovers) {
    leftovers.push_back({{"path", left.path}, {"size", left.size}});
  }
  nlohmann::ordered_json sites = nlohmann::ordered_json::array();
  for (const SiteInfo& site : baseline.sites) sites.push_back(SiteJson(site));
  const nlohmann::ordered_json header = {
      {kBaselineKey, kBaselineVersion}, {"command", command},
      {"scope", baseline.scope},        {"with_dir", baseline.with_dir},
      {"exit", baseline.exit_code},     {"stdout", baseline.stdout_text},
      {"stderr", baseline.stderr_text}, {"seconds", baseline.seconds},
      {"calls", baseline.calls},        {"leftovers", leftovers},
      {"runs", baseline.runs},          {"sites", sites}};
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  std::ifstream trace(baseline.trace, std::ios::binary);
  std::string line;
  for (int i = 0; i < baseline.trace_skip && std::getline(trace, line); ++i) {
  }
  out << header.dump() << '\n' << trace.rdbuf();
  if (!out.flush()) {
    return Status::InvalidArgument(fmt::format("--baseline {}: cannot write it", file));
  }
  return OkStatus();
}

StatusOr<Baseline> ReadBaselineFile(const std::string& file,
                                    const std::vector<std::string>& command) {
  const std::string what = "--baseline " + file;
  std::ifstream in(file, std::ios::binary);
  std::string line;
  if (!in || !std::getline(in, line)) {
    return Status::InvalidArgument(fmt::format("{}: cannot read it", what));
  }
  const nlohmann::json header = nlohmann::json::parse(line, nullptr, false);
  if (header.is_discarded() || !header.is_object() || !header.contains(kBaselineKey)) {
    return Status::InvalidArgument(
        fmt::format("{}: not a baseline recorded by spillway sweep", what));
  }
  if (header[kBaselineKey] != kBaselineVersion) {
    return Status::InvalidArgument(fmt::format("{}: format version {}, not {}", what,
                                               header[kBaselineKey].dump(), kBaselineVersion));
  }
  Baseline baseline;
  try {
    if (header.at("command").get<std::vector<std::string>>() != command) {
      return Status::InvalidArgument(
          fmt::format("{}: recorded for another command: {}", what, header.at("command").dump()));
    }
    baseline.scope = header.at("scope").get<std::string>();
    baseline.with_dir = header.at("with_dir").get<bool>();
    baseline.exit_code = header.at("exit").get<int>();
    baseline.stdout_text = header.at("stdout").get<std::string>();
    baseline.stderr_text = header.at("stderr").get<std::string>();
    baseline.seconds = header.at("seconds").get<double>();
    for (const nlohmann::json& left : header.at("leftovers")) {
      baseline.leftovers.push_back(
          {{left.at("path").get<std::string>(), left.at("size").get<uint64_t>()},
           SweepLeftover::Kind::kBaseline});
    }
    baseline.trace = file;
    baseline.trace_skip = 1;
    SPILLWAY_RETURN_IF_ERROR(ScanBaselineTrace(what, header.at("calls").get<int64_t>(), &baseline));
    // The sites of every run, with how many reached each (files from before --baselines
    // have the first run's, in its trace).
    baseline.runs = header.value("runs", 1);
    if (header.contains("sites")) {
      baseline.sites.clear();
      for (const nlohmann::json& site : header.at("sites")) {
        baseline.sites.push_back(SiteFromJson(site));
      }
    }
    if (baseline.runs < 1) {
      return Status::InvalidArgument(fmt::format("{}: damaged: {} runs", what, baseline.runs));
    }
    // A site is reached by at least one of the runs and by at most all of them.
    for (const SiteInfo& site : baseline.sites) {
      if (site.baselines < 1 || site.baselines > baseline.runs) {
        return Status::InvalidArgument(fmt::format("{}: damaged: site {} reached by {} of {} runs",
                                                   what, site.id, site.baselines, baseline.runs));
      }
    }
  } catch (const nlohmann::json::exception& e) {
    return Status::InvalidArgument(fmt::format("{}: damaged header: {}", what, e.what()));
  }
  return baseline;
}

}  // namespace spillway::program_sweep
