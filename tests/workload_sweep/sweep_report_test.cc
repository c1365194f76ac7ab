// The reference sweep's reports (report.h) of results made by hand: the JSON object's
// fields as docs/sweep.md lists them, the text summary's lines, and the --verbose run line.
#include <gtest/gtest.h>

#include <cerrno>
#include <nlohmann/json.hpp>
#include <string>

#include "spillway/spill/quirks.h"
#include "spillway/workload_sweep/report.h"

namespace spillway::workload_sweep {
namespace {

// Two errnos, one mode, a quirk, and three violations: one of the run without a fault, one
// with its own scenario, and one sharing the first's.
class ReportTest : public ::testing::Test {
 protected:
  ReportTest() {
    options_.fs = scenario::FsKind::kPosix;
    options_.errnos = {ENOSPC, EIO};
    options_.modes = {FaultMode::kPersistent};
    options_.quirks = Quirks().With(Quirk::kWriteLeak);
    options_.out_dir = "/out";
    result_.operations = 30;
    result_.operations_by_errno = {{ENOSPC, 12}, {EIO, 30}};
    result_.runs = 43;
    result_.runs_with_violations = 5;
    result_.scenario_files = 2;
    SweepViolation nofault;
    nofault.check = Check::kLeftover;
    nofault.message = "left /l0/x";
    nofault.runs = 1;
    nofault.scenario_path = "/out/a.scenario";
    nofault.has_expect = true;
    nofault.replay_exit = 1;
    nofault.replay_message = "a.scenario:9: expected count /l0/* 0, got 1";
    SweepViolation faulted;
    faulted.check = Check::kAccounting;
    faulted.message = "plan p counts 8 bytes, expected 0";
    faulted.act = "write f 8";
    faulted.error_number = EIO;
    faulted.mode = FaultMode::kPersistent;
    faulted.fault_op = 7;
    faulted.runs = 3;
    faulted.scenario_path = "/out/b.scenario";
    faulted.scenario_line = 12;
    faulted.replay_exit = 0;
    SweepViolation sharing = nofault;
    sharing.message = "left /l1/y";
    sharing.same_scenario_as = 1;
    result_.violations = {nofault, faulted, sharing};
  }

