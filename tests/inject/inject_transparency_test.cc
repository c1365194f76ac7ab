// With no rules the shim changes nothing: real programs give byte-identical stdout and the
// same exit status with and without it, while their in-scope calls are seen (the trace is
// not empty, so the scope was really exercised).
#include <unistd.h>

#include <fstream>
#include <string>

#include "support/inject_support.h"

namespace spillway::inject {
namespace {

class TransparencyTest : public InjectTest {
 protected:
  // Runs `script` (a shell script that uses $D, the scope) bare, then under the shim after
  // `reset` restored the scope, and compares.
  void ExpectSame(const std::string& script, const std::string& reset = "") {
    const std::string env = "D=" + ShellQuote(scope_) + " T=" + ShellQuote(twin_) + " ";
    const std::string reset_command = env + "sh -c " + ShellQuote(reset.empty() ? ":" : reset);
    ASSERT_EQ(RunShell(reset_command).exit_code, 0);
    const CommandResult bare = RunShell(env + "sh -c " + ShellQuote(script));
    ASSERT_EQ(RunShell(reset_command).exit_code, 0);
    const CommandResult shimmed = RunShell(env + Inject("", "sh -c " + ShellQuote(script)));
    EXPECT_EQ(bare.exit_code, shimmed.exit_code);
    EXPECT_EQ(bare.out, shimmed.out);
    EXPECT_FALSE(bare.out.empty());
    EXPECT_FALSE(ReadTrace(trace_).empty()) << "no in-scope call was seen";
  }

  static bool Have(const std::string& program) {
    return RunShell("command -v " + program + " >/dev/null").exit_code == 0;
  }

  void WriteShuffledLines(const std::string& name, int count) {
    std::ofstream out(twin_ / name);
    uint64_t x = 1;
    for (int i = 0; i < count; ++i) {
      x = x * 6364136223846793005ULL + 1442695040888963407ULL;
      out << (x >> 20) << " line " << i << "\n";
    }
  }
};

// 200,000 lines through a 100K buffer. A sanitized build, where every call through the
// shim is some 20 times slower, sorts 40,000: still 30 temp files, merged in two levels.
#ifdef SPILLWAY_SANITIZED
constexpr int kSortLines = 40000;
#else
constexpr int kSortLines = 200000;
#endif

TEST_F(TransparencyTest, GnuSortSpilling) {
  WriteShuffledLines("input", kSortLines);
  ExpectSame("sort -S 100K --parallel=1 -T \"$D\" \"$T/input\"; echo status $?");
}

TEST_F(TransparencyTest, GnuSortSpillingThroughACompressProgram) {
  if (!Have("gzip")) GTEST_SKIP() << "gzip is not installed";
  // The spill files are written by gzip children that inherit them across exec.
  WriteShuffledLines("input", 100000);
  ExpectSame("sort --compress-program=gzip -S 100K --parallel=1 -T \"$D\" \"$T/input\"");
}

TEST_F(TransparencyTest, Sqlite3SortingThroughSqliteTmpdir) {
  if (!Have("sqlite3")) GTEST_SKIP() << "sqlite3 is not installed";
  // CREATE INDEX sorts 200,000 rows through a small cache: its sorter spills to SQLITE_TMPDIR.
  ExpectSame(
      "SQLITE_TMPDIR=\"$D\" sqlite3 \"$T/db\" 'PRAGMA cache_size=8;"
      " CREATE TABLE IF NOT EXISTS t(x); DELETE FROM t;"
      " WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM c LIMIT 200000)"
      " INSERT INTO t SELECT (i*7919)%200003 FROM c; CREATE INDEX IF NOT EXISTS ix ON t(x);"
      " SELECT x FROM t ORDER BY x+1 LIMIT 3 OFFSET 1000; SELECT count(DISTINCT x) FROM t;"
      " DROP INDEX ix;'");
}

TEST_F(TransparencyTest, CpRecursive) {
  ExpectSame("cp -r \"$T/src\" \"$D/copy\" && cd \"$D\" && find copy -type f | sort | xargs cat",
             "rm -rf \"$D/copy\" \"$T/src\" && mkdir -p \"$T/src/a/b\" && "
             "for i in 1 2 3 4 5; do echo file $i > \"$T/src/a/f$i\"; echo deep $i > "
             "\"$T/src/a/b/g$i\"; done");
}

TEST_F(TransparencyTest, Tar) {
  ExpectSame(
      "tar -C \"$T\" -cf \"$D/a.tar\" src && mkdir \"$D/out\" && tar -C \"$D/out\" -xf "
      "\"$D/a.tar\" && tar -tf \"$D/a.tar\" | sort && cat \"$D\"/out/src/*",
      "rm -rf \"$D\"/* \"$T/src\" && mkdir \"$T/src\" && seq 1 5000 > \"$T/src/n\" && "
      "echo x > \"$T/src/x\"");
}

TEST_F(TransparencyTest, Find) {
  ExpectSame("find \"$D\" -name 'f*' | sort; find \"$D\" -type d | sort",
             "rm -rf \"$D\"/* && mkdir -p \"$D/a/b/c\" && touch \"$D/f1\" \"$D/a/f2\" "
             "\"$D/a/b/c/f3\" \"$D/a/.hidden\"");
}

TEST_F(TransparencyTest, NodeWritingFiles) {
  if (!Have("node")) GTEST_SKIP() << "node is not installed";
  ExpectSame(
      "node -e 'const fs=require(\"fs\"),d=process.env.D+\"/n\";"
      "fs.rmSync(d,{recursive:true,force:true});fs.mkdirSync(d);"
      "for(let i=0;i<50;i++)fs.writeFileSync(d+\"/f\"+i,\"x\".repeat(i*100));"
      "fs.appendFileSync(d+\"/f1\",\"tail\");fs.renameSync(d+\"/f2\",d+\"/g2\");"
      "fs.unlinkSync(d+\"/f3\");console.log(fs.readdirSync(d).sort().join(\",\"),"
      "fs.readFileSync(d+\"/f1\",\"utf8\").length,fs.statSync(d+\"/f49\").size)'");
}

}  // namespace
}  // namespace spillway::inject
