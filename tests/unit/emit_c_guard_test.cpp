// Defense in depth in the C back end: what emitted C does when the oracle's
// bounds proof is wrong. The programs here are out of bounds on purpose;
// the oracle refuses them, so they are validated without its bounds layer
// (OracleOptions::checkBounds = false), as a bug in that layer would let
// them through.
//
//   - With guard zones (EmitOptions::guardZones, `cairn emit c
//     --guard-zones`, the differential fuzzer) every load and store is
//     checked before it touches memory: however far out of bounds (just
//     past the end, 2^40 past, -1, -1 - 2^40, 2^63 through a u64 wrap), the
//     program stops with exit 3 and `FILE:LINE:COL: error: out-of-bounds
//     write: offset OFF is outside buffer %b of N elements` at the buffer's
//     line, a note at the access; never a segmentation fault.
//   - With checked accesses, the interpreter's trap (exit 1), which decides
//     over guard zones.
//   - Without either, a far write crashes; `cairn run --backend c` runs the
//     program through runCompiledProgram (exec/c_toolchain.hpp), which
//     reports a crash as an internal error, exit 70.
// Each test compiles C with the system compiler (CC, CFLAGS); without one it
// is skipped.
#include <gtest/gtest.h>

#include <sys/resource.h>

#include <csignal>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "exec/c_toolchain.hpp"
#include "exec/emit_c.hpp"
#include "ir/parser.hpp"
#include "oracle/oracle.hpp"