  SweepOptions options_;
  SweepResult result_;
};

TEST_F(ReportTest, JsonHoldsTheOptionsAndCounts) {
  const nlohmann::json json = nlohmann::json::parse(ReportJson(options_, result_));
  EXPECT_EQ(json["fs"], "posix");
  EXPECT_EQ(json["quirks"], nlohmann::json::array({"write_leak"}));
  EXPECT_EQ(json["errnos"], nlohmann::json::array({"ENOSPC", "EIO"}));
  EXPECT_EQ(json["modes"], nlohmann::json::array({"persistent"}));
  EXPECT_EQ(json["operations"], 30);
  EXPECT_EQ(json["operations_by_errno"], nlohmann::json({{"ENOSPC", 12}, {"EIO", 30}}));
  EXPECT_EQ(json["runs"], 43);
  EXPECT_EQ(json["runs_with_violations"], 5);
  EXPECT_EQ(json["scenario_files"], 2);
  ASSERT_EQ(json["violations"].size(), 3U);
}

TEST_F(ReportTest, JsonViolationsSayWhereAndHow) {
  const nlohmann::json json = nlohmann::json::parse(ReportJson(options_, result_));
  const nlohmann::json& nofault = json["violations"][0];
  EXPECT_EQ(nofault["check"], "leftover");
  EXPECT_EQ(nofault["act"], "");
  EXPECT_TRUE(nofault["errno"].is_null());
  EXPECT_TRUE(nofault["mode"].is_null());  // Null for the run without a fault.
  EXPECT_TRUE(nofault["same_scenario_as"].is_null());
  EXPECT_EQ(nofault["has_expect"], true);
  EXPECT_EQ(nofault["replay_exit"], 1);
  const nlohmann::json& faulted = json["violations"][1];
  EXPECT_EQ(faulted["check"], "accounting");
  EXPECT_EQ(faulted["message"], "plan p counts 8 bytes, expected 0");
  EXPECT_EQ(faulted["act"], "write f 8");
  EXPECT_EQ(faulted["errno"], "EIO");
  EXPECT_EQ(faulted["mode"], "persistent");
  EXPECT_EQ(faulted["operation"], 7);
  EXPECT_TRUE(faulted["damaged_op"].is_null());  // Only a damage run names one.
  EXPECT_EQ(faulted["runs"], 3);
  EXPECT_EQ(faulted["scenario"], "/out/b.scenario");
  EXPECT_EQ(faulted["scenario_line"], 12);
  EXPECT_EQ(faulted["has_expect"], false);
  EXPECT_EQ(faulted["replay_exit"], 0);
  EXPECT_EQ(json["violations"][2]["same_scenario_as"], 1);
}

// A damage run has no errno: its mode, and the kind and number of the call it damaged.
TEST_F(ReportTest, ADamageRunNamesItsModeAndTheCallItDamaged) {
  SweepViolation damaged = result_.violations[1];
  damaged.check = Check::kUndetectedDamage;
  damaged.error_number = std::nullopt;
  damaged.mode = FaultMode::kCorrupt;
  damaged.damaged_op = OpKind::kRead;
  damaged.fault_op = 3;
  result_.violations = {damaged};
  result_.damage_runs = 9;
  const nlohmann::json json = nlohmann::json::parse(ReportJson(options_, result_));
  EXPECT_EQ(json["damage_runs"], 9);
  const nlohmann::json& v = json["violations"][0];
  EXPECT_EQ(v["check"], "undetected_damage");
  EXPECT_TRUE(v["errno"].is_null());
  EXPECT_EQ(v["mode"], "corrupt");
  EXPECT_EQ(v["damaged_op"], "read");
  EXPECT_EQ(v["operation"], 3);
  EXPECT_NE(ReportText(options_, result_).find("first seen with read call 3 corrupt;"),
            std::string::npos);
}

TEST_F(ReportTest, TextSaysHowToReproduceEachViolation) {
  const std::string text = ReportText(options_, result_);
  EXPECT_TRUE(text.starts_with(
      "spillway sweep-workload: fs posix, quirks write_leak, errnos ENOSPC,EIO, modes "
      "persistent\n"))
      << text;
  EXPECT_NE(text.find("\nruns: 43 (1 without a fault + (ENOSPC 12 + EIO 30) operations x 1 "
                      "mode)\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("\nviolations: 3 distinct, in 5 of 43 runs\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\nscenario files: 2 in /out, one per check and commands run; 1 violation "
                      "shares an earlier one's"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  first seen in the run without a fault; seen in 1 run\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  first seen with EIO at operation 7 (persistent); seen in 3 runs\n"
                      "  the act: line 12 of the scenario, `write f 8`\n"
                      "  reproduce: spillway run --fs posix /out/b.scenario\n"
                      "  replay: exit 0; no expect can check this, see the comment after line "
                      "12\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  replay: fails as expected: a.scenario:9: "), std::string::npos) << text;
  EXPECT_TRUE(text.ends_with("  reproduce: the scenario of violation 1, /out/a.scenario\n"))
      << text;
}

TEST_F(ReportTest, TextWithoutViolationsEndsWithZero) {
  result_.violations.clear();
  EXPECT_TRUE(ReportText(options_, result_).ends_with("mode)\nviolations: 0\n"));
}

TEST_F(ReportTest, RunLinesNameTheFaultAndEachViolation) {
  RunReport run;
  run.error_number = ENOSPC;
  run.mode = FaultMode::kTransient;
  run.fault_op = 4;
  run.operations = 9;
  run.faults_injected = 1;
  run.acts_failed = 2;
  run.acts_skipped = 3;
  run.cleanup_records = 1;
  run.violations = {"accounting: off by 8"};
  EXPECT_EQ(RunLines(run),
            "run ENOSPC transient op 4: 9 operations, 1 faults injected, 2 acts failed, 3 "
            "skipped, 1 cleanup records: 1 violations\n  accounting: off by 8\n");
  EXPECT_EQ(RunLines(RunReport{}),
            "run no fault: 0 operations, 0 faults injected, 0 acts failed, 0 skipped, 0 cleanup "
            "records: ok\n");
}

}  // namespace
}  // namespace spillway::workload_sweep
