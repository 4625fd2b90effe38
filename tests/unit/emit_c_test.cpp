// Tests of the C back end (exec/emit_c.hpp) against the interpreter: value
// text (shortest round-trip floats) of the runtime against bitsText, random
// valid programs (tools/progen.hpp, every op on every dtype, dynamic sizes)
// emitted as one batch and run with `--all`, guard zones catching an
// out-of-bounds write, and emission failures. Each test compiles one C
// file with the system compiler (CC, CFLAGS); without one it is skipped.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdio>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "exec/c_toolchain.hpp"
#include "exec/emit_c.hpp"
#include "exec/interp.hpp"
#include "ir/check.hpp"
#include "ir/parser.hpp"
#include "oracle/oracle.hpp"
#include "tools/progen.hpp"

namespace cairn {
namespace {

struct Program {
  Graph g;
  Facts f;
  Schedule s;
  bool ok = false;
};

std::unique_ptr<Program> load(const std::string &text) {
  auto p = std::make_unique<Program>();
  Diags d;
  p->ok = parseUir(text, p->g, d) && validate(p->g, p->f, d);
  if (p->ok) p->s = schedule(p->g, p->f);
  return p;
}

// Compiles `source` and runs it with args; stdout and the exit status.
struct Ran {
  std::string out, err;
  int status = -1;
};
bool compileAndRun(const std::string &source, const std::vector<std::string> &args, Ran &ran, std::string &error) {
  TempDir dir;
  if (!dir.ok()) return error = dir.error(), false;
  if (!writeFileText(dir.file("t.c"), source)) return error = "cannot write t.c", false;
  if (!compileC(compilerFromEnv(), dir.path(), dir.file("t.c"), dir.file("t"), error)) return false;
  std::vector<std::string> argv = {dir.file("t")};
  argv.insert(argv.end(), args.begin(), args.end());
  ProcessResult r = runProcess(argv, ProcessIO{"/dev/null", dir.file("out"), dir.file("err")}, {}, 600);
  if (!r.started || r.signal || r.timedOut) return error = "the program did not run to its end", false;
  ran.out = readFileText(dir.file("out"));
  ran.err = readFileText(dir.file("err"));
  ran.status = r.exitCode;
  return true;
}

#define NEED_CC()                                                                   \
  if (!compilerAvailable(compilerFromEnv())) GTEST_SKIP() << "no C compiler (CC)"

// What `cairn run` prints for an interpreter result: stdout and stderr
// together, then the exit status (the shape of the batch's --all output).
std::string interpText(const Graph &g, const Facts &f, const std::string &src) {
  RunResult r = run(g, f);
  std::string s;
  int status = 0;
  if (r.status == RunResult::Status::Ok) {
    for (const auto &slot : r.slots) {
      s += "slot " + std::to_string(slot.slot) + " = [";
      for (size_t k = 0; k < slot.values.size(); ++k) s += (k ? " " : "") + bitsText(slot.values[k], slot.type);
      s += "]\n";
    }
  } else if (r.status == RunResult::Status::Trap) {
    s = src + ":" + std::to_string(r.loc.line) + ":" + std::to_string(r.loc.col) + ": error: " +
        (r.message.rfind("trap", 0) == 0 ? "" : "trap: ") + r.message + "\n";
    status = 1;
  } else {
    s = "cairn: error: " + r.message + "\n";
    status = 2;
  }
  return s + "=== exit " + std::to_string(status) + "\n";
}

TEST(EmitC, FloatTextMatchesBitsText) {
  NEED_CC();
  // A C program printing values given as bit patterns, through the runtime.
  std::string src = std::string(cRuntimeText()) + R"(
int main(void) {
  int t; unsigned long long b; char out[128];
  while (scanf("%d %llx", &t, &b) == 2) {
    if (t == CAIRN_F32) { uint32_t x = (uint32_t)b; cairn_rt_value_text(t, &x, 0, 0, out); }
    else { uint64_t x = b; cairn_rt_value_text(t, &x, 0, 0, out); }
    puts(out);
  }
  return 0;
}
)";
  std::mt19937_64 rng(7);
  std::string input, expected;
  const double specials[] = {0.0, -0.0, 1.0, 0.1, 1e21, 1e-7, 123456789012345680000.0, 5e-324, 1.7976931348623157e308,
                             1e16, 1e-4, 1e-3, 12345678.9, 9007199254740993.0};
  auto add = [&](DType t, Bits b) {
    input += std::to_string(static_cast<int>(t)) + " " + [&] {
      char h[32];
      std::snprintf(h, sizeof h, "%llx", static_cast<unsigned long long>(b));
      return std::string(h);
    }() + "\n";
    expected += bitsText(b, t) + "\n";
  };
  for (double d : specials) {
    add(DType::F64, std::bit_cast<uint64_t>(d));
    add(DType::F32, std::bit_cast<uint32_t>(static_cast<float>(d)));
  }
  for (int i = 0; i < 20000; ++i) {
    uint64_t b = rng();
    add(DType::F64, b);
    add(DType::F32, b & 0xffffffffu);
    double d = std::ldexp(1.0, static_cast<int>(rng() % 2100) - 1075);  // powers of two: uneven neighbours
    add(DType::F64, std::bit_cast<uint64_t>(d));
    add(DType::F32, std::bit_cast<uint32_t>(static_cast<float>(d)));
    double dec = static_cast<double>(static_cast<int64_t>(rng() % 2000001) - 1000000) / std::pow(10.0, rng() % 12);
    add(DType::F64, std::bit_cast<uint64_t>(dec));
    add(DType::F32, std::bit_cast<uint32_t>(static_cast<float>(dec)));
  }
  TempDir dir;
  ASSERT_TRUE(dir.ok());
  ASSERT_TRUE(writeFileText(dir.file("in"), input));
  std::string error;
  ASSERT_TRUE(writeFileText(dir.file("t.c"), src));
  ASSERT_TRUE(compileC(compilerFromEnv(), dir.path(), dir.file("t.c"), dir.file("t"), error)) << error;
  ProcessResult r = runProcess({dir.file("t")}, ProcessIO{dir.file("in"), dir.file("out"), ""}, {}, 600);
  ASSERT_EQ(r.exitCode, 0);
  std::string got = readFileText(dir.file("out"));
  if (got != expected) {  // the first difference, readably
    size_t at = 0;
    while (at < got.size() && at < expected.size() && got[at] == expected[at]) ++at;
    size_t ls = expected.rfind('\n', at);
    ls = ls == std::string::npos ? 0 : ls + 1;
    FAIL() << "C: " << got.substr(ls, got.find('\n', ls) - ls)
           << "\nbitsText: " << expected.substr(ls, expected.find('\n', ls) - ls);
  }
}

// Random valid programs, all in one unit: the batch's --all output must be
// what the interpreter gives, program by program. Half of them with guard
// zones, half with checked accesses (neither may change the output).
void differential(uint64_t firstSeed, int count, const GenOptions &gen, bool guardZones) {
  std::vector<std::unique_ptr<Program>> progs;
  std::vector<EmitUnit> units;
  std::string expected;
  for (uint64_t seed = firstSeed; static_cast<int>(progs.size()) < count && seed < firstSeed + 10 * count; ++seed) {
    auto p = load(generateValid(seed, gen).text);
    if (!p->ok) continue;
    std::string src = "seed" + std::to_string(seed) + ".uir";
    expected += "=== program " + std::to_string(units.size()) + "\n" + interpText(p->g, p->f, src);
    units.push_back({&p->g, &p->f, &p->s, src});
    progs.push_back(std::move(p));
  }
  ASSERT_GE(static_cast<int>(progs.size()), count / 2) << "the generator gave too few valid programs";
  EmitOptions o;
  o.guardZones = guardZones;
  o.checkAccesses = !guardZones;
  Ran ran;
  std::string error;
  ASSERT_TRUE(compileAndRun(emitCBatch(units, o), {"--all"}, ran, error)) << error;
  EXPECT_EQ(ran.status, 0);
  if (ran.out == expected) return;
  // Report the first program that differs, with its text.
  auto section = [](const std::string &s, size_t k) {
    std::string head = "=== program " + std::to_string(k) + "\n";
    size_t a = s.find(head), b = s.find("=== program " + std::to_string(k + 1) + "\n");
    return a == std::string::npos ? std::string("(missing)") : s.substr(a, b == std::string::npos ? b : b - a);
  };
  for (size_t k = 0; k < units.size(); ++k)
    if (section(ran.out, k) != section(expected, k)) {
      ADD_FAILURE() << units[k].sourceName << " differs.\nC:\n" << section(ran.out, k) << "interpreter:\n"
                    << section(expected, k);
      return;
    }
  ADD_FAILURE() << "the outputs differ";
}

TEST(EmitC, RandomProgramsAgreeWithTheInterpreter) {
  NEED_CC();
  GenOptions gen;
  differential(1, 60, gen, true);
}

// With buffers filled before they are read (GenOptions::scratch), under
// guard zones: a buffer the C back end wrongly leaves unzeroed starts as
// poison there (exec/first_write.hpp), and its reads differ.
TEST(EmitC, RandomProgramsWithFilledBuffersAgree) {
  NEED_CC();
  GenOptions gen;
  gen.scratch = true;
  gen.dynamic = true;
  gen.allOps = true;
  differential(5000, 60, gen, true);
}

TEST(EmitC, RandomProgramsAllOpsDynamicAgree) {
  NEED_CC();
  GenOptions gen;
  gen.allOps = true;
  gen.dynamic = true;
  differential(1000, 60, gen, false);
}

TEST(EmitC, GuardZoneCatchesAnOutOfBoundsWrite) {
  NEED_CC();
  auto p = load(
      "%b = buffer 4 dtype=i32 slot=0 data=[1 2 3 4]\n"
      "%i = range 4 parallel\n"
      "  %p = shrink %b %i shape=[]\n"
      "  %x = load %p\n"
      "  %y = add %x 1\n"
      "  %s = store %p %y\n"
      "%e = end %i %s\n"
      "%b1 = after %b %e\n");
  ASSERT_TRUE(p->ok);
  EmitOptions o;
  o.sourceName = "g.uir";
  o.guardZones = true;
  std::string c = emitC(p->g, p->f, p->s, o);
  Ran ran;
  std::string error;
  ASSERT_TRUE(compileAndRun(c, {}, ran, error)) << error;
  EXPECT_EQ(ran.status, 0);
  EXPECT_EQ(ran.out, "slot 0 = [2 3 4 5]\n");
  // Break the emitted store so it writes one element further, past its
  // offset check (cairn_rt_guard_wr): the last lane lands in the guard zone
  // after the buffer, which the check after the run finds. (Stores out of
  // bounds that the check sees: tests/unit/emit_c_guard_test.cpp.)
  size_t at = c.find("] = v", c.find("---- the program"));  // in the kernel, not the runtime
  ASSERT_NE(at, std::string::npos);
  c.insert(at, " + 1");
  ASSERT_TRUE(compileAndRun(c, {}, ran, error)) << error;
  EXPECT_EQ(ran.status, 3);
  EXPECT_EQ(ran.out, "");
  EXPECT_NE(ran.err.find("g.uir:1:1: error: out-of-bounds write: the guard zone after buffer %b was overwritten"),
            std::string::npos)
      << ran.err;
}

TEST(EmitC, SlotsTrapsAndJsonLikeTheCli) {
  NEED_CC();
  auto p = load(
      "%a = buffer 2 dtype=i32 slot=0 data=[7 0]\n"
      "%f = buffer 2 dtype=f32 slot=1 data=[0.1 nan]\n"
      "%p = shrink %a 0 shape=[]\n"
      "%q = shrink %a 1 shape=[]\n"
      "%x = load %p\n"
      "%y = load %q\n"
      "%z = idiv %x %y\n"
      "%s = store %p %z\n"
      "%a1 = after %a %s\n");
  ASSERT_TRUE(p->ok);
  EmitOptions o;
  o.sourceName = "t.uir";
  std::string c = emitC(p->g, p->f, p->s, o);
  Ran ran;
  std::string error;
  ASSERT_TRUE(compileAndRun(c, {}, ran, error)) << error;
  EXPECT_EQ(ran.status, 1);
  EXPECT_EQ(ran.out, "");
  EXPECT_EQ(ran.err, "t.uir:7:1: error: trap: division by zero\n");
  ASSERT_TRUE(compileAndRun(c, {"--slot", "0=7,2", "--json", "--slot=1=-inf, 2.5"}, ran, error)) << error;
  EXPECT_EQ(ran.status, 0) << ran.err;
  EXPECT_EQ(ran.out, "{\"slots\": {\"0\": [3, 2], \"1\": [\"-inf\", 2.5]}}\n");
  ASSERT_TRUE(compileAndRun(c, {"--slot", "0=1"}, ran, error)) << error;
  EXPECT_EQ(ran.status, 2);
  EXPECT_EQ(ran.err, "cairn: error: slot 0 has 2 elements, --slot gave 1\n");
  ASSERT_TRUE(compileAndRun(c, {"--slot", "0=1,x"}, ran, error)) << error;
  EXPECT_EQ(ran.status, 2);
  ASSERT_TRUE(compileAndRun(c, {"--slot", "0=1,2.5"}, ran, error)) << error;
  EXPECT_EQ(ran.err, "cairn: error: slot 0: value 1 (2.5) does not fit i32\n");
  ASSERT_TRUE(compileAndRun(c, {"--max-elements", "3"}, ran, error)) << error;
  EXPECT_EQ(ran.status, 1);
  EXPECT_EQ(ran.err,
            "t.uir:2:1: error: trap: buffer of 2 elements exceeds the limit of 3 elements (--max-elements) with the 2 "
            "elements already allocated\n");
}

TEST(EmitC, RuntimeIsSelfContained) {
  // Pasted into every unit: only standard headers, and the driver expanded.
  std::string_view rt = cRuntimeText();
  EXPECT_EQ(rt.find("#include \""), std::string_view::npos);
  EXPECT_NE(rt.find("cairn_rt_batch_main"), std::string_view::npos);
  EXPECT_NE(rt.find("#endif /* CAIRN_RT_H */"), std::string_view::npos);
}

TEST(EmitC, AnUnvalidatedGraphIsAnInternalError) {
  // Facts that do not belong to the graph: a bug in the caller, reported as
  // an internal error at the check that saw it, never C that does something
  // else (nor a batch that leaves the program out).
  if (kCheckAborts) GTEST_SKIP() << "built with CAIRN_CHECK_ABORTS: a failed check aborts";
  auto p = load("%b = buffer 1 dtype=i32 slot=0\n");
  ASSERT_TRUE(p->ok);
  Facts empty;
  try {
    (void)emitC(p->g, empty, p->s);
    FAIL() << "emitC accepted facts of another graph";
  } catch (const InternalError &e) {
    EXPECT_NE(std::string(e.what()).find("was it validated?"), std::string::npos) << e.what();
    EXPECT_EQ(e.file(), "exec/emit_c_writer.hpp");
  }
  EXPECT_THROW(emitCBatch({{&p->g, &p->f, &p->s, "good.uir"}, {&p->g, &empty, &p->s, "bad.uir"}}), InternalError);
  EXPECT_THROW(emitCBatch({{nullptr, nullptr, nullptr, "none.uir"}}), InternalError);
}

}  // namespace
}  // namespace cairn
