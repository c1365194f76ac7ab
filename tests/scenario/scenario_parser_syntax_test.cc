// Tests of the scenario parser on the syntax of docs/scenarios.md: the documented example,
// sizes, counts, names and paths, comments, defaults, each command's words and options,
// and the errors of malformed input.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cerrno>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "spillway/scenario/scenario.h"
#include "support/scenario_test_support.h"

namespace spillway::scenario {
namespace {

using test_support::As;
using test_support::kDocumentedExample;
using test_support::MustFail;
using test_support::MustParse;
using test_support::MustParseAs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();

// Input that must fail to parse, and a part of the message it must fail with.
struct Malformed {
  std::string text;
  std::string message_part;
};

void ExpectMalformed(const std::vector<Malformed>& cases) {
  for (const Malformed& c : cases) {
    SCOPED_TRACE(c.text);
    EXPECT_THAT(MustFail(c.text).message, HasSubstr(c.message_part));
  }
}

TEST(ScenarioParserTest, ParsesTheDocumentedExample) {
  const Scenario s = MustParse(kDocumentedExample);
  ASSERT_EQ(s.commands.size(), 15u);
  EXPECT_EQ(s.file_name, "test.scen");

  EXPECT_EQ(s.commands[2].line, 3);
  const Plan plan = As<Plan>(s.commands[2]);
  EXPECT_EQ(plan.name, "p");
  EXPECT_EQ(plan.spec.dirs_kind, DirsKind::kList);
  EXPECT_THAT(plan.spec.local_dirs, ElementsAre("/local0", "/local1"));
  EXPECT_EQ(plan.spec.limit, 10u);
  EXPECT_TRUE(plan.spec.limit_written);
  EXPECT_EQ(plan.spec.mode, PlanMode::kLazy);
  EXPECT_FALSE(plan.spec.mode_written);
  EXPECT_EQ(plan.spec.missing_dir, MissingDirPolicy::kFail);

  EXPECT_EQ(As<ExpectCount>(s.commands[3]).glob, "/local*/datafusion-*");
  EXPECT_EQ(As<ExpectCount>(s.commands[3]).count, 0u);

  const Spill spill = As<Spill>(s.commands[4]);
  EXPECT_EQ(spill.file, "f");
  EXPECT_EQ(spill.plan, "p");
  EXPECT_EQ(spill.description, "spill");

  EXPECT_EQ(As<Write>(s.commands[6]).size, 8u);
  EXPECT_EQ(As<ExpectError>(s.commands[9]).error, "LIMIT");
  EXPECT_EQ(As<Drop>(s.commands[11]).name, "p");
  EXPECT_EQ(s.commands[14].line, 15);
}

TEST(ScenarioParserTest, SizesAreBytesWithBinarySuffixes) {
  const std::vector<std::pair<std::string, uint64_t>> cases = {
      {"0", 0},
      {"7", 7},
      {"007", 7},
      {"1K", 1024},
      {"3M", uint64_t{3} << 20},
      {"2G", uint64_t{2} << 30},
      {"0G", 0},
      {"18446744073709551615", kMax},
      // The largest G multiple that fits: (2^34 - 1) GiB.
      {"17179869183G", ((uint64_t{1} << 34) - 1) << 30},
  };
  for (const auto& [text, value] : cases) {
    EXPECT_EQ(MustParseAs<Capacity>("capacity " + text).size, value) << text;
  }
}

TEST(ScenarioParserTest, RejectsBadAndOverflowingSizes) {
  for (const std::string bad : {"1k", "1m", "K", "-1", "+1", "1.5K", "1KB", "0x10", "1 K", "ten"}) {
    const ParseError e = MustFail("dir /l\nplan p /l\nspill f p\nwrite f " + bad + "\n");
    EXPECT_EQ(e.line, 4) << bad;
    EXPECT_FALSE(e.message.empty()) << bad;
  }
  for (const std::string big : {"18446744073709551616", "99999999999999999999999", "17179869184G",
                                "17592186044416M", "18014398509481984K"}) {
    const ParseError e = MustFail("capacity " + big);
    EXPECT_EQ(e.line, 1);
    EXPECT_THAT(e.message, HasSubstr("too large")) << big;
  }
}

TEST(ScenarioParserTest, CountsTakeNoSuffix) {
  EXPECT_EQ(MustParseAs<ExpectFiles>("expect files p 3").count, 3u);
  EXPECT_EQ(MustParseAs<ExpectCount>("expect count /a/* 18446744073709551615").count, kMax);
  ExpectMalformed({
      {"dir /\nexpect files p 5K", "count"},
      {"dir /\nexpect count /a 18446744073709551616", "too large"},
      {"fault write EIO after=1K", "count"},
      {"fault write EIO times=-1", "count"},
  });
}

TEST(ScenarioParserTest, NamesAreLettersDigitsUnderscoreAndDash) {
  const Spill c = MustParseAs<Spill>("spill a-B_9 Plan-2");
  EXPECT_EQ(c.file, "a-B_9");
  EXPECT_EQ(c.plan, "Plan-2");
  for (const std::string bad : {"a.b", "a/b", "a*", "\xc3\xa9", "a=b", "a,b"}) {
    EXPECT_THAT(MustFail("drop " + bad).message, HasSubstr("bad name")) << bad;
  }
}

TEST(ScenarioParserTest, PathsAreAbsoluteWithoutDotComponents) {
  EXPECT_EQ(MustParseAs<Dir>("dir /").path, "/");
  EXPECT_EQ(MustParseAs<File>("file /a/b.c/..d").path, "/a/b.c/..d");
  for (const std::string bad : {"local0", "/a/./b", "/a/../b", "/a/", "//a", "/a//b", "/.."}) {
    EXPECT_EQ(MustFail("dir " + bad).line, 1) << bad;
    EXPECT_EQ(MustFail("dir /\nexpect exists " + bad).line, 2) << bad;
    EXPECT_EQ(MustFail("clean " + bad).line, 1) << bad;
    EXPECT_EQ(MustFail("plan p /a," + bad).line, 1) << bad;
    EXPECT_EQ(MustFail("fault write EIO path=" + bad).line, 1) << bad;
  }
  EXPECT_EQ(MustFail("plan p /a,,/b").line, 1);
  EXPECT_EQ(MustFail("plan p /a,").line, 1);
}

TEST(ScenarioParserTest, CommentsAndBlankLinesAreIgnoredAnywhere) {
  const Scenario s = MustParse(
      "# a header\n"
      "\n"
      "   dir /a   # trailing\n"
      "\tdir /b#glued\n"
      "#expect ok\n"
      "   \t  \n"
      "dir /c\r\n");
  ASSERT_EQ(s.commands.size(), 3u);
  EXPECT_EQ(As<Dir>(s.commands[0]).path, "/a");
  EXPECT_EQ(s.commands[0].line, 3);
  EXPECT_EQ(As<Dir>(s.commands[1]).path, "/b");
  EXPECT_EQ(s.commands[1].line, 4);
  EXPECT_EQ(As<Dir>(s.commands[2]).path, "/c");
  EXPECT_EQ(s.commands[2].line, 7);
  EXPECT_TRUE(MustParse("").commands.empty());
  EXPECT_TRUE(MustParse("# only a comment").commands.empty());
}

TEST(ScenarioParserTest, DefaultsAreThoseOfTheContract) {
  const PlanSpec plan = MustParseAs<Plan>("plan p /l").spec;
  EXPECT_EQ(plan.mode, PlanMode::kLazy);
  EXPECT_EQ(plan.limit, uint64_t{100} << 30);
  EXPECT_EQ(plan.missing_dir, MissingDirPolicy::kFail);
  EXPECT_FALSE(plan.limit_written || plan.mode_written || plan.missing_dir_written);
  EXPECT_EQ(plan.layout, SpillDirLayout::kAll);
  EXPECT_FALSE(plan.failover);
  EXPECT_FALSE(plan.layout_written || plan.failover_written);

  const FaultRule fault = MustParseAs<Fault>("fault create ENOENT").rule;
  EXPECT_EQ(fault.op, OpKind::kCreate);
  EXPECT_EQ(fault.error_number, ENOENT);
  EXPECT_EQ(fault.after, 0u);
  EXPECT_EQ(fault.times, std::optional<uint64_t>(1));
  EXPECT_EQ(fault.path_glob, "");

  EXPECT_EQ(MustParseAs<Spill>("spill f p").description, "spill");
  EXPECT_EQ(MustParseAs<Spill>("spill f p hash-join.build").description, "hash-join.build");
}

TEST(ScenarioParserTest, PlanDirsAndOptions) {
  const PlanSpec os_tmp = MustParseAs<Plan>("plan p os_tmp limit=1G").spec;
  EXPECT_EQ(os_tmp.dirs_kind, DirsKind::kOsTmp);
  EXPECT_EQ(os_tmp.limit, uint64_t{1} << 30);
  EXPECT_EQ(MustParseAs<Plan>("plan p disabled").spec.dirs_kind, DirsKind::kDisabled);

  const PlanSpec eager =
      MustParseAs<Plan>("plan q /a missing_dir=recreate mode=eager limit=0").spec;
  EXPECT_EQ(eager.mode, PlanMode::kEager);
  EXPECT_EQ(eager.missing_dir, MissingDirPolicy::kRecreate);
  EXPECT_EQ(eager.limit, 0u);
  EXPECT_TRUE(eager.mode_written && eager.limit_written && eager.missing_dir_written);

  EXPECT_EQ(MustParseAs<Plan>("plan p os_tmp mode=lazy").spec.mode, PlanMode::kLazy);
  const PlanSpec each = MustParseAs<Plan>("plan p /a,/b failover=on layout=each").spec;
  EXPECT_EQ(each.layout, SpillDirLayout::kEach);
  EXPECT_TRUE(each.failover);
  EXPECT_TRUE(each.layout_written && each.failover_written);
  const PlanSpec all = MustParseAs<Plan>("plan p /a layout=all failover=off").spec;
  EXPECT_EQ(all.layout, SpillDirLayout::kAll);
  EXPECT_FALSE(all.failover);
  EXPECT_EQ(MustParseAs<Plan>("plan p os_tmp layout=all failover=off").spec.dirs_kind,
            DirsKind::kOsTmp);
  ExpectMalformed({
      {"plan p os_tmp layout=each", "layout=each needs a list"},
      {"plan p disabled failover=on", "failover=on needs a list"},
      {"plan p /a layout=some", "bad layout"},
      {"plan p /a failover=yes", "bad failover"},
      {"plan p /a failover=on failover=on", "twice"},
      {"plan p os_tmp mode=eager", "mode=eager"},
      {"plan p disabled mode=eager", "mode=eager"},
      {"plan p /a mode=sometimes", "mode"},
      {"plan p /a missing_dir=retry", "missing_dir"},
      {"plan p /a limit=10 limit=20", "twice"},
      {"plan p /a colour=blue", "unknown option"},
      {"plan p /a extra", "unexpected word"},
  });
}

TEST(ScenarioParserTest, FaultOpsOptionsAndErrnos) {
  const FaultRule any =
      MustParseAs<Fault>("fault any ENOSPC after=2 times=forever path=/l*/datafusion-*").rule;
  EXPECT_EQ(any.op, std::nullopt);
  EXPECT_EQ(any.error_number, ENOSPC);
  EXPECT_EQ(any.after, 2u);
  EXPECT_EQ(any.times, std::nullopt);
  EXPECT_EQ(any.path_glob, "/l*/datafusion-*");

  const std::vector<std::pair<std::string, OpKind>> ops = {
      {"mkdir", OpKind::kMkdir}, {"create", OpKind::kCreate}, {"write", OpKind::kWrite},
      {"read", OpKind::kRead},   {"remove", OpKind::kRemove}, {"rmdir", OpKind::kRmdir},
      {"list", OpKind::kList},   {"stat", OpKind::kStat},     {"sync", OpKind::kSync}};
  for (const auto& [word, op] : ops) {
    EXPECT_EQ(MustParseAs<Fault>("fault " + word + " EIO times=3").rule.op, op) << word;
  }
  ExpectMalformed({
      {"fault open EIO", "unknown fault OP"},  // Only the OPs the contract defines.
      {"fault write EWHAT", "unknown errno name"},
      {"fault write EIO times=2 times=3", "twice"},
      {"fault write EIO when=now", "unknown option"},
      {"fault write", "usage"},
  });
}

TEST(ScenarioParserTest, AFaultMayLieOrWaitInsteadOfFailing) {
  const FaultRule corrupt = MustParseAs<Fault>("fault write corrupt times=2 delay=20").rule;
  EXPECT_EQ(corrupt.action, FaultAction::kCorrupt);
  EXPECT_EQ(corrupt.error_number, 0);
  EXPECT_EQ(corrupt.times, std::optional<uint64_t>(2));
  EXPECT_EQ(corrupt.delay_ms, 20u);
  EXPECT_EQ(MustParseAs<Fault>("fault write lost").rule.action, FaultAction::kLost);
  EXPECT_EQ(MustParseAs<Fault>("fault read corrupt").rule.action, FaultAction::kCorrupt);
  EXPECT_EQ(MustParseAs<Fault>("fault any ok delay=5").rule.action, FaultAction::kOk);
  EXPECT_EQ(MustParseAs<Fault>("fault write EIO delay=5").rule.delay_ms, 5u);
  ExpectMalformed({
      {"fault mkdir corrupt", "cannot be applied to mkdir"},
      {"fault create lost", "cannot be applied to create"},
      {"fault read lost", "cannot be applied to read"},
      {"fault write lost EIO", "unexpected word"},
      {"fault write ok", "ok needs delay=MS"},
      {"fault write EIO delay=0", "from 1 to 3600000"},
      {"fault write EIO delay=3600001", "from 1 to 3600000"},
      {"fault write corrupt delay=5 delay=6", "twice"},
  });
}

TEST(ScenarioParserTest, AFaultLinuxCannotProduceIsMalformedAndNamesTheAllowedErrnos) {
  EXPECT_EQ(MustParseAs<Fault>("fault remove EACCES").rule.error_number, EACCES);
  EXPECT_EQ(MustParseAs<Fault>("fault mkdir EEXIST").rule.error_number, EEXIST);
  EXPECT_EQ(MustParseAs<Fault>("fault stat ENOENT").rule.error_number, ENOENT);
  EXPECT_EQ(MustParseAs<Fault>("fault any ENOSPC").rule.error_number, ENOSPC);
  // Each pair below is one its Linux call never returns (unlink(2), rmdir(2), write(2),
  // opendir(3), stat(2); rename(2)'s EXDEV is no OP's).
  const std::vector<std::pair<std::string, std::string>> impossible = {
      {"remove", "ENOSPC"}, {"rmdir", "ENOSPC"}, {"write", "ENOENT"}, {"write", "EACCES"},
      {"list", "ENOSPC"},   {"stat", "ENOSPC"},  {"any", "EXDEV"}};
  for (const auto& [op, error] : impossible) {
    std::string line = "fault ";
    line.append(op).append(" ").append(error).append(" times=forever");
    const ParseError e = MustFail(line);
    std::string says = op;
    says.append(" cannot fail with ").append(error).append("; it can fail with:");
    ASSERT_THAT(e.message, HasSubstr(says)) << line;
    // The message goes on to name the errnos the op can fail with, and only those.
    const std::string allowed = e.message.substr(e.message.find(says) + says.size());
    const std::optional<OpKind> kind = OpKindFromName(op);
    for (const char* name : {"EACCES", "EIO", "ENOENT", "ENOSPC", "EEXIST", "EDQUOT"}) {
      const bool listed = allowed.find(std::string(" ") + name) != std::string::npos;
      EXPECT_EQ(listed, OpKindCanReturn(kind, *ErrnoFromName(name))) << e.message << " " << name;
    }
  }
}

TEST(ScenarioParserTest, ExpectErrorNamesAnErrnoLimitOrDisabled) {
  EXPECT_EQ(MustParseAs<ExpectError>("expect error ENOTDIR").error, "ENOTDIR");
  EXPECT_EQ(MustParseAs<ExpectError>("expect error LIMIT").error, "LIMIT");
  EXPECT_EQ(MustParseAs<ExpectError>("expect error DISABLED").error, "DISABLED");
  EXPECT_EQ(MustParseAs<ExpectError>("expect error EROFS").error, "EROFS");
  for (const std::string bad : {"OK", "limit", "ENOPE", "INVALID", "2"}) {
    EXPECT_THAT(MustFail("dir /\nexpect error " + bad).message, HasSubstr("unknown error")) << bad;
  }
}

TEST(ScenarioParserTest, QuirksByName) {
  EXPECT_EQ(MustParseAs<SetQuirk>("quirk write_leak").quirk, Quirk::kWriteLeak);
  EXPECT_EQ(MustParseAs<SetQuirk>("quirk outer_accounting").quirk, Quirk::kOuterAccounting);
  const ParseError e = MustFail("quirk leaky");
  EXPECT_THAT(e.message, HasSubstr("unknown quirk \"leaky\""));
  EXPECT_THAT(e.message, HasSubstr("shared_limit"));
}

TEST(ScenarioParserTest, ExpectBeforeAnyCommandIsMalformed) {
  EXPECT_EQ(MustFail("# header\nexpect ok\n").line, 2);
  EXPECT_EQ(MustFail("expect count /tmp/* 0").line, 1);
  EXPECT_EQ(MustFail("expect error ENOENT").line, 1);
  // Any command that is not an expect gives an outcome to check, quirk included.
  EXPECT_EQ(MustParse("quirk count_leak\nexpect ok\nexpect ok").commands.size(), 3u);
}

TEST(ScenarioParserTest, UnknownCommandsChecksAndArity) {
  ExpectMalformed({
      {"mkdir /a", "unknown command \"mkdir\""},
      {"DIR /a", "unknown command"},
      {"dir /\nexpect", "expect needs"},
      {"dir /\nexpect nothing", "unknown check"},
      {"dir /a /b", "unexpected word \"/b\""},
      {"dir", "too few words; usage: dir PATH"},
      {"spill f p sort extra", "unexpected word \"extra\""},
      {"dir /\nexpect ok now", "unexpected word \"now\""},
      {"write f", "usage: write FILE SIZE"},
  });
}

TEST(ScenarioParserTest, ReportsTheFirstOffendingLine) {
  const ParseError e = MustFail("dir /a\nbogus\ndir /b\nwrite f 1X\n");
  EXPECT_EQ(e.line, 2);
  EXPECT_THAT(e.message, HasSubstr("bogus"));
}

}  // namespace
}  // namespace spillway::scenario
