#include "spillway/vfs/fault_rules.h"

#include <fnmatch.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <string>
#include <thread>
#include <vector>

#include "spillway/vfs/glob.h"

namespace spillway {
namespace {

FaultRuleSpec Parse(const std::string& text) {
  FaultRuleSpec rule;
  char error[512] = {};
  EXPECT_TRUE(ParseFaultRule(text, &rule, error, sizeof(error))) << text << ": " << error;
  return rule;
}

std::string ParseError(const std::string& text) {
  FaultRuleSpec rule;
  char error[512] = {};
  EXPECT_FALSE(ParseFaultRule(text, &rule, error, sizeof(error))) << text;
  return error;
}

TEST(FaultRulesTest, ParsesEveryOption) {
  const FaultRuleSpec rule =
      Parse("write ENOSPC after=3 times=forever path=/s/*.tmp probability=0.5");
  EXPECT_EQ(rule.op_code, static_cast<uint8_t>(FaultOp::kWrite));
  EXPECT_EQ(rule.error_number, ENOSPC);
  EXPECT_EQ(rule.after, 3u);
  EXPECT_TRUE(rule.forever);
  EXPECT_STREQ(rule.path_glob, "/s/*.tmp");
  EXPECT_EQ(rule.probability, 0.5);
  const FaultRuleSpec plain = Parse("any EIO");
  EXPECT_EQ(plain.op_code, kFaultAnyOp);
  EXPECT_EQ(plain.times, 1u);
  EXPECT_FALSE(plain.forever);
}

TEST(FaultRulesTest, RejectsBadRulesSayingWhy) {
  EXPECT_NE(ParseError("frob EIO").find("unknown OP 'frob'"), std::string::npos);
  EXPECT_NE(ParseError("write ENOPE").find("unknown errno 'ENOPE'"), std::string::npos);
  const std::string impossible = ParseError("read ENOSPC");
  EXPECT_NE(impossible.find("read cannot fail with ENOSPC"), std::string::npos) << impossible;
  EXPECT_NE(impossible.find("EIO"), std::string::npos) << impossible;
  EXPECT_NE(ParseError("write EIO after=-1").find("after=-1"), std::string::npos);
  EXPECT_NE(ParseError("write EIO times=x").find("or forever"), std::string::npos);
  EXPECT_NE(ParseError("write EIO path=rel/*").find("absolute"), std::string::npos);
  EXPECT_NE(ParseError("write EIO probability=2").find("0 to 1"), std::string::npos);
  EXPECT_NE(ParseError("write EIO color=red").find("unknown option"), std::string::npos);
}

TEST(FaultRulesTest, ParsesKillOnAnyOpOnceAndRejectsItWithAnErrnoOrTimes) {
  const FaultRuleSpec write = Parse("write kill nth=2 path=/s/*");
  EXPECT_EQ(write.action, FaultAction::kKill);
  EXPECT_EQ(write.error_number, 0);
  EXPECT_EQ(write.after, 1u);
  EXPECT_EQ(write.times, 1u);
  EXPECT_EQ(Parse("any kill").op_code, kFaultAnyOp);
  EXPECT_EQ(Parse("mkdir kill times=1").action, FaultAction::kKill);
  EXPECT_EQ(Parse("write ENOSPC").action, FaultAction::kFail);
  for (const char* both : {"write kill ENOSPC", "write ENOSPC kill", "write kill kill"}) {
    EXPECT_NE(ParseError(both).find("together"), std::string::npos) << both;
  }
  for (const char* times :
       {"write kill times=2", "write kill times=0", "write kill times=forever"}) {
    EXPECT_NE(ParseError(times).find("kill takes no times= other than 1"), std::string::npos)
        << times;
  }
  EXPECT_NE(ParseError("write frob").find("or an action: kill"), std::string::npos);
}

TEST(FaultRulesTest, AKillRuleDecidesItsCallWithTheKillAction) {
  const FaultRuleSpec rules[] = {Parse("write ENOSPC nth=3"), Parse("any kill nth=2")};
  FaultRuleCounters counters[2];
  uint64_t draws = 0;
  const auto decide = [&](FaultOp op) {
    return DecideFault(rules, counters, 2, static_cast<uint8_t>(op), "/f", kFaultNoSite, 0, &draws);
  };
  EXPECT_FALSE(decide(FaultOp::kWrite).fired());
  const FaultDecision second = decide(FaultOp::kMkdir);
  EXPECT_TRUE(second.fired());
  EXPECT_EQ(second.rule, 1);
  EXPECT_EQ(second.action, FaultAction::kKill);
  EXPECT_EQ(second.error_number, 0);
  // Spent: the kill acts once.
  EXPECT_FALSE(decide(FaultOp::kMkdir).fired());
  EXPECT_EQ(decide(FaultOp::kWrite).action, FaultAction::kFail);
}

TEST(FaultRulesTest, ParsesCorruptLostOkAndDelayWhereTheyApply) {
  EXPECT_EQ(Parse("read corrupt").action, FaultAction::kCorrupt);
  EXPECT_EQ(Parse("write corrupt times=forever").action, FaultAction::kCorrupt);
  const FaultRuleSpec lost = Parse("write lost nth=2 path=/s/* site=9f3a1c0b77e2");
  EXPECT_EQ(lost.action, FaultAction::kLost);
  EXPECT_EQ(lost.error_number, 0);
  EXPECT_EQ(lost.after, 1u);
  const FaultRuleSpec slow = Parse("mkdir ok delay=250");
  EXPECT_EQ(slow.action, FaultAction::kOk);
  EXPECT_EQ(slow.delay_ms, 250u);
  EXPECT_EQ(Parse("write ENOSPC delay=3600000").delay_ms, kFaultMaxDelayMs);
  EXPECT_EQ(Parse("read corrupt delay=1 probability=0.5").delay_ms, 1u);
  EXPECT_EQ(Parse("write EIO").delay_ms, 0u);
  for (const char* wrong :
       {"open corrupt", "any corrupt", "sync corrupt", "read lost", "any lost", "create lost"}) {
    EXPECT_NE(ParseError(wrong).find("cannot be applied to"), std::string::npos) << wrong;
  }
  for (const char* both : {"read corrupt EIO", "write EIO lost", "write lost corrupt"}) {
    EXPECT_NE(ParseError(both).find("together"), std::string::npos) << both;
  }
  for (const char* delay : {"write EIO delay=0", "write EIO delay=3600001",
                            "read ok delay=", "read ok delay=1.5", "read ok delay=-3"}) {
    EXPECT_NE(ParseError(delay).find("from 1 to 3600000"), std::string::npos) << delay;
  }
  EXPECT_NE(ParseError("read ok").find("ok needs delay=MS"), std::string::npos);
}

TEST(FaultRulesTest, ADecisionCarriesTheDelayAndADrawFixedBySeedRuleAndCount) {
  const FaultRuleSpec rules[] = {Parse("read corrupt times=forever delay=5")};
  const auto draws_for = [&](uint64_t seed) {
    FaultRuleCounters counters[1];
    uint64_t draws = 0;
    std::vector<uint64_t> out;
    for (int i = 0; i < 3; ++i) {
      const FaultDecision d = DecideFault(rules, counters, 1, static_cast<uint8_t>(FaultOp::kRead),
                                          "/f", kFaultNoSite, seed, &draws);
      EXPECT_EQ(d.action, FaultAction::kCorrupt);
      EXPECT_EQ(d.delay_ms, 5u);
      out.push_back(d.draw);
    }
    return out;
  };
  const std::vector<uint64_t> seven = draws_for(7);
  EXPECT_EQ(draws_for(7), seven);  // The same on every run.
  EXPECT_NE(draws_for(8), seven);
  EXPECT_NE(seven[0], seven[1]);  // Each call its own.
  EXPECT_EQ(seven[1], FaultDamageDraw(7, 0, 2));
  // The byte and bit lie within the bytes the call moved, and cover them.
  std::vector<bool> seen(size_t{3} * 8, false);
  for (uint64_t acted = 1; acted <= 400; ++acted) {
    uint64_t index = 0;
    int bit = -1;
    FaultDamagePoint(FaultDamageDraw(1, 0, acted), 3, &index, &bit);
    ASSERT_LT(index, 3u);
    ASSERT_GE(bit, 0);
    ASSERT_LT(bit, 8);
    seen[index * 8 + static_cast<size_t>(bit)] = true;
  }
  EXPECT_EQ(std::count(seen.begin(), seen.end(), true), 24);
}

TEST(FaultRulesTest, ParsesSiteAndNth) {
  const FaultRuleSpec rule = Parse("write ENOSPC site=9f3a1c0b77e2 nth=3 times=forever");
  EXPECT_EQ(rule.site, 0x9f3a1c0b77e2u);
  EXPECT_EQ(rule.after, 2u);  // nth=K is the K-th matching call: after=K-1.
  EXPECT_TRUE(rule.forever);
  EXPECT_EQ(Parse("write ENOSPC nth=1").after, 0u);
  EXPECT_EQ(Parse("write ENOSPC").site, kFaultNoSite);
  char text[kFaultSiteDigits + 1];
  FormatFaultSite(rule.site, text);
  EXPECT_STREQ(text, "9f3a1c0b77e2");
  FormatFaultSite(0xab, text);
  EXPECT_STREQ(text, "0000000000ab");
}

TEST(FaultRulesTest, RejectsBadSitesAndNth) {
  for (const char* site : {"9f3a1c", "9F3A1C0B77E2", "9f3a1c0b77e2f", "9f3a1c0b77eg", ""}) {
    EXPECT_NE(ParseError(std::string("write EIO site=") + site).find("not a site id"),
              std::string::npos)
        << site;
  }
  EXPECT_NE(ParseError("write EIO nth=0").find("from 1"), std::string::npos);
  EXPECT_NE(ParseError("write EIO nth=-1").find("from 1"), std::string::npos);
  EXPECT_NE(ParseError("write EIO nth=2 after=1").find("one of nth= and after="),
            std::string::npos);
  EXPECT_NE(ParseError("write EIO after=1 nth=2").find("one of nth= and after="),
            std::string::npos);
  EXPECT_NE(ParseError("write EIO after=1 after=2").find("one of nth= and after="),
            std::string::npos);
}

TEST(FaultRulesTest, ParsesThenAndRejectsItWithoutASiteOrAValue) {
  EXPECT_TRUE(Parse("write EIO site=000000000001 nth=2 times=forever then=any").then_any_site);
  EXPECT_FALSE(Parse("write EIO site=000000000001 then=site").then_any_site);
  EXPECT_FALSE(Parse("write EIO site=000000000001").then_any_site);
  EXPECT_NE(ParseError("write EIO then=any").find("then=any needs site=ID"), std::string::npos);
  EXPECT_NE(ParseError("write EIO site=000000000001 then=all").find("then=all: not site"),
            std::string::npos);
  EXPECT_NE(ParseError("write EIO site=000000000001 then=").find("then=: not site"),
            std::string::npos);
}

TEST(FaultRulesTest, ASiteRuleCountsAndFailsOnlyItsSitesCalls) {
  // Calls from sites 1, 2, 1, 1, 2, 1: the rule fails site 1's second call (the third call
  // in all), then with forever every later call of site 1.
  const std::vector<uint64_t> sites = {1, 2, 1, 1, 2, 1};
  const auto decide = [&sites](const std::string& text) {
    const FaultRuleSpec rule = Parse(text);
    FaultRuleCounters counters{};
    uint64_t draws = 0;
    std::vector<int> out;
    out.reserve(sites.size());
    for (uint64_t site : sites) {
      out.push_back(DecideFault(&rule, &counters, 1, static_cast<uint8_t>(FaultOp::kWrite), "/s/f",
                                site, 0, &draws)
                        .error_number);
    }
    return out;
  };
  EXPECT_EQ(decide("write EIO site=000000000001 nth=2"), (std::vector<int>{0, 0, EIO, 0, 0, 0}));
  EXPECT_EQ(decide("write EIO site=000000000001 nth=2 times=forever"),
            (std::vector<int>{0, 0, EIO, EIO, 0, EIO}));
  EXPECT_EQ(decide("write EIO site=000000000002 after=1"), (std::vector<int>{0, 0, 0, 0, EIO, 0}));
  // then=any: site 1's second call triggers the rule; before it site 2's call passes, after
  // it every site's call is the rule's, and times= counts them all.
  EXPECT_EQ(decide("write EIO site=000000000001 nth=2 times=forever then=any"),
            (std::vector<int>{0, 0, EIO, EIO, EIO, EIO}));
  EXPECT_EQ(decide("write EIO site=000000000001 nth=2 times=3 then=any"),
            (std::vector<int>{0, 0, EIO, EIO, EIO, 0}));
  EXPECT_EQ(decide("write EIO site=000000000002 nth=1 times=forever then=any"),
            (std::vector<int>{0, EIO, EIO, EIO, EIO, EIO}));
  EXPECT_EQ(decide("write EIO site=000000000002 nth=1 times=forever then=site"),
            (std::vector<int>{0, EIO, 0, 0, EIO, 0}));
  // After the trigger, another site's call is still matched on the rule's op and glob.
  const FaultRuleSpec spread =
      Parse("write EIO site=000000000001 nth=1 times=forever then=any path=/s/*");
  FaultRuleCounters spread_counters{};
  uint64_t spread_draws = 0;
  const auto spread_decide = [&](uint8_t op, const char* path, uint64_t site) {
    return DecideFault(&spread, &spread_counters, 1, op, path, site, 0, &spread_draws).error_number;
  };
  const auto write = static_cast<uint8_t>(FaultOp::kWrite);
  EXPECT_EQ(spread_decide(write, "/s/f", 2), 0);
  EXPECT_EQ(spread_decide(write, "/s/f", 1), EIO);
  EXPECT_EQ(spread_decide(write, "/t/f", 2), 0);
  EXPECT_EQ(spread_decide(static_cast<uint8_t>(FaultOp::kRead), "/s/f", 2), 0);
  EXPECT_EQ(spread_decide(write, "/s/g", kFaultNoSite), EIO);
  EXPECT_EQ(spread_decide(write, "/s/g", 3), EIO);
  // Without site=, nth= counts every call.
  EXPECT_EQ(decide("write EIO nth=2"), (std::vector<int>{0, EIO, 0, 0, 0, 0}));
  // A call that carries no site never matches a rule that names one.
  const FaultRuleSpec rule = Parse("write EIO site=000000000001 times=forever");
  FaultRuleCounters counters{};
  uint64_t draws = 0;
  EXPECT_EQ(DecideFault(&rule, &counters, 1, static_cast<uint8_t>(FaultOp::kWrite), "/s/f",
                        kFaultNoSite, 0, &draws)
                .error_number,
            0);
  EXPECT_EQ(counters.matched, 0u);
  EXPECT_TRUE(FaultRulesNeedSites(&rule, 1));
  const FaultRuleSpec spreading = Parse("write EIO site=000000000001 then=any");
  EXPECT_TRUE(FaultRulesNeedSites(&spreading, 1));
  const FaultRuleSpec plain = Parse("write EIO");
  EXPECT_FALSE(FaultRulesNeedSites(&plain, 1));
  // Only the ops a site rule may match need their calls' sites before the decision.
  const auto read = static_cast<uint8_t>(FaultOp::kRead);
  const FaultRuleSpec mixed[] = {plain, rule};
  EXPECT_TRUE(FaultRulesNeedSitesOf(mixed, 2, write));
  EXPECT_FALSE(FaultRulesNeedSitesOf(mixed, 2, read));
  EXPECT_FALSE(FaultRulesNeedSitesOf(&plain, 1, write));
  const FaultRuleSpec any_op = Parse("any EIO site=000000000001");
  EXPECT_TRUE(FaultRulesNeedSitesOf(&any_op, 1, read));
}

TEST(FaultRulesTest, TheErrnoTableFollowsTheManPages) {
  const auto code = [](FaultOp op) { return static_cast<uint8_t>(op); };
  EXPECT_TRUE(FaultOpCanReturn(code(FaultOp::kWrite), ENOSPC));
  EXPECT_TRUE(FaultOpCanReturn(code(FaultOp::kCreate), EEXIST));
  EXPECT_TRUE(FaultOpCanReturn(code(FaultOp::kRmdir), ENOTEMPTY));
  EXPECT_TRUE(FaultOpCanReturn(code(FaultOp::kRename), EXDEV));
  EXPECT_FALSE(FaultOpCanReturn(code(FaultOp::kRead), ENOSPC));
  EXPECT_FALSE(FaultOpCanReturn(code(FaultOp::kStat), ENOSPC));
  EXPECT_FALSE(FaultOpCanReturn(code(FaultOp::kClose), ENOENT));
  EXPECT_TRUE(FaultOpCanReturn(kFaultAnyOp, EXDEV));
  for (int op = 0; op < kFaultOpCount; ++op) {
    EXPECT_TRUE(FaultOpCanReturn(static_cast<uint8_t>(op), EIO)) << "every op reaches the disk";
  }
}

// Why GlobMatch is not fnmatch(3) (FNM_PATHNAME, no FNM_PERIOD): on paths the rules
// do meet, the two disagree. A '*' that matches an empty component would let `path=/*`
// (meant for the entries of "/") also fail the listing of "/" itself, which ExpandGlob
// and programs under `spillway inject` make; and '[' is an ordinary character in a file
// name, which fnmatch reads as the start of a set.
TEST(FaultRulesTest, GlobDiffersFromFnmatchOnPathsRulesMeet) {
  const auto fnmatch_matches = [](const char* pattern, const char* path) {
    return fnmatch(pattern, path, FNM_PATHNAME) == 0;
  };
  EXPECT_TRUE(fnmatch_matches("/*", "/"));
  EXPECT_FALSE(GlobMatch("/*", "/"));
  EXPECT_TRUE(fnmatch_matches("/s/*", "/s/"));
  EXPECT_FALSE(GlobMatch("/s/*", "/s/"));
  EXPECT_FALSE(fnmatch_matches("/s/part[1].tmp", "/s/part[1].tmp"));
  EXPECT_TRUE(GlobMatch("/s/part[1].tmp", "/s/part[1].tmp"));

  // So a rule for the entries of "/" lets the listing of "/" through.
  const FaultRuleSpec rule = Parse("list EIO path=/* times=forever");
  FaultRuleCounters counters{};
  uint64_t draws = 0;
  const auto list = static_cast<uint8_t>(FaultOp::kList);
  EXPECT_EQ(DecideFault(&rule, &counters, 1, list, "/", kFaultNoSite, 0, &draws).error_number, 0);
  EXPECT_EQ(DecideFault(&rule, &counters, 1, list, "/s", kFaultNoSite, 0, &draws).error_number,
            EIO);
}

// Decides `calls` calls of op write on /s/f and returns the errno of each.
std::vector<int> Decide(std::vector<FaultRuleSpec> rules, int calls, uint64_t seed = 0) {
  std::vector<FaultRuleCounters> counters(rules.size());
  uint64_t draws = 0;
  std::vector<int> out;
  out.reserve(static_cast<size_t>(calls));
  for (int i = 0; i < calls; ++i) {
    out.push_back(DecideFault(rules.data(), counters.data(), rules.size(),
                              static_cast<uint8_t>(FaultOp::kWrite), "/s/f", kFaultNoSite, seed,
                              &draws)
                      .error_number);
  }
  return out;
}

TEST(FaultRulesTest, AfterTimesAndForever) {
  EXPECT_EQ(Decide({Parse("write EIO after=2 times=2")}, 6),
            (std::vector<int>{0, 0, EIO, EIO, 0, 0}));
  EXPECT_EQ(Decide({Parse("write EIO after=4 times=forever")}, 6),
            (std::vector<int>{0, 0, 0, 0, EIO, EIO}));
  EXPECT_EQ(Decide({Parse("read EIO")}, 2), (std::vector<int>{0, 0}));
  EXPECT_EQ(Decide({Parse("write EIO path=/t/*")}, 2), (std::vector<int>{0, 0}));
}

TEST(FaultRulesTest, RulesAreTriedInOrderAndAFailedCallIsNotSeenByLaterRules) {
  // The second rule counts only the calls the first let through.
  EXPECT_EQ(Decide({Parse("write EIO after=1"), Parse("write ENOSPC after=1")}, 4),
            (std::vector<int>{0, EIO, ENOSPC, 0}));
}

TEST(FaultRulesTest, ProbabilityReplaysFromTheSeed) {
  const FaultRuleSpec half = Parse("write EIO times=forever probability=0.5");
  const std::vector<int> a = Decide({half}, 200, 7);
  EXPECT_EQ(a, Decide({half}, 200, 7));
  EXPECT_NE(a, Decide({half}, 200, 8));
  const long failed = std::count(a.begin(), a.end(), EIO);
  EXPECT_GT(failed, 60);
  EXPECT_LT(failed, 140);
  const std::vector<int> never = Decide({Parse("write EIO times=forever probability=0")}, 50);
  EXPECT_EQ(std::count(never.begin(), never.end(), EIO), 0);
}

TEST(FaultRulesTest, AThenAnyRuleCountsExactlyWithoutALockAcrossThreadsOfManySites) {
  // One thread calls from the rule's site, three from others: whenever the trigger comes,
  // the failed calls are exactly the matched ordinals after+1 .. after+times.
  const FaultRuleSpec rule = Parse("write EIO site=000000000001 nth=200 times=1500 then=any");
  FaultRuleCounters counters{};
  uint64_t draws = 0;
  std::vector<uint64_t> failed_by(4, 0);
  std::vector<std::thread> threads;
  threads.reserve(failed_by.size());
  for (size_t t = 0; t < failed_by.size(); ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 1000; ++i) {
        if (DecideFault(&rule, &counters, 1, static_cast<uint8_t>(FaultOp::kWrite), "/s/f", t + 1,
                        0, &draws)
                .error_number == EIO) {
          ++failed_by[t];
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  // Site 1's own 801 calls from its 200th on are matched; the others only after it.
  ASSERT_GE(counters.matched, 1000u);
  EXPECT_EQ(counters.failed, std::min<uint64_t>(1500, counters.matched - 199));
  uint64_t sum = 0;
  for (uint64_t n : failed_by) sum += n;
  EXPECT_EQ(sum, counters.failed);
  EXPECT_GE(failed_by[0], 1u);
}

struct Shared {
  uint32_t lock = 0;
  uint64_t draws = 0;
  uint64_t plain = 0;
  FaultRuleSpec rule;
  FaultRuleCounters counters;
};

TEST(FaultRulesTest, CountersInSharedMemoryCountAcrossProcessesAndThreads) {
  constexpr int kThreads = 4;  // In each of the two processes.
  void* map =
      mmap(nullptr, sizeof(Shared), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(map, MAP_FAILED);
  auto* shared = new (map) Shared();
  shared->rule = Parse("write EIO after=30000 times=forever");
  auto work = [shared] {
    for (int i = 0; i < 5000; ++i) {
      FaultLock lock(&shared->lock, static_cast<uint32_t>(gettid()));
      ++shared->plain;  // Only the lock makes this exact.
      DecideFault(&shared->rule, &shared->counters, 1, static_cast<uint8_t>(FaultOp::kWrite),
                  "/s/f", kFaultNoSite, 0, &shared->draws);
    }
  };
  const pid_t child = fork();
  if (child == 0) {
    std::vector<std::thread> threads;
    threads.reserve(kThreads);
    for (int t = 0; t < kThreads; ++t) threads.emplace_back(work);
    for (std::thread& t : threads) t.join();
    _exit(0);
  }
  std::vector<std::thread> threads;
  threads.reserve(kThreads);
  for (int t = 0; t < kThreads; ++t) threads.emplace_back(work);
  for (std::thread& t : threads) t.join();
  int status = 0;
  waitpid(child, &status, 0);
  EXPECT_EQ(shared->plain, 40000u);
  EXPECT_EQ(shared->counters.matched, 40000u);
  EXPECT_EQ(shared->counters.failed, 10000u);
  munmap(map, sizeof(Shared));
}

}  // namespace
}  // namespace spillway
