#include "spillway/program_sweep/report.h"

#include <fmt/format.h>

#include <algorithm>

namespace spillway::program_sweep {
namespace {

std::string Describe(const RunSpec& spec) {
  const std::string at = spec.by_site ? fmt::format("site {} call {}", spec.site, spec.nth)
                                      : fmt::format("call {}", spec.n);
  const std::string how = ModeAction(spec.mode) ? std::string(FaultModeName(spec.mode))
                                                : fmt::format("{} {}", ErrnoName(spec.error_number),
                                                              FaultModeName(spec.mode));
  return fmt::format("{} ({} {} {}) {}", at, spec.call.op, spec.call.call, spec.call.path, how);
}

// A corrupt or lost run's damage, one line ("" for other runs): "damage: bit 3 of byte
// 4100 of {dir}/f flipped by a read", "damage: 512 bytes of a write at 0 of {dir}/f lost".
std::string DamageLine(const RunResult& run) {
  if (!IsDamageMode(run.spec.mode)) return {};
  if (!run.damage) return "  damage: none (the call moved no bytes of its own, as fclose)\n";
  const inject::ProgramFault& d = *run.damage;
  const std::string at = d.offset >= 0 ? fmt::format("{}", d.offset) : "an unknown offset";
  if (run.spec.mode == FaultMode::kLost) {
    return fmt::format("  damage: {} bytes of a {} at {} of {} lost\n", d.lost_bytes, d.op, at,
                       d.path);
  }
  if (d.bit < 0) return fmt::format("  damage: none (the {} of {} moved no byte)\n", d.op, d.path);
  return fmt::format("  damage: bit {} of byte {} of {} flipped by a {}\n", d.bit, at, d.path,
                     d.op);
}

std::string VerdictList(const RunResult& run) {
  std::string out;
  for (Verdict v : run.verdicts) out += (out.empty() ? "" : ", ") + std::string(VerdictName(v));
  return out;
}

std::string HowItEnded(const RunResult& run) {
  if (run.exit_code && run.reported_error) {
    return fmt::format("exit {}, an error reported", *run.exit_code);
  }
  if (run.exit_code) return fmt::format("exit {}", *run.exit_code);
  if (run.signal) return fmt::format("killed by signal {}", *run.signal);
  return "stopped at the timeout";
}

// A kill run's restart and what it left of the killed run, one line each ("" for others).
std::string RestartLines(const RunResult& run) {
  if (!run.restart) return {};
  const RestartResult& restart = *run.restart;
  std::string ended = "stopped at the timeout";
  if (restart.exit_code) ended = fmt::format("exit {}", *restart.exit_code);
  if (restart.signal) ended = fmt::format("killed by signal {}", *restart.signal);
  std::string lines = fmt::format("  restart: {}, output {}\n", ended,
                                  restart.output_matches ? "as expected" : "differs");
  for (const inject::Leftover& orphan : run.orphans) {
    lines += fmt::format("  orphan {} ({} bytes still held)\n", orphan.path, orphan.size);
  }
  for (const SweepLeftover& left : restart.leftovers) {
    lines += fmt::format("  the restart left {} ({} bytes): {}\n", left.path, left.size,
                         LeftoverKindName(left.kind));
  }
  return lines;
}

std::string XmlEscape(std::string_view text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string Counts(const std::array<uint64_t, kVerdictCount>& counts, bool skip_zero) {
  std::string out;
  for (Verdict v : vocab::AllValues<VerdictName>()) {
    const uint64_t count = counts[static_cast<size_t>(v)];
    if (skip_zero && count == 0) continue;
    out += fmt::format("{}{} {}", out.empty() ? "" : ", ", VerdictName(v), count);
  }
  return out;
}

void PrintPlan(std::FILE* out, const CmdSweepResult& result) {
  const auto& sizes = result.plan_sizes;
  if (result.baseline.sites.empty()) {
    std::fprintf(out,
                 "plan: depth all (the baseline's trace names no call sites): %llu runs "
                 "(in-scope calls x errnos each call's operation can return x modes)\n",
                 static_cast<unsigned long long>(result.planned_runs));
  } else {
    std::fprintf(out,
                 "plan: depth %s: %llu runs (by depth: first %llu, edges %llu, all %llu; "
                 "x errnos each operation can return x modes)\n",
                 std::string(DepthName(result.depth)).c_str(),
                 static_cast<unsigned long long>(result.planned_runs),
                 static_cast<unsigned long long>(sizes[0]),
                 static_cast<unsigned long long>(sizes[1]),
                 static_cast<unsigned long long>(sizes[2]));
  }
  if (result.sampled_runs != result.planned_runs) {
    std::fprintf(out,
                 "sampled: %llu of %llu runs (--max-runs %llu), spread evenly over the plan, "
                 "the first planned call of each operation always included\n",
                 static_cast<unsigned long long>(result.sampled_runs),
                 static_cast<unsigned long long>(result.planned_runs),
                 static_cast<unsigned long long>(result.max_runs));
  }
  if (result.shard_count > 1) {
    std::fprintf(out, "shard %d/%d: %llu of %llu runs\n", result.shard_index, result.shard_count,
                 static_cast<unsigned long long>(result.run_count),
                 static_cast<unsigned long long>(result.sampled_runs));
  }
}

void PrintSites(std::FILE* out, const CmdSweepResult& result) {
  const auto& by_site = result.by_site;
  for (const SiteInfo& site : result.baseline.sites) {
    const auto it = by_site.find(site.id);
    const std::string reached = site.baselines < result.baseline.runs
                                    ? fmt::format(" (reached by {} of {} baseline runs)",
                                                  site.baselines, result.baseline.runs)
                                    : std::string();
    std::fprintf(out, "site %s: %s %s %s, %llu calls%s: %s\n", site.id.c_str(), site.op.c_str(),
                 site.call.c_str(), site.path.c_str(), static_cast<unsigned long long>(site.calls),
                 reached.c_str(),
                 it == by_site.end() ? "no run" : Counts(it->second, true).c_str());
    for (const std::string& frame : site.frames) std::fprintf(out, "  at %s\n", frame.c_str());
  }
}

void PrintLeftovers(std::FILE* out, const RunResult& run) {
  // A kill run's leftovers are its orphans and its restart's, which RestartLines shows.
  for (const SweepLeftover& left : run.restart ? std::vector<SweepLeftover>{} : run.leftovers) {
    std::fprintf(out, "  left %s (%llu bytes): %s\n", left.path.c_str(),
                 static_cast<unsigned long long>(left.size),
                 std::string(LeftoverKindName(left.kind)).c_str());
  }
}

void PrintViolation(std::FILE* out, const RunResult& run) {
  std::fprintf(out, "violation: %s: %s (%s)\n", Describe(run.spec).c_str(),
               VerdictList(run).c_str(), HowItEnded(run).c_str());
  PrintLeftovers(out, run);
  std::fputs(RestartLines(run).c_str(), out);
  std::fputs(DamageLine(run).c_str(), out);
  std::fprintf(out, "  reproduce: %s\n", run.reproducer.c_str());
  if (!run.kept_as.empty()) {
    std::fprintf(out, "  kept: %s.{sh,stdout,stderr,trace}\n", run.kept_as.c_str());
  }
}

std::string DescribeNeighbour(const NeighbourRun& n) {
  return fmt::format("neighbours round {} instance {} (started at +{:.3f} s)", n.round, n.instance,
                     n.offset);
}

bool IsViolationRun(const RunResult& run) {
  return std::any_of(run.verdicts.begin(), run.verdicts.end(), IsViolation);
}

// A violation's JUnit <failure>, with its reproducer.
std::string FailureXml(const RunResult& run) {
  return fmt::format("<failure message=\"{}\">{}\n{}{}reproduce: {}</failure>",
                     XmlEscape(VerdictList(run)), XmlEscape(HowItEnded(run)),
                     XmlEscape(RestartLines(run)), XmlEscape(DamageLine(run)),
                     XmlEscape(run.reproducer));
}

// The neighbour rounds' line, and each neighbour run that is a violation.
void PrintNeighbours(std::FILE* out, const NeighbourResult& neighbours) {
  if (neighbours.instances == 0) return;
  std::fprintf(out, "neighbours: %d rounds of %d instances in one scope (seed %llu): %s\n",
               neighbours.rounds, neighbours.instances,
               static_cast<unsigned long long>(neighbours.seed),
               Counts(neighbours.by_verdict, true).c_str());
  for (const NeighbourRun& n : neighbours.runs) {
    if (!IsViolationRun(n.run)) continue;
    std::fprintf(out, "violation: %s: %s (%s)\n", DescribeNeighbour(n).c_str(),
                 VerdictList(n.run).c_str(), HowItEnded(n.run).c_str());
    PrintLeftovers(out, n.run);
    std::fprintf(out, "  reproduce: %s\n", n.run.reproducer.c_str());
  }
}

}  // namespace

Status PrintText(std::FILE* out, const CmdSweepResult& result) {
  const Baseline& baseline = result.baseline;
  std::string ops;
  for (const auto& [op, n] : baseline.calls_by_op) {
    ops += fmt::format("{}{} {}", ops.empty() ? "" : ", ", op, n);
  }
  std::string runs;
  std::string sites = fmt::format("{} call sites", baseline.sites.size());
  if (baseline.runs > 1) {
    runs = fmt::format(" ({} runs)", baseline.runs);
    const auto some = std::count_if(baseline.sites.begin(), baseline.sites.end(),
                                    [&](const SiteInfo& s) { return s.baselines < baseline.runs; });
    sites += fmt::format(" ({} reached by some runs only)", some);
  }
  std::fprintf(out, "baseline%s: exit %d, %llu in-scope calls (%s), %s, %zu leftovers, %.2f s\n",
               runs.c_str(), baseline.exit_code, static_cast<unsigned long long>(baseline.calls),
               ops.empty() ? "none" : ops.c_str(), sites.c_str(), baseline.leftovers.size(),
               baseline.seconds);
  if (result.scratch) {
    for (const SweepLeftover& left : baseline.leftovers) {
      std::fprintf(out, "baseline leak (--scratch): %s (%llu bytes)\n", left.path.c_str(),
                   static_cast<unsigned long long>(left.size));
    }
  }
  PrintPlan(out, result);
  PrintSites(out, result);
  PrintNeighbours(out, result.neighbours);
  SPILLWAY_RETURN_IF_ERROR(result.runs->ForEach([out](const RunResult& run) {
    if (IsViolationRun(run)) PrintViolation(out, run);
  }));
  std::fprintf(out, "verdicts: %s\n", Counts(result.by_verdict, false).c_str());
  if (result.damage_runs > 0) {
    // Does it notice? clean_error: it did; silent_wrong_output: it printed damaged data.
    std::fprintf(out, "damage runs (corrupt, lost): %llu: %s\n",
                 static_cast<unsigned long long>(result.damage_runs),
                 Counts(result.damage_by_verdict, true).c_str());
  }
  const NeighbourResult& neighbours = result.neighbours;
  const std::string neighbour_violations =
      neighbours.instances == 0 ? std::string()
                                : fmt::format("; neighbours: {} of {} runs", neighbours.violations,
                                              neighbours.runs.size());
  std::fprintf(out, "violations: %llu of %llu runs%s (timeout %.3g s per run)\n",
               static_cast<unsigned long long>(result.violations),
               static_cast<unsigned long long>(result.run_count), neighbour_violations.c_str(),
               result.timeout);
  return OkStatus();
}

Status WriteJunit(std::FILE* out, const CmdSweepResult& result) {
  const uint64_t skipped = result.by_verdict[static_cast<int>(Verdict::kDiverged)];
  const std::string head = fmt::format(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n"
      "<testsuite name=\"spillway sweep\" tests=\"{}\" failures=\"{}\" skipped=\"{}\">\n",
      result.run_count + result.neighbours.runs.size() + (result.scratch ? 1 : 0),
      result.violations + result.neighbours.violations +
          (result.scratch && !result.baseline.leftovers.empty() ? 1 : 0),
      skipped);
  std::fputs(head.c_str(), out);
  for (const NeighbourRun& n : result.neighbours.runs) {
    std::string xml = fmt::format("<testcase classname=\"spillway.sweep.neighbours\" name=\"{}\">",
                                  XmlEscape(DescribeNeighbour(n)));
    if (IsViolationRun(n.run)) xml += FailureXml(n.run);
    xml += "</testcase>\n";
    std::fputs(xml.c_str(), out);
  }
  if (result.scratch) {
    // The baseline is a case of its own: what it left in temporary space is a leak.
    std::string xml = "<testcase classname=\"spillway.sweep\" name=\"baseline\">";
    std::string left;
    for (const SweepLeftover& l : result.baseline.leftovers) left += l.path + "\n";
    if (!left.empty()) {
      xml += fmt::format("<failure message=\"leak\">{}</failure>", XmlEscape(left));
    }
    xml += "</testcase>\n";
    std::fputs(xml.c_str(), out);
  }
  SPILLWAY_RETURN_IF_ERROR(result.runs->ForEach([out](const RunResult& run) {
    // A corrupt or lost run is a case of spillway.sweep.damage: does the program notice?
    std::string xml =
        fmt::format("<testcase classname=\"spillway.sweep{}\" name=\"{}\">",
                    IsDamageMode(run.spec.mode) ? ".damage" : "", XmlEscape(Describe(run.spec)));
    if (IsViolationRun(run)) {
      xml += FailureXml(run);
    } else if (!run.diverged_at.empty()) {
      xml += fmt::format("<skipped message=\"diverged: {}\"/>", XmlEscape(run.diverged_at));
    }
    xml += "</testcase>\n";
    std::fputs(xml.c_str(), out);
  }));
  std::fputs("</testsuite>\n</testsuites>\n", out);
  return OkStatus();
}

}  // namespace spillway::program_sweep
