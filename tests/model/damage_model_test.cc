// The spill model's predictions for reads of damaged files (faults that lie: `fault write
// corrupt|lost`, `fault read corrupt`), worked out from the contract (docs/scenarios.md):
// a framed file (frame=on) with damage reads back as DATA_LOSS, a plain one as ok.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "spillway/model/spill_model.h"
#include "spillway/scenario/scenario.h"
#include "spillway/spill/quirks.h"
#include "support/model_test_support.h"

namespace spillway::model {
namespace {

// f (framed) gets a corrupt header, g (plain) a lost write; h (framed) is read while
// empty under a read corrupt (nothing to flip), then with a header and a read corrupt.
constexpr char kProgram[] = R"(plan p /l0 frame=on
plan q /l1
spill f p
spill g q
fault write corrupt
write f 10
read f
fault write lost
write g 10
read g
spill h p
fault read corrupt
read h
write h 0
read h
fault read corrupt
read h
fault read EIO
read g
)";

TEST(DamageModelTest, PredictsWhatAReadOfADamagedFileReturns) {
  const std::vector<scenario::Command> lines = Lines(kProgram);
  for (const scenario::FsKind fs : {scenario::FsKind::kMem, scenario::FsKind::kPosix}) {
    const Program p = ProgramFromLines(lines, fs);
    ASSERT_EQ(p.commands.size(), lines.size());
    // The frame's 20-byte header and the 10 bytes count; the lie is not an error.
    EXPECT_EQ(p.commands[5]->ToText(),
              "write f 10\nexpect ok\nexpect used p 30\nexpect size f 30\n"
              "expect spills p 1\nexpect spilled p 30");
    EXPECT_EQ(p.commands[6]->ToText(), "read f\nexpect error DATA_LOSS");
    EXPECT_EQ(p.commands[6]->expect_kinds()[0], InvariantKind::kUndetectedDamage);
    EXPECT_EQ(p.commands[8]->ToText(),
              "write g 10\nexpect ok\nexpect used q 10\nexpect size g 10\n"
              "expect spills q 1\nexpect spilled q 10");
    EXPECT_EQ(p.commands[9]->ToText(), "read g\nexpect ok");  // Wrong bytes, unnoticed.
    EXPECT_EQ(p.commands[12]->ToText(), "read h\nexpect ok");
    EXPECT_EQ(p.commands[13]->ToText(),
              "write h 0\nexpect ok\nexpect used p 50\nexpect size h 20\n"
              "expect spills p 2\nexpect spilled p 50");
    EXPECT_EQ(p.commands[14]->ToText(), "read h\nexpect ok");
    EXPECT_EQ(p.commands[16]->ToText(), "read h\nexpect error DATA_LOSS");
    EXPECT_EQ(p.commands[18]->ToText(), "read g\nexpect error EIO");
    scenario::RunnerOptions options;
    options.fs = fs;
    std::string text;
    const std::optional<Violation> v = RunProgram(p, options, &text);
    EXPECT_FALSE(v.has_value()) << v->message << "\n" << text;
  }
}

// A reader that skips the checks returns the framed file's damage as ok: the first read
// of a damaged framed file breaks undetected_damage, and nothing before it breaks anything.
TEST(DamageModelTest, AReaderThatSkipsTheChecksBreaksUndetectedDamage) {
  const Program p = ProgramFromLines(Lines(kProgram));
  scenario::RunnerOptions options;
  options.quirks = Quirk::kReaderSkipsCheck;
  std::string text;
  const std::optional<Violation> v = RunProgram(p, options, &text);
  ASSERT_TRUE(v.has_value()) << text;
  EXPECT_EQ(v->kind, InvariantKind::kUndetectedDamage) << v->message;
  EXPECT_NE(v->message.find("`read f`"), std::string::npos) << v->message;
}

// A frame a failed write cut short is damage too: the next read is DATA_LOSS.
TEST(DamageModelTest, PredictsAFrameCutShortAsDataLoss) {
  // The short write lets 5 bytes of the header's append through: no body follows.
  ExpectPredictions(R"(dir /l0
plan p /l0 frame=on
spill f p
short_write f 5
write f 10
read f
)",
                    R"(dir /l0
plan p /l0 frame=on
expect ok
expect count /l0/datafusion-* 0
spill f p
expect ok
expect files p 1
expect count /l0/datafusion-* 1
expect spills p 1
expect spilled p 0
short_write f 5
write f 10
expect error EIO
expect used p 5
expect size f 5
expect spills p 1
expect spilled p 5
read f
expect error DATA_LOSS
)");
}

}  // namespace
}  // namespace spillway::model