namespace cairn {
namespace {

struct Program {
  Graph g;
  Facts f;
  Schedule s;
  bool ok = false;
};

// Parsed and validated without the bounds layer.
std::unique_ptr<Program> loadUnchecked(const std::string &text) {
  auto p = std::make_unique<Program>();
  Diags d;
  OracleOptions o;
  o.checkBounds = false;
  p->ok = parseUir(text, p->g, d) && validate(p->g, p->f, d, o);
  if (p->ok) p->s = schedule(p->g, p->f);
  return p;
}

// Whether the full oracle refuses the text (so the test is about a program
// that only a wrong proof would let through).
bool oracleRefuses(const std::string &text) {
  Graph g;
  Facts f;
  Diags d;
  return parseUir(text, g, d) && !validate(g, f, d);
}

struct Ran {
  std::string out, err;
  int status = -1;
  int signal = 0;
};

// Compiles `source` and runs it; a crash is a result too (signal set).
bool compileAndRun(const std::string &source, const std::vector<std::string> &args, Ran &ran, std::string &error) {
  TempDir dir;
  if (!dir.ok()) return error = dir.error(), false;
  if (!writeFileText(dir.file("t.c"), source)) return error = "cannot write t.c", false;
  if (!compileC(compilerFromEnv(), dir.path(), dir.file("t.c"), dir.file("t"), error)) return false;
  std::vector<std::string> argv = {dir.file("t")};
  argv.insert(argv.end(), args.begin(), args.end());
  ProcessResult r = runProcess(argv, ProcessIO{"/dev/null", dir.file("out"), dir.file("err")}, {}, 120);
  if (!r.started || r.timedOut) return error = "the program did not run to its end", false;
  ran.out = readFileText(dir.file("out"));
  ran.err = readFileText(dir.file("err"));
  ran.status = r.exitCode;
  ran.signal = r.signal;
  return true;
}

#define NEED_CC() \
  if (!compilerAvailable(compilerFromEnv())) GTEST_SKIP() << "no C compiler (CC)"

EmitOptions guarded() {
  EmitOptions o;
  o.sourceName = "oob.uir";
  o.guardZones = true;
  return o;
}

// A program whose line 1 is a 4-element i32 slot buffer and which writes 7
// at OFFSET (a literal, or a name that the lines `pre` define).
std::string storeAt(const std::string &pre, const std::string &offset) {
  return "%b = buffer 4 dtype=i32 slot=0 data=[1 2 3 4]\n" + pre + "%p = shrink %b " + offset +
         " shape=[]\n"
         "%s = store %p 7\n"
         "%b1 = after %b %s\n";
}

// Loads element OFFSET of %b (line 1) and stores it into %o (line 2).
std::string loadAt(const std::string &pre, const std::string &offset) {
  return "%b = buffer 4 dtype=i32 data=[1 2 3 4]\n"
         "%o = buffer 1 dtype=i32 slot=0\n" +
         pre + "%p = shrink %b " + offset +
         " shape=[]\n"
         "%x = load %p\n"
         "%q = shrink %o 0 shape=[]\n"
         "%s = store %q %x\n"
         "%o1 = after %o %s\n";
}

// Emits `text` with guard zones, runs it, and expects exit 3 with the
// message at the buffer's line and the note at the access's.
void expectCaught(const std::string &text, const std::string &message, const std::string &note) {
  ASSERT_TRUE(oracleRefuses(text)) << "the oracle accepts it, so this tests nothing:\n" << text;
  auto p = loadUnchecked(text);
  ASSERT_TRUE(p->ok) << text;
  Ran ran;
  std::string error;
  ASSERT_TRUE(compileAndRun(emitC(p->g, p->f, p->s, guarded()), {}, ran, error)) << error;
  EXPECT_EQ(ran.signal, 0) << "crashed with signal " << ran.signal << ":\n" << text;
  EXPECT_EQ(ran.status, 3) << ran.err;
  EXPECT_EQ(ran.out, "");
  EXPECT_EQ(ran.err, message + "\n" + note + "\n") << text;
}

const char *kU64Zero = "%z = const 0 dtype=u64\n";

TEST(EmitCGuard, StoreJustPastTheEnd) {
  NEED_CC();
  expectCaught(storeAt("", "4"), "oob.uir:1:1: error: out-of-bounds write: offset 4 is outside buffer %b of 4 elements",
               "oob.uir:3:1: note: the store that writes there");
}

TEST(EmitCGuard, StoreFarPastTheEnd) {
  NEED_CC();
  // 2^40 elements past the end: 4 TiB away, far beyond any guard zone.
  expectCaught(storeAt("", "1099511627780"),
               "oob.uir:1:1: error: out-of-bounds write: offset 1099511627780 is outside buffer %b of 4 elements",
               "oob.uir:3:1: note: the store that writes there");
  // 2^63 as a u64 offset: the int64 offset is its two's complement.
  expectCaught(storeAt("%h = const 9223372036854775808 dtype=u64\n", "%h"),
               "oob.uir:1:1: error: out-of-bounds write: offset -9223372036854775808 is outside buffer %b of 4 "
               "elements",
               "oob.uir:4:1: note: the store that writes there");
}

TEST(EmitCGuard, StoreAtNegativeOffsetsThroughAU64Wrap) {
  NEED_CC();
  // 0 - 1 in u64 wraps to 2^64 - 1: offset -1.
  expectCaught(storeAt(std::string(kU64Zero) + "%m = sub %z 1\n", "%m"),
               "oob.uir:1:1: error: out-of-bounds write: offset -1 is outside buffer %b of 4 elements",
               "oob.uir:5:1: note: the store that writes there");
  // 0 - (2^40 + 1): offset -1 - 2^40.
  expectCaught(storeAt(std::string(kU64Zero) + "%m = sub %z 1099511627777\n", "%m"),
               "oob.uir:1:1: error: out-of-bounds write: offset -1099511627777 is outside buffer %b of 4 elements",
               "oob.uir:5:1: note: the store that writes there");
}

TEST(EmitCGuard, StoreThroughAShrinkChainAndInALoop) {
  NEED_CC();
  // A view of a view: 2 + (i + 1) in a loop over 4: the first bad lane (i = 1,
  // offset 4) is the one reported; nothing is written after it.
  expectCaught(
      "%b = buffer 4 dtype=i32 slot=0\n"
      "%v = shrink %b 2 shape=[2]\n"
      "%i = range 4 parallel\n"
      "  %j = add %i 1\n"
      "  %p = shrink %v %j shape=[]\n"
      "  %s = store %p 7\n"
      "%e = end %i %s\n"
      "%b1 = after %b %e\n",
      "oob.uir:1:1: error: out-of-bounds write: offset 4 is outside buffer %b of 4 elements",
      "oob.uir:6:3: note: the store that writes there");
  // A loop index of u64 whose count wrapped (0 - 1: 2^64 - 1 iterations):
  // the store at index i runs past the end at i = 4.
  expectCaught(
      "%b = buffer 4 dtype=i32 slot=0\n"
      "%z = const 0 dtype=u64\n"
      "%n = sub %z 1\n"
      "%i = range %n\n"
      "  %c = carry %b\n"
      "  %p = shrink %c %i shape=[]\n"
      "  %s = store %p 7\n"
      "  %c1 = after %c %s\n"
      "%e = end %i %c1\n"
      "%b1 = after %b %e\n",
      "oob.uir:1:1: error: out-of-bounds write: offset 4 is outside buffer %b of 4 elements",
      "oob.uir:7:3: note: the store that writes there");
}

TEST(EmitCGuard, StoreIntoADynamicBuffer) {
  NEED_CC();
  // The count is only known at run time: the check uses it.
  expectCaught(
      "%n = const 3 dtype=u64\n"
      "%d = buffer %n dtype=i32\n"
      "%o = buffer 1 dtype=i32 slot=0\n"
      "%p = shrink %d 3 shape=[]\n"
      "%s = store %p 7\n"
      "%d1 = after %d %s\n",
      "oob.uir:2:1: error: out-of-bounds write: offset 3 is outside buffer %d of 3 elements",
      "oob.uir:5:1: note: the store that writes there");
}

TEST(EmitCGuard, LoadsOutOfBounds) {
  NEED_CC();
  expectCaught(loadAt("", "4"), "oob.uir:1:1: error: out-of-bounds read: offset 4 is outside buffer %b of 4 elements",
               "oob.uir:4:1: note: the load that reads there");
  expectCaught(loadAt("", "1099511627780"),
               "oob.uir:1:1: error: out-of-bounds read: offset 1099511627780 is outside buffer %b of 4 elements",
               "oob.uir:4:1: note: the load that reads there");
  expectCaught(loadAt(std::string(kU64Zero) + "%m = sub %z 1\n", "%m"),
               "oob.uir:1:1: error: out-of-bounds read: offset -1 is outside buffer %b of 4 elements",
               "oob.uir:6:1: note: the load that reads there");
  expectCaught(loadAt(std::string(kU64Zero) + "%m = sub %z 1099511627777\n", "%m"),
               "oob.uir:1:1: error: out-of-bounds read: offset -1099511627777 is outside buffer %b of 4 elements",
               "oob.uir:6:1: note: the load that reads there");
}

TEST(EmitCGuard, JsonAndBatchKeepTheirShape) {
  NEED_CC();
  // --json: still nothing on stdout. In a batch (--all, as the fuzzer runs
  // it) the bad program exits 3 and the next one runs normally.
  auto bad = loadUnchecked(storeAt("", "1099511627780"));
  auto good = loadUnchecked("%b = buffer 2 dtype=i32 slot=0 data=[5 6]\n");
  ASSERT_TRUE(bad->ok && good->ok);
  Ran ran;
  std::string error;
  ASSERT_TRUE(compileAndRun(emitC(bad->g, bad->f, bad->s, guarded()), {"--json"}, ran, error)) << error;
  EXPECT_EQ(ran.status, 3);
  EXPECT_EQ(ran.out, "");
  std::string batch = emitCBatch({{&bad->g, &bad->f, &bad->s, "bad.uir"}, {&good->g, &good->f, &good->s, "good.uir"}},
                                 guarded());
  ASSERT_TRUE(compileAndRun(batch, {"--all"}, ran, error)) << error;
  EXPECT_EQ(ran.status, 0);
  EXPECT_EQ(ran.out,
            "=== program 0\n"
            "bad.uir:1:1: error: out-of-bounds write: offset 1099511627780 is outside buffer %b of 4 elements\n"
            "bad.uir:3:1: note: the store that writes there\n"
            "=== exit 3\n"
            "=== program 1\n"
            "slot 0 = [5 6]\n"
            "=== exit 0\n");
}

TEST(EmitCGuard, CheckedAccessesTrapFirst) {
  NEED_CC();
  // --check-accesses is the interpreter's check: a trap at the access, exit
  // 1, whether or not guard zones are on too.
  auto p = loadUnchecked(storeAt("", "1099511627780"));
  ASSERT_TRUE(p->ok);
  for (bool guard : {false, true}) {
    EmitOptions o = guarded();
    o.guardZones = guard;
    o.checkAccesses = true;
    Ran ran;
    std::string error;
    ASSERT_TRUE(compileAndRun(emitC(p->g, p->f, p->s, o), {}, ran, error)) << error;
    EXPECT_EQ(ran.signal, 0);
    EXPECT_EQ(ran.status, 1);
    EXPECT_EQ(ran.err, "oob.uir:3:1: error: trap: index 1099511627780 out of bounds for buffer %b of 4 elements\n");
  }
}

TEST(EmitCGuard, DefaultCodeHasNoChecks) {
  // The cost of the checks stays out of the default emission.
  auto p = loadUnchecked(storeAt("", "1"));
  ASSERT_TRUE(p->ok);
  EmitOptions plain;
  std::string c = emitC(p->g, p->f, p->s, plain);
  std::string body = c.substr(c.find("/* ---- the program"));
  EXPECT_EQ(body.find("cairn_rt_guard_"), std::string::npos);
  EXPECT_EQ(body.find("cairn_rt_access"), std::string::npos);
  EXPECT_NE(emitC(p->g, p->f, p->s, guarded()).find("cairn_rt_guard_wr(rt, 3, 1, 0u, "), std::string::npos);
}

// ---- the crash report of `cairn run --backend c` ------------------------------

TEST(EmitCGuard, ACrashOfTheCompiledProgramIsAnInternalError) {
  NEED_CC();
  // Without guard zones a write 2^60 elements off (2^62 bytes: not a valid
  // address) crashes; runCompiledProgram is what `cairn run --backend c`
  // runs the program with.
  auto p = loadUnchecked(storeAt("", "1152921504606846976"));
  ASSERT_TRUE(p->ok);
  EmitOptions o;
  o.sourceName = "crash.uir";
  struct rlimit core;  // no core file from the crash (the child inherits the limit)
  if (getrlimit(RLIMIT_CORE, &core) == 0) {
    core.rlim_cur = 0;
    setrlimit(RLIMIT_CORE, &core);
  }
  TempDir dir;
  ASSERT_TRUE(dir.ok());
  std::string error;
  ASSERT_TRUE(writeFileText(dir.file("t.c"), emitC(p->g, p->f, p->s, o)));
  ASSERT_TRUE(compileC(compilerFromEnv(), dir.path(), dir.file("t.c"), dir.file("t"), error)) << error;
  std::ostringstream err;
  int rc = runCompiledProgram({dir.file("t")}, ProcessIO{"/dev/null", dir.file("out"), dir.file("err")}, 60,
                              "crash.uir", err);
  EXPECT_EQ(rc, 70) << err.str();
  EXPECT_EQ(rc, kCompiledCrashStatus);
  std::string m = err.str();
  // SIGSEGV where a bad address faults so (Linux on x86-64 and arm64); SIGBUS elsewhere.
  const std::string head = "cairn: error: internal error: the compiled program of crash.uir crashed with signal ";
  std::string first = m.substr(0, m.find('\n'));
  EXPECT_TRUE(first == head + std::to_string(SIGSEGV) + " (SIGSEGV)" || first == head + std::to_string(SIGBUS) + " (SIGBUS)")
      << m;
  EXPECT_NE(m.find("\ncairn: note: the oracle accepted the program, so this is a bug in cairn"), std::string::npos) << m;
  EXPECT_NE(m.find("--check-accesses"), std::string::npos) << m;
  EXPECT_EQ(readFileText(dir.file("out")), "");
}

TEST(EmitCGuard, HowTheCompiledProgramEndedBecomesCairnsStatus) {
  // The other ends, with stand-in programs (no C compiler needed).
  auto ends = [](const std::string &script, double timeout, std::string &msg) {
    std::ostringstream err;
    int rc = runCompiledProgram({"sh", "-c", "ulimit -c 0; " + script}, ProcessIO{"/dev/null", "/dev/null", "/dev/null"}, timeout, "p.uir", err);
    msg = err.str();
    return rc;
  };
  std::string m;
  EXPECT_EQ(ends("exit 3", 0, m), 3);
  EXPECT_EQ(m, "");
  EXPECT_EQ(ends("exit 1", 0, m), 1);
  EXPECT_EQ(ends("kill -ABRT $$", 0, m), 70);
  EXPECT_EQ(m.substr(0, m.find('\n')),
            "cairn: error: internal error: the compiled program of p.uir crashed with signal " +
                std::to_string(SIGABRT) + " (SIGABRT)");
  EXPECT_EQ(ends("kill -FPE $$", 0, m), 70);
  EXPECT_NE(m.find("(SIGFPE)"), std::string::npos);
  EXPECT_EQ(ends("kill -TERM $$", 0, m), 2);
  EXPECT_EQ(m, "cairn: error: the compiled program of p.uir was killed by signal " + std::to_string(SIGTERM) +
                   " (SIGTERM)\n");
  EXPECT_EQ(ends("sleep 5", 0.2, m), 1);
  EXPECT_EQ(m, "cairn: error: the compiled program ran past the time limit of 0.2 s (--timeout) and was stopped\n");
  std::ostringstream err;
  EXPECT_EQ(runCompiledProgram({"/nonexistent/prog"}, ProcessIO{}, 0, "p.uir", err), 2);
  EXPECT_EQ(err.str().rfind("cairn: error: cannot run the compiled program: ", 0), 0u) << err.str();
}

}  // namespace
}  // namespace cairn
