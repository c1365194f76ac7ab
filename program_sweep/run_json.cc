#include "run_json.h"

#include <optional>

namespace spillway::program_sweep {
namespace {

std::string StringOr(const nlohmann::json& j, const char* key) {
  return j.at(key).is_null() ? std::string() : j.at(key).get<std::string>();
}

// A damage run's `damage`: {"op", "path", "offset", "bit"} for corrupt, {"op", "path",
// "offset", "lost_bytes"} for lost; offset and bit null when the call moved no byte.
Json DamageJson(const inject::ProgramFault& fault) {
  Json j = {{"op", fault.op},
            {"path", fault.path},
            {"offset", fault.offset >= 0 ? Json(fault.offset) : Json(nullptr)}};
  if (fault.action == FaultActionName(FaultAction::kLost)) {
    j["lost_bytes"] = fault.lost_bytes;
  } else {
    j["bit"] = fault.bit >= 0 ? Json(fault.bit) : Json(nullptr);
  }
  return j;
}

inject::ProgramFault DamageFromJson(const nlohmann::json& j, FaultMode mode) {
  inject::ProgramFault fault;
  fault.op = j.at("op").get<std::string>();
  fault.path = j.at("path").get<std::string>();
  fault.action = FaultActionName(*ModeAction(mode));
  if (!j.at("offset").is_null()) fault.offset = j.at("offset").get<int64_t>();
  if (mode == FaultMode::kLost) {
    fault.lost_bytes = j.at("lost_bytes").get<uint64_t>();
  } else if (!j.at("bit").is_null()) {
    fault.bit = j.at("bit").get<int>();
  }
  return fault;
}

}  // namespace

Json LeftoversJson(const std::vector<SweepLeftover>& leftovers) {
  Json list = Json::array();
  for (const SweepLeftover& left : leftovers) {
    list.push_back(
        {{"path", left.path}, {"size", left.size}, {"kind", LeftoverKindName(left.kind)}});
  }
  return list;
}

Json SiteJson(const SiteInfo& site) {
  return {{"id", site.id},
          {"op", site.op},
          {"call", site.call},
          {"calls", site.calls},
          {"path", site.path},
          {"frames", site.frames},
          {"baselines", site.baselines}};
}

SiteInfo SiteFromJson(const nlohmann::json& j) {
  return {j.at("id").get<std::string>(),   j.at("op").get<std::string>(),
          j.at("call").get<std::string>(), j.at("path").get<std::string>(),
          j.at("calls").get<uint64_t>(),   j.at("frames").get<std::vector<std::string>>(),
          j.value("baselines", 1)};
}

Json RunJson(const RunResult& run) {
  Json j;
  j["index"] = run.spec.index;
  j["n"] = run.spec.n;
  j["site"] = run.spec.site.empty() ? Json(nullptr) : Json(run.spec.site);
  j["nth"] = run.spec.nth;
  j["op"] = run.spec.call.op;
  j["call"] = run.spec.call.call;
  j["path"] = run.spec.call.path;
  const bool kill = run.spec.mode == FaultMode::kKill;
  const bool errno_mode = !ModeAction(run.spec.mode);
  j["errno"] = errno_mode ? Json(ErrnoName(run.spec.error_number)) : Json(nullptr);
  j["mode"] = FaultModeName(run.spec.mode);
  j["exit"] = run.exit_code ? Json(*run.exit_code) : nullptr;
  j["signal"] = run.signal ? Json(*run.signal) : nullptr;
  j["reported_error"] = run.reported_error;
  j["verdicts"] = Json::array();
  for (Verdict v : run.verdicts) j["verdicts"].push_back(VerdictName(v));
  j["leftovers"] = LeftoversJson(run.leftovers);
  j["diverged_at"] = run.diverged_at.empty() ? Json(nullptr) : Json(run.diverged_at);
  j["attempts"] = run.attempts;
  j["reproducer"] = run.reproducer;
  j["kept"] = run.kept_as.empty() ? Json(nullptr) : Json(run.kept_as);
  if (IsDamageMode(run.spec.mode)) {
    j["damage"] = run.damage ? DamageJson(*run.damage) : Json(nullptr);
  }
  if (!kill) return j;
  j["orphans"] = Json::array();
  for (const inject::Leftover& orphan : run.orphans) {
    j["orphans"].push_back({{"path", orphan.path}, {"size", orphan.size}});
  }
  if (!run.restart) {
    j["restart"] = nullptr;  // The rule never fired: no restart was made.
    return j;
  }
  const RestartResult& restart = *run.restart;
  j["restart"] = {{"exit", restart.exit_code ? Json(*restart.exit_code) : Json(nullptr)},
                  {"signal", restart.signal ? Json(*restart.signal) : Json(nullptr)},
                  {"timed_out", restart.timed_out},
                  {"output_matches", restart.output_matches},
                  {"leftovers", LeftoversJson(restart.leftovers)}};
  return j;
}

std::vector<SweepLeftover> LeftoversFromJson(const nlohmann::json& list) {
  std::vector<SweepLeftover> leftovers;
  for (const nlohmann::json& l : list) {
    leftovers.push_back({{l.at("path").get<std::string>(), l.at("size").get<uint64_t>()},
                         FromName<LeftoverKindName>(l.at("kind").get<std::string>())});
  }
  return leftovers;
}

RunResult RunFromJson(const nlohmann::json& j, Depth depth) {
  RunResult run;
  RunSpec& spec = run.spec;
  spec.index = j.at("index").get<uint64_t>();
  spec.n = j.at("n").get<uint64_t>();
  spec.site = StringOr(j, "site");
  spec.nth = j.at("nth").get<uint64_t>();
  spec.by_site = depth != Depth::kAll;
  spec.call = {j.at("op").get<std::string>(), j.at("call").get<std::string>(),
               j.at("path").get<std::string>(), false, spec.site};
  spec.mode = FromName<FaultModeName>(j.at("mode").get<std::string>());
  if (!ModeAction(spec.mode)) {
    const std::optional<int> e = ErrnoFromName(j.at("errno").get<std::string>());
    if (!e) throw std::invalid_argument("unknown errno " + j.at("errno").dump());
    spec.error_number = *e;
  }
  if (!j.at("exit").is_null()) run.exit_code = j.at("exit").get<int>();
  if (!j.at("signal").is_null()) run.signal = j.at("signal").get<int>();
  run.reported_error = j.at("reported_error").get<bool>();
  for (const nlohmann::json& v : j.at("verdicts")) {
    run.verdicts.push_back(FromName<VerdictName>(v.get<std::string>()));
  }
  run.leftovers = LeftoversFromJson(j.at("leftovers"));
  run.diverged_at = StringOr(j, "diverged_at");
  run.attempts = j.value("attempts", 1);  // Reports from before --retries made one.
  run.reproducer = j.at("reproducer").get<std::string>();
  run.kept_as = StringOr(j, "kept");
  if (IsDamageMode(spec.mode) && !j.at("damage").is_null()) {
    run.damage = DamageFromJson(j.at("damage"), spec.mode);
  }
  if (spec.mode != FaultMode::kKill) return run;
  for (const nlohmann::json& orphan : j.at("orphans")) {
    run.orphans.push_back(
        {orphan.at("path").get<std::string>(), orphan.at("size").get<uint64_t>()});
  }
  const nlohmann::json& restart = j.at("restart");
  if (restart.is_null()) return run;
  RestartResult& ran = run.restart.emplace();
  if (!restart.at("exit").is_null()) ran.exit_code = restart.at("exit").get<int>();
  if (!restart.at("signal").is_null()) ran.signal = restart.at("signal").get<int>();
  ran.timed_out = restart.at("timed_out").get<bool>();
  ran.output_matches = restart.at("output_matches").get<bool>();
  ran.leftovers = LeftoversFromJson(restart.at("leftovers"));
  return run;
}

}  // namespace spillway::program_sweep
