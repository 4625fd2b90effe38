// Tests of the host interpreter (exec/): ALU semantics per dtype with their
// edge cases, traps with their lines, the lesson's programs, loops, reduce,
// dynamic sizes, --slot data, limits and --trace. Every program is parsed,
// validated by the oracle and run under both schedule priorities, which must
// agree exactly (status, message, location, slots).
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <sstream>
#include <string>

#include "exec/alu.hpp"
#include "exec/interp.hpp"
#include "exec/program.hpp"
#include "ir/check.hpp"
#include "ir/parser.hpp"
#include "oracle/oracle.hpp"

namespace cairn {
namespace {

struct Loaded {
  Graph g;
  Facts f;
  bool ok = false;
  std::string diags;
};

void load(const std::string &text, Loaded &l) {
  Diags d;
  l.ok = parseUir(text, l.g, d) && validate(l.g, l.f, d);
  for (const auto &x : d.list()) l.diags += std::to_string(x.loc.line) + ": " + x.message + "\n";
}

void expectSame(const RunResult &a, const RunResult &b) {
  EXPECT_EQ(a.status, b.status);
  EXPECT_EQ(a.message, b.message);
  EXPECT_EQ(a.loc.line, b.loc.line);
  ASSERT_EQ(a.slots.size(), b.slots.size());
  for (size_t k = 0; k < a.slots.size(); ++k) {
    EXPECT_EQ(a.slots[k].slot, b.slots[k].slot);
    EXPECT_EQ(a.slots[k].values, b.slots[k].values) << "slot " << a.slots[k].slot;
  }
}

// Runs under both priorities and checks they agree.
RunResult runUir(const std::string &text, RunOptions o = {}) {
  Loaded l;
  load(text, l);
  EXPECT_TRUE(l.ok) << "the oracle rejected:\n" << text << "\n" << l.diags;
  if (!l.ok) return RunResult{RunResult::Status::UsageError, "invalid", {}, {}, 0};
  o.priority = SchedulePriority::SourceOrder;
  RunResult a = run(l.g, l.f, o);
  o.priority = SchedulePriority::Latest;
  RunResult b = run(l.g, l.f, o);
  expectSame(a, b);
  return a;
}

// The values of slot `s` as text, e.g. "[1 3 6 10]".
std::string slotText(const RunResult &r, int64_t s) {
  for (const auto &x : r.slots)
    if (x.slot == s) {
      std::string out = "[";
      for (size_t k = 0; k < x.values.size(); ++k) out += (k ? " " : "") + bitsText(x.values[k], x.type);
      return out + "]";
    }
  return "(no slot " + std::to_string(s) + ")";
}

std::string okSlot(const RunResult &r, int64_t s = 0) {
  if (r.status != RunResult::Status::Ok) return "not ok: " + r.message;
  return slotText(r, s);
}

// `%z = OP %x %y` on dtype t; the result stored into slot 0 of dtype rt.
std::string bin(const std::string &op, const std::string &t, const std::string &a, const std::string &b,
                const std::string &rt = "") {
  std::string text = "%x = const " + a + " dtype=" + t + "\n%y = const " + b + " dtype=" + t + "\n%z = " + op +
                     " %x %y\n%o = buffer 1 dtype=" + (rt.empty() ? t : rt) +
                     " slot=0\n%p = shrink %o 0 shape=[]\n%s = store %p %z\n%o1 = after %o %s\n";
  RunResult r = runUir(text);
  if (r.status != RunResult::Status::Ok) return "trap: " + r.message + " @" + std::to_string(r.loc.line);
  return slotText(r, 0).substr(1, slotText(r, 0).size() - 2);
}
std::string cmp(const std::string &op, const std::string &t, const std::string &a, const std::string &b) {
  return bin(op, t, a, b, "bool");
}
std::string un(const std::string &op, const std::string &t, const std::string &a) {
  std::string text = "%x = const " + a + " dtype=" + t + "\n%z = " + op + " %x\n%o = buffer 1 dtype=" + t +
                     " slot=0\n%p = shrink %o 0 shape=[]\n%s = store %p %z\n%o1 = after %o %s\n";
  RunResult r = runUir(text);
  return r.status == RunResult::Status::Ok ? slotText(r, 0).substr(1, slotText(r, 0).size() - 2) : "trap: " + r.message;
}
std::string cast(const std::string &from, const std::string &to, const std::string &a) {
  std::string text = "%x = const " + a + " dtype=" + from + "\n%z = cast %x dtype=" + to + "\n%o = buffer 1 dtype=" + to +
                     " slot=0\n%p = shrink %o 0 shape=[]\n%s = store %p %z\n%o1 = after %o %s\n";
  RunResult r = runUir(text);
  return r.status == RunResult::Status::Ok ? slotText(r, 0).substr(1, slotText(r, 0).size() - 2) : "trap: " + r.message;
}

// ---- ALU ------------------------------------------------------------------

TEST(InterpAlu, AddSubMulWrap) {
  EXPECT_EQ(bin("add", "i32", "2147483647", "1"), "-2147483648");
  EXPECT_EQ(bin("add", "i8", "127", "1"), "-128");
  EXPECT_EQ(bin("add", "u8", "255", "1"), "0");
  EXPECT_EQ(bin("sub", "u16", "0", "1"), "65535");
  EXPECT_EQ(bin("sub", "i64", "-9223372036854775808", "1"), "9223372036854775807");
  EXPECT_EQ(bin("mul", "u16", "65535", "65535"), "1");
  EXPECT_EQ(bin("mul", "i16", "300", "300"), "24464");
  EXPECT_EQ(bin("mul", "u64", "18446744073709551615", "2"), "18446744073709551614");
  EXPECT_EQ(bin("mul", "i32", "-3", "5"), "-15");
  EXPECT_EQ(bin("add", "u32", "4294967295", "4294967295"), "4294967294");
  EXPECT_EQ(bin("add", "f32", "0.1", "0.2"), "0.3");  // f32: 0.1f + 0.2f prints as 0.3
  EXPECT_EQ(bin("add", "f64", "0.1", "0.2"), "0.30000000000000004");
  EXPECT_EQ(bin("sub", "f64", "inf", "inf"), "nan");
  EXPECT_EQ(bin("mul", "f32", "1e30", "1e30"), "inf");
}

TEST(InterpAlu, IdivModTruncateLikeC) {
  EXPECT_EQ(bin("idiv", "i32", "7", "-2"), "-3");
  EXPECT_EQ(bin("idiv", "i32", "-7", "2"), "-3");
  EXPECT_EQ(bin("mod", "i32", "-7", "2"), "-1");
  EXPECT_EQ(bin("mod", "i32", "7", "-2"), "1");
  EXPECT_EQ(bin("idiv", "i32", "-2147483648", "-1"), "-2147483648");
  EXPECT_EQ(bin("mod", "i32", "-2147483648", "-1"), "0");
  EXPECT_EQ(bin("idiv", "i64", "-9223372036854775808", "-1"), "-9223372036854775808");
  EXPECT_EQ(bin("mod", "i64", "-9223372036854775808", "-1"), "0");
  EXPECT_EQ(bin("idiv", "i8", "-128", "-1"), "-128");
  EXPECT_EQ(bin("mod", "i8", "-128", "-1"), "0");
  EXPECT_EQ(bin("idiv", "u8", "255", "2"), "127");
  EXPECT_EQ(bin("mod", "u64", "18446744073709551615", "10"), "5");
  EXPECT_EQ(bin("idiv", "u32", "4294967295", "4294967295"), "1");
}

// Division and mod by a literal in [2, 2^32) run by reciprocals (kModC,
// kDivC: exact below 2^32, a division above); against exec/alu.hpp's
// plain division, for dividends across each dtype's range (at a stride),
// around 2^32, around 0 and at the ends, in a parallel loop.
template <DType D>
void expectDivByConstants(const char *t, std::initializer_list<uint64_t> divisors, Bits stride) {
  std::vector<Bits> xs;
  for (Bits k = 0; k < 600; ++k) xs.push_back(exec::wrap<D>(k * stride));
  for (Bits k = 0; k < 600; ++k) xs.push_back(exec::wrap<D>((Bits{1} << 32) - 300 + k));
  for (Bits k = 0; k < 600; ++k) xs.push_back(exec::wrap<D>(Bits{0} - 300 + k));
  for (Bits e : {Bits{0} - 1, Bits{1} << 63, (Bits{1} << 63) - 1, Bits{0xffffffffu}, Bits{1} << 31})
    xs.push_back(exec::wrap<D>(e));
  std::string data, n = std::to_string(xs.size());
  for (Bits x : xs) data += (data.empty() ? "" : " ") + bitsText(x, D);
  for (uint64_t d : divisors) {
    std::string text = "%in = buffer " + n + " dtype=" + t + " slot=0 data=[" + data + "]\n%m = buffer " + n +
                       " dtype=" + t + " slot=1\n%q = buffer " + n + " dtype=" + t + " slot=2\n%i = range " + n +
                       " parallel\n  %p = shrink %in %i shape=[]\n  %x = load %p\n  %r = mod %x " +
                       std::to_string(d) + "\n  %d = idiv %x " + std::to_string(d) +
                       "\n  %pm = shrink %m %i shape=[]\n  %sm = store %pm %r\n  %pq = shrink %q %i shape=[]\n"
                       "  %sq = store %pq %d\n%e = end %i %sm %sq\n%m1 = after %m %e\n%q1 = after %q %e\n";
    Loaded l;
    load(text, l);
    ASSERT_TRUE(l.ok) << l.diags;
    ProgramPtr prog = compile(l.g, l.f);
    int fused = 0;
    for (const exec::Ins &i : prog->code) fused += i.op >= exec::kModC_I32 && i.op <= exec::kDivC_U64 ? 1 : 0;
    EXPECT_EQ(fused, 2) << t << " by " << d;
    RunResult r = execute(*prog, RunOptions{});
    ASSERT_EQ(r.status, RunResult::Status::Ok) << r.message;
    ASSERT_EQ(r.slots.size(), 3u);
    for (size_t k = 0; k < xs.size(); ++k) {
      const Bits dv = exec::wrap<D>(d);
      ASSERT_EQ(r.slots[1].values[k], exec::alu::Mod<D>(xs[k], dv)) << t << " " << bitsText(xs[k], D) << " % " << d;
      ASSERT_EQ(r.slots[2].values[k], exec::alu::Idiv<D>(xs[k], dv)) << t << " " << bitsText(xs[k], D) << " / " << d;
    }
  }
}

TEST(InterpAlu, DivisionByConstantsIsExact) {
  expectDivByConstants<DType::I32>("i32", {2, 3, 7, 251, 65537, 2147483647}, 7158278);
  expectDivByConstants<DType::U32>("u32", {2, 3, 7, 251, 65537, 2147483648u, 4294967295u}, 7158278);
  expectDivByConstants<DType::I64>("i64", {2, 3, 10, 251, 65537, 2147483648u, 4294967295u}, 30744573456182584ull);
  expectDivByConstants<DType::U64>("u64", {2, 3, 10, 251, 65537, 2147483648u, 4294967295u}, 30744573456182584ull);
}

TEST(InterpAlu, DivisionByZeroTrapsWithItsLine) {
  EXPECT_EQ(bin("idiv", "i32", "1", "0"), "trap: division by zero @3");
  EXPECT_EQ(bin("mod", "u8", "1", "0"), "trap: division by zero @3");
  EXPECT_EQ(bin("mod", "i64", "-5", "0"), "trap: division by zero @3");
  // Float division by zero is IEEE, not a trap.
  EXPECT_EQ(bin("fdiv", "f64", "1", "0"), "inf");
  EXPECT_EQ(bin("fdiv", "f32", "-1", "0"), "-inf");
  EXPECT_EQ(bin("fdiv", "f64", "0", "0"), "nan");
}

TEST(InterpAlu, MaxMin) {
  EXPECT_EQ(bin("max", "i32", "-5", "3"), "3");
  EXPECT_EQ(bin("min", "i32", "-5", "3"), "-5");
  EXPECT_EQ(bin("max", "u8", "200", "100"), "200");
  EXPECT_EQ(bin("min", "i8", "-128", "127"), "-128");
  EXPECT_EQ(bin("max", "u64", "18446744073709551615", "0"), "18446744073709551615");
  EXPECT_EQ(bin("max", "f64", "nan", "1"), "nan");
  EXPECT_EQ(bin("max", "f64", "1", "nan"), "nan");
  EXPECT_EQ(bin("min", "f32", "nan", "-inf"), "nan");
  EXPECT_EQ(bin("max", "f64", "-0.0", "0.0"), "0.0");
  EXPECT_EQ(bin("max", "f64", "0.0", "-0.0"), "0.0");
  EXPECT_EQ(bin("min", "f64", "0.0", "-0.0"), "-0.0");
  EXPECT_EQ(bin("min", "f32", "-0.0", "0.0"), "-0.0");
  EXPECT_EQ(bin("max", "f32", "-inf", "-3.5"), "-3.5");
}

TEST(InterpAlu, Comparisons) {
  EXPECT_EQ(cmp("cmplt", "i32", "-1", "0"), "1");
  EXPECT_EQ(cmp("cmplt", "u32", "4294967295", "0"), "0");
  EXPECT_EQ(cmp("cmplt", "i8", "-128", "127"), "1");
  EXPECT_EQ(cmp("cmpeq", "u64", "18446744073709551615", "18446744073709551615"), "1");
  EXPECT_EQ(cmp("cmpne", "f64", "nan", "nan"), "1");
  EXPECT_EQ(cmp("cmpeq", "f64", "nan", "nan"), "0");
  EXPECT_EQ(cmp("cmplt", "f32", "nan", "1"), "0");
  EXPECT_EQ(cmp("cmpeq", "f64", "-0.0", "0.0"), "1");
  EXPECT_EQ(cmp("cmplt", "bool", "false", "true"), "1");
}

TEST(InterpAlu, Bitwise) {
  EXPECT_EQ(bin("and", "i32", "-1", "255"), "255");
  EXPECT_EQ(bin("or", "i8", "-128", "1"), "-127");
  EXPECT_EQ(bin("xor", "u8", "255", "15"), "240");
  EXPECT_EQ(bin("xor", "i16", "-1", "1"), "-2");
  EXPECT_EQ(bin("and", "bool", "true", "false"), "0");
  EXPECT_EQ(bin("or", "bool", "true", "false"), "1");
  EXPECT_EQ(bin("xor", "bool", "true", "true"), "0");
}

TEST(InterpAlu, ShiftsTakeTheAmountModuloTheWidth) {
  EXPECT_EQ(bin("shl", "i8", "1", "7"), "-128");
  EXPECT_EQ(bin("shl", "i8", "1", "8"), "1");
  EXPECT_EQ(bin("shl", "i8", "3", "-1"), "-128");  // -1 mod 8 = 7
  EXPECT_EQ(bin("shr", "i8", "-128", "7"), "-1");  // arithmetic
  EXPECT_EQ(bin("shr", "u8", "128", "7"), "1");    // logical
  EXPECT_EQ(bin("shr", "u8", "128", "9"), "64");
  EXPECT_EQ(bin("shl", "i32", "1", "33"), "2");
  EXPECT_EQ(bin("shl", "u32", "1", "31"), "2147483648");
  EXPECT_EQ(bin("shr", "i32", "-8", "1"), "-4");
  EXPECT_EQ(bin("shr", "u32", "4294967288", "1"), "2147483644");
  EXPECT_EQ(bin("shl", "i64", "1", "64"), "1");
  EXPECT_EQ(bin("shl", "i64", "1", "63"), "-9223372036854775808");
  EXPECT_EQ(bin("shr", "i64", "-1", "63"), "-1");
  EXPECT_EQ(bin("shr", "u64", "18446744073709551615", "63"), "1");
  EXPECT_EQ(bin("shl", "u16", "65535", "4"), "65520");
  EXPECT_EQ(bin("shr", "i16", "-32768", "15"), "-1");
}

TEST(InterpAlu, Unary) {
  EXPECT_EQ(un("neg", "i32", "-2147483648"), "-2147483648");
  EXPECT_EQ(un("neg", "i8", "5"), "-5");
  EXPECT_EQ(un("neg", "u8", "1"), "255");
  EXPECT_EQ(un("neg", "bool", "true"), "0");
  EXPECT_EQ(un("neg", "bool", "false"), "1");
  EXPECT_EQ(un("neg", "f64", "0.0"), "-0.0");
  EXPECT_EQ(un("recip", "f64", "4"), "0.25");
  EXPECT_EQ(un("recip", "f32", "0.0"), "inf");
  EXPECT_EQ(un("sqrt", "f64", "2"), "1.4142135623730951");
  EXPECT_EQ(un("sqrt", "f32", "-1"), "nan");
  EXPECT_EQ(un("exp2", "f64", "10"), "1024.0");
  EXPECT_EQ(un("log2", "f64", "1024"), "10.0");
  EXPECT_EQ(un("log2", "f32", "0.0"), "-inf");
  EXPECT_EQ(un("sin", "f64", "0.0"), "0.0");
  EXPECT_EQ(un("trunc", "f64", "-2.7"), "-2.0");
  EXPECT_EQ(un("trunc", "f32", "2.7"), "2.0");
}

TEST(InterpAlu, Casts) {
  // int -> int wraps; -> bool is != 0
  EXPECT_EQ(cast("i32", "i8", "300"), "44");
  EXPECT_EQ(cast("i32", "u8", "-1"), "255");
  EXPECT_EQ(cast("i8", "u16", "-1"), "65535");
  EXPECT_EQ(cast("u8", "i64", "255"), "255");
  EXPECT_EQ(cast("i64", "u32", "-1"), "4294967295");
  EXPECT_EQ(cast("u64", "i64", "18446744073709551615"), "-1");
  EXPECT_EQ(cast("i32", "bool", "256"), "1");
  EXPECT_EQ(cast("i32", "bool", "0"), "0");
  EXPECT_EQ(cast("bool", "i32", "true"), "1");
  EXPECT_EQ(cast("f64", "bool", "nan"), "1");
  EXPECT_EQ(cast("f64", "bool", "-0.0"), "0");
  // float -> int truncates and saturates, NaN -> 0
  EXPECT_EQ(cast("f64", "i32", "-2.9"), "-2");
  EXPECT_EQ(cast("f64", "i32", "1e10"), "2147483647");
  EXPECT_EQ(cast("f64", "i32", "-1e10"), "-2147483648");
  EXPECT_EQ(cast("f64", "i32", "nan"), "0");
  EXPECT_EQ(cast("f32", "u8", "-5"), "0");
  EXPECT_EQ(cast("f32", "u8", "255.9"), "255");
  EXPECT_EQ(cast("f32", "u8", "256"), "255");
  EXPECT_EQ(cast("f64", "i64", "9.3e18"), "9223372036854775807");
  EXPECT_EQ(cast("f64", "i64", "-9223372036854775808"), "-9223372036854775808");
  EXPECT_EQ(cast("f64", "u64", "1.8446744073709552e19"), "18446744073709551615");
  EXPECT_EQ(cast("f64", "u64", "-inf"), "0");
  EXPECT_EQ(cast("f64", "i8", "inf"), "127");
  EXPECT_EQ(cast("f32", "i16", "-0.5"), "0");
  // int -> float rounds to nearest (even)
  EXPECT_EQ(cast("i32", "f32", "16777217"), "16777216.0");
  EXPECT_EQ(cast("i64", "f64", "9007199254740993"), "9007199254740992.0");
  EXPECT_EQ(cast("u64", "f32", "18446744073709551615"), "1.8446744e+19");
  EXPECT_EQ(cast("i8", "f64", "-128"), "-128.0");
  // float <-> float
  EXPECT_EQ(cast("f64", "f32", "0.1"), "0.1");
  EXPECT_EQ(cast("f32", "f64", "0.1"), "0.10000000149011612");
  EXPECT_EQ(cast("f64", "f32", "1e300"), "inf");
}

TEST(InterpAlu, WhereAndLiteralOperands) {
  RunResult r = runUir(
      "%x = const 5 dtype=i16\n"
      "%c = cmplt %x 10\n"
      "%y = where %c %x -1\n"
      "%z = add %y 1000\n"
      "%o = buffer 2 dtype=i16 slot=0\n"
      "%p = shrink %o 0 shape=[]\n"
      "%s = store %p %z\n"
      "%o1 = after %o %s\n"
      "%q = shrink %o1 1 shape=[]\n"
      "%t = store %q -7\n"
      "%o2 = after %o1 %t\n");
  EXPECT_EQ(okSlot(r), "[1005 -7]");
}

// ---- the lesson's programs ------------------------------------------------

TEST(InterpLesson, StoreMakesAVersion) {
  RunResult r = runUir(
      "%b  = buffer 4 dtype=i32 slot=0 data=[10 20 30 40]\n"
      "%e  = shrink %b 1 shape=[]\n"
      "%s  = store %e 99\n"
      "%b1 = after %b %s\n");
  EXPECT_EQ(okSlot(r), "[10 99 30 40]");
}

TEST(InterpLesson, Swap) {
  RunResult r = runUir(
      "%b  = buffer 4 dtype=i32 slot=0 data=[1 2 3 4]\n"
      "%e0 = shrink %b 0 shape=[]\n"
      "%e1 = shrink %b 1 shape=[]\n"
      "%x  = load %e0\n"
      "%y  = load %e1\n"
      "%s0 = store %e0 %y\n"
      "%b1 = after %b %s0\n"
      "%f1 = shrink %b1 1 shape=[]\n"
      "%s1 = store %f1 %x\n"
      "%b2 = after %b1 %s1\n");
  EXPECT_EQ(okSlot(r), "[2 1 3 4]");
}

TEST(InterpLesson, RunningTotal) {
  RunResult r = runUir(
      "%b  = buffer 3 dtype=i32 slot=0 data=[1 2 3]\n"
      "%e0 = shrink %b 0 shape=[]\n"
      "%e1 = shrink %b 1 shape=[]\n"
      "%x0 = load %e0\n"
      "%x1 = load %e1\n"
      "%t1 = add %x0 %x1\n"
      "%s1 = store %e1 %t1\n"
      "%b1 = after %b %s1\n"
      "%f1 = shrink %b1 1 shape=[]\n"
      "%f2 = shrink %b1 2 shape=[]\n"
      "%y1 = load %f1\n"
      "%y2 = load %f2\n"
      "%t2 = add %y1 %y2\n"
      "%s2 = store %f2 %t2\n"
      "%b2 = after %b1 %s2\n");
  EXPECT_EQ(okSlot(r), "[1 3 6]");
}

TEST(InterpLesson, OldVersionLoadWrittenAfterTheStoreStillReadsTheOldValue) {
  // The load of %e (old %b) comes after the store in the text: it must run
  // before it (an order edge), under both priorities.
  RunResult r = runUir(
      "%b  = buffer 2 dtype=i32 slot=0 data=[5 6]\n"
      "%o  = buffer 1 dtype=i32 slot=1\n"
      "%e  = shrink %b 0 shape=[]\n"
      "%s  = store %e 9\n"
      "%b1 = after %b %s\n"
      "%x  = load %e\n"
      "%q  = shrink %o 0 shape=[]\n"
      "%t  = store %q %x\n"
      "%o1 = after %o %t\n");
  EXPECT_EQ(okSlot(r, 0), "[9 6]");
  EXPECT_EQ(okSlot(r, 1), "[5]");
}

TEST(InterpLesson, CopyElement) {
  RunResult r = runUir(
      "%b  = buffer 2 dtype=i32 slot=0 data=[5 6]\n"
      "%e  = shrink %b 0 shape=[]\n"
      "%x  = load %e\n"
      "%f  = shrink %b 1 shape=[]\n"
      "%s  = store %f %x\n"
      "%b1 = after %b %s\n");
  EXPECT_EQ(okSlot(r), "[5 5]");
}

// ---- loops ----------------------------------------------------------------

const char *kRunningSum =
    "%b  = buffer 4 dtype=i32 slot=0 data=[1 2 3 4]\n"
    "%n  = const 3 dtype=i64\n"
    "%i  = range %n\n"
    "  %bc = carry %b\n"
    "  %p  = shrink %bc %i shape=[]\n"
    "  %x  = load %p\n"
    "  %j  = add %i 1\n"
    "  %q  = shrink %bc %j shape=[]\n"
    "  %y  = load %q\n"
    "  %z  = add %x %y\n"
    "  %s  = store %q %z\n"
    "  %bn = after %bc %s\n"
    "%e  = end %i %bn\n"
    "%b1 = after %b %e\n";

TEST(InterpLoop, SerialRunningSum) { EXPECT_EQ(okSlot(runUir(kRunningSum)), "[1 3 6 10]"); }

TEST(InterpLoop, ParallelDouble) {
  RunResult r = runUir(
      "%a  = buffer 4 dtype=f32 slot=0 data=[1 2 3 4]\n"
      "%i  = range 4 parallel\n"
      "  %p  = shrink %a %i shape=[]\n"
      "  %x  = load %p\n"
      "  %y  = mul %x 2\n"
      "  %s  = store %p %y\n"
      "%e  = end %i %s\n"
      "%a1 = after %a %e\n");
  EXPECT_EQ(okSlot(r), "[2.0 4.0 6.0 8.0]");
}

TEST(InterpLoop, NestedLoops) {
  // b[4*i + j] = 10*i + j over a 3x4 grid, with a serial outer loop.
  RunResult r = runUir(
      "%b = buffer 12 dtype=i64 slot=0\n"
      "%i = range 3\n"
      "  %bc = carry %b\n"
      "  %k = mul %i 4\n"
      "  %t = mul %i 10\n"
      "  %j = range 4 parallel\n"
      "    %o = add %k %j\n"
      "    %p = shrink %bc %o shape=[]\n"
      "    %v = add %t %j\n"
      "    %s = store %p %v\n"
      "  %e2 = end %j %s\n"
      "  %bn = after %bc %e2\n"
      "%e = end %i %bn\n"
      "%b1 = after %b %e\n");
  EXPECT_EQ(okSlot(r), "[0 1 2 3 10 11 12 13 20 21 22 23]");
}

TEST(InterpLoop, Reduce) {
  RunResult r = runUir(
      "%a  = buffer 4 dtype=i32 slot=0 data=[1 2 3 4]\n"
      "%o  = buffer 1 dtype=i32 slot=1\n"
      "%i  = range 4 parallel\n"
      "  %p  = shrink %a %i shape=[]\n"
      "  %x  = load %p\n"
      "%e  = end %i\n"
      "%t  = reduce add %e %x\n"
      "%q  = shrink %o 0 shape=[]\n"
      "%s  = store %q %t\n"
      "%o1 = after %o %s\n");
  EXPECT_EQ(okSlot(r, 1), "[10]");
}

// Reduces over `range %n` with %n read from slot 0, results into slot 1:
// add, mul, max, min, and, or, xor over i32, and max/min/add over f32.
std::string reduceProgram() {
  std::string t =
      "%c  = buffer 1 dtype=i64 slot=0 data=[4]\n"
      "%a  = buffer 4 dtype=i32 slot=2 data=[3 -5 12 6]\n"
      "%fa = buffer 4 dtype=f32 slot=3 data=[0.5 -2 8 1]\n"
      "%cp = shrink %c 0 shape=[]\n"
      "%m  = load %cp\n"
      "%n  = and %m 3\n"
      "%o  = buffer 7 dtype=i32 slot=1\n"
      "%fo = buffer 3 dtype=f32 slot=4\n"
      "%i  = range %n parallel\n"
      "  %p  = shrink %a %i shape=[]\n"
      "  %x  = load %p\n"
      "  %fp = shrink %fa %i shape=[]\n"
      "  %y  = load %fp\n"
      "%e  = end %i\n";
  const char *ops[] = {"add", "mul", "max", "min", "and", "or", "xor"};
  std::string prev = "%o";
  for (int k = 0; k < 7; ++k) {
    std::string K = std::to_string(k);
    t += "%r" + K + " = reduce " + ops[k] + " %e %x\n%q" + K + " = shrink " + prev + " " + K + " shape=[]\n%s" + K +
         " = store %q" + K + " %r" + K + "\n%o" + K + " = after " + prev + " %s" + K + "\n";
    prev = "%o" + K;
  }
  const char *fops[] = {"max", "min", "add"};
  prev = "%fo";
  for (int k = 0; k < 3; ++k) {
    std::string K = std::to_string(k);
    t += "%fr" + K + " = reduce " + fops[k] + " %e %y\n%fq" + K + " = shrink " + prev + " " + K + " shape=[]\n%fs" + K +
         " = store %fq" + K + " %fr" + K + "\n%fo" + K + " = after " + prev + " %fs" + K + "\n";
    prev = "%fo" + K;
  }
  return t;
}

TEST(InterpLoop, ReduceAllOps) {
  // Slot 0 holds 4, so %n = 4 & 3 = 0: zero iterations give the identities.
  RunResult r = runUir(reduceProgram());
  EXPECT_EQ(okSlot(r, 1), "[0 1 -2147483648 2147483647 -1 0 0]");
  EXPECT_EQ(okSlot(r, 4), "[-inf inf 0.0]");
  RunOptions o;
  o.slotData[0] = {*parseLiteral("3")};
  RunResult r3 = runUir(reduceProgram(), o);  // three iterations
  // 3 + -5 + 12 = 10; 3 * -5 * 12 = -180; max 12; min -5; and/or/xor bitwise
  EXPECT_EQ(okSlot(r3, 1), "[10 -180 12 -5 " + std::to_string(3 & -5 & 12) + " " + std::to_string(3 | -5 | 12) + " " +
                               std::to_string(3 ^ -5 ^ 12) + "]");
  EXPECT_EQ(okSlot(r3, 4), "[8.0 -2.0 6.5]");
}

TEST(InterpLoop, ReduceInsideAnOuterLoopRestartsEachTime) {
  // b[i] = sum over j < 4 of i*j, for i < 3: the accumulator starts from
  // the identity on every entry into the inner loop.
  RunResult r = runUir(
      "%b = buffer 3 dtype=i64 slot=0\n"
      "%i = range 3\n"
      "  %bc = carry %b\n"
      "  %j = range 4 parallel\n"
      "    %v = mul %i %j\n"
      "  %e2 = end %j\n"
      "  %t = reduce add %e2 %v\n"
      "  %p = shrink %bc %i shape=[]\n"
      "  %s = store %p %t\n"
      "  %bn = after %bc %s\n"
      "%e = end %i %bn\n"
      "%b1 = after %b %e\n");
  EXPECT_EQ(okSlot(r), "[0 6 12]");
}

TEST(InterpLoop, UnsignedAndNarrowCounts) {
  // A u8 count of 200 and an i8 index cast to wider types.
  RunResult r = runUir(
      "%n = const 200 dtype=u8\n"
      "%o = buffer 1 dtype=u64 slot=0\n"
      "%i = range %n parallel\n"
      "  %w = cast %i dtype=u64\n"
      "%e = end %i\n"
      "%t = reduce add %e %w\n"
      "%q = shrink %o 0 shape=[]\n"
      "%s = store %q %t\n"
      "%o1 = after %o %s\n");
  EXPECT_EQ(okSlot(r), "[19900]");
}

TEST(InterpLoop, ZeroIterationsLeaveTheBufferAlone) {
  RunResult r = runUir(
      "%c  = buffer 1 dtype=i64 slot=1 data=[0]\n"
      "%cp = shrink %c 0 shape=[]\n"
      "%n  = load %cp\n"
      "%b  = buffer 2 dtype=i32 slot=0 data=[7 8]\n"
      "%i  = range %n\n"
      "  %bc = carry %b\n"
      "  %p  = shrink %bc 0 shape=[]\n"
      "  %s  = store %p 1\n"
      "  %bn = after %bc %s\n"
      "%e  = end %i %bn\n"
      "%b1 = after %b %e\n");
  EXPECT_EQ(okSlot(r), "[7 8]");
}

// ---- dynamic sizes, checked_shrink, slots -----------------------------------

const char *kDynamic =
    "%c  = buffer 1 dtype=i64 slot=0 data=[5]\n"
    "%cp = shrink %c 0 shape=[]\n"
    "%n  = load %cp\n"
    "%b  = buffer %n dtype=i64 slot=1\n"
    "%i  = range %n parallel\n"
    "  %p  = shrink %b %i shape=[]\n"
    "  %v  = mul %i %i\n"
    "  %s  = store %p %v\n"
    "%e  = end %i %s\n"
    "%b1 = after %b %e\n";

TEST(InterpDynamic, BufferSizedByALoadedValue) {
  EXPECT_EQ(okSlot(runUir(kDynamic), 1), "[0 1 4 9 16]");
  RunOptions o;
  o.slotData[0] = {*parseLiteral("2")};
  EXPECT_EQ(okSlot(runUir(kDynamic, o), 1), "[0 1]");
  o.slotData[0] = {*parseLiteral("0")};
  EXPECT_EQ(okSlot(runUir(kDynamic, o), 1), "[]");
}

TEST(InterpDynamic, NegativeAndHugeSizesTrap) {
  RunOptions o;
  o.slotData[0] = {*parseLiteral("-3")};
  RunResult r = runUir(kDynamic, o);
  EXPECT_EQ(r.status, RunResult::Status::Trap);
  EXPECT_NE(r.message.find("negative"), std::string::npos) << r.message;
  EXPECT_EQ(r.loc.line, 4u);
  o.slotData[0] = {*parseLiteral("1000")};
  o.limits.maxElements = 100;
  r = runUir(kDynamic, o);
  EXPECT_EQ(r.status, RunResult::Status::Trap);
  EXPECT_EQ(r.message, "buffer of 1000 elements exceeds the limit of 100 elements (--max-elements)");
  EXPECT_EQ(r.loc.line, 4u);
}

TEST(InterpDynamic, StaticElementLimit) {
  RunOptions o;
  o.limits.maxElements = 10;
  RunResult r = runUir("%a = buffer 6 dtype=u8 slot=0\n%b = buffer 6 dtype=u8 slot=1\n", o);
  EXPECT_EQ(r.status, RunResult::Status::Trap);
  EXPECT_NE(r.message.find("exceeds the limit of 10 elements (--max-elements)"), std::string::npos) << r.message;
  EXPECT_EQ(r.loc.line, 2u);
  o.limits.maxElements = 12;
  EXPECT_EQ(runUir("%a = buffer 6 dtype=u8 slot=0\n%b = buffer 6 dtype=u8 slot=1\n", o).status, RunResult::Status::Ok);
}

const char *kChecked =
    "%b  = buffer 4 dtype=i32 slot=0\n"
    "%n  = buffer 1 dtype=i64 slot=1 data=[2]\n"
    "%np = shrink %n 0 shape=[]\n"
    "%i  = load %np\n"
    "%p  = checked_shrink %b %i shape=[]\n"
    "%s  = store %p 1\n"
    "%b1 = after %b %s\n";

TEST(InterpChecked, InBoundsAndOutOfBounds) {
  EXPECT_EQ(okSlot(runUir(kChecked)), "[0 0 1 0]");
  RunOptions o;
  o.slotData[1] = {*parseLiteral("4")};
  RunResult r = runUir(kChecked, o);
  EXPECT_EQ(r.status, RunResult::Status::Trap);
  EXPECT_EQ(r.message, "index 4 out of bounds for a view of 4 elements");
  EXPECT_EQ(r.loc.line, 5u);
  o.slotData[1] = {*parseLiteral("-1")};
  r = runUir(kChecked, o);
  EXPECT_EQ(r.message, "index -1 out of bounds for a view of 4 elements");
}

TEST(InterpChecked, DynamicallySizedParent) {
  const char *text =
      "%c  = buffer 2 dtype=i64 slot=0 data=[5 3]\n"
      "%cp = shrink %c 0 shape=[]\n"
      "%n  = load %cp\n"
      "%kp = shrink %c 1 shape=[]\n"
      "%k  = load %kp\n"
      "%b  = buffer %n dtype=i32 slot=1\n"
      "%p  = checked_shrink %b %k shape=[]\n"
      "%s  = store %p 1\n"
      "%b1 = after %b %s\n";
  EXPECT_EQ(okSlot(runUir(text), 1), "[0 0 0 1 0]");
  RunOptions o;
  o.slotData[0] = {*parseLiteral("5"), *parseLiteral("5")};
  RunResult r = runUir(text, o);
  EXPECT_EQ(r.status, RunResult::Status::Trap);
  EXPECT_EQ(r.message, "index 5 out of bounds for a view of 5 elements");
  EXPECT_EQ(r.loc.line, 7u);
}

TEST(InterpChecked, WideViewOfAShrink) {
  const char *text =
      "%b  = buffer 8 dtype=i32 slot=0\n"
      "%n  = buffer 1 dtype=i64 slot=1 data=[1]\n"
      "%np = shrink %n 0 shape=[]\n"
      "%i  = load %np\n"
      "%w  = shrink %b 2 shape=[2 3]\n"
      "%v  = checked_shrink %w %i shape=[3]\n"
      "%p  = shrink %v 2 shape=[]\n"
      "%s  = store %p 5\n"
      "%b1 = after %b %s\n";
  EXPECT_EQ(okSlot(runUir(text)), "[0 0 0 0 0 5 0 0]");
  RunOptions o;
  o.slotData[1] = {*parseLiteral("4")};
  RunResult r = runUir(text, o);
  EXPECT_EQ(r.message, "a view of 3 elements at offset 4 is out of bounds for a view of 6 elements");
  EXPECT_EQ(r.loc.line, 6u);
}

TEST(InterpSlots, OverrideAndErrors) {
  RunOptions o;
  o.slotData[0] = {*parseLiteral("5"), *parseLiteral("6"), *parseLiteral("7"), *parseLiteral("8")};
  EXPECT_EQ(okSlot(runUir(kRunningSum, o)), "[5 11 18 26]");
  o.slotData[0] = {*parseLiteral("5"), *parseLiteral("6"), *parseLiteral("7")};
  RunResult r = runUir(kRunningSum, o);
  EXPECT_EQ(r.status, RunResult::Status::UsageError);
  EXPECT_EQ(r.message, "slot 0 has 4 elements, --slot gave 3");
  o.slotData[0] = {*parseLiteral("1"), *parseLiteral("2"), *parseLiteral("3"), *parseLiteral("1.5")};
  r = runUir(kRunningSum, o);
  EXPECT_EQ(r.status, RunResult::Status::UsageError);
  EXPECT_NE(r.message.find("does not fit i32"), std::string::npos) << r.message;
  o.slotData.clear();
  o.slotData[3] = {};
  r = runUir(kRunningSum, o);
  EXPECT_EQ(r.status, RunResult::Status::UsageError);
  EXPECT_NE(r.message.find("slot=3"), std::string::npos) << r.message;
}

TEST(InterpSlots, OutputsInSlotOrderWithTypes) {
  RunResult r = runUir(
      "%b = buffer 2 dtype=bool slot=5 data=[true false]\n"
      "%a = buffer 1 dtype=f64 slot=2 data=[-0.0]\n"
      "%c = buffer 1 dtype=u64 slot=9 data=[18446744073709551615]\n");
  ASSERT_EQ(r.slots.size(), 3u);
  EXPECT_EQ(r.slots[0].slot, 2);
  EXPECT_EQ(r.slots[0].type, DType::F64);
  EXPECT_EQ(okSlot(r, 2), "[-0.0]");
  EXPECT_EQ(okSlot(r, 5), "[1 0]");
  EXPECT_EQ(okSlot(r, 9), "[18446744073709551615]");
}

// ---- limits and trace ---------------------------------------------------

const char *kLongLoop =
    "%b = buffer 1 dtype=i64 slot=0\n"
    "%n = buffer 1 dtype=i64 slot=1 data=[1000000]\n"
    "%np = shrink %n 0 shape=[]\n"
    "%m = load %np\n"
    "%i = range %m\n"
    "  %bc = carry %b\n"
    "  %p = shrink %bc 0 shape=[]\n"
    "  %x = load %p\n"
    "  %y = add %x %i\n"
    "  %s = store %p %y\n"
    "  %bn = after %bc %s\n"
    "%e = end %i %bn\n"
    "%b1 = after %b %e\n";

TEST(InterpLimits, StepLimit) {
  RunOptions o;
  o.limits.maxSteps = 1000;
  RunResult r = runUir(kLongLoop, o);
  EXPECT_EQ(r.status, RunResult::Status::Trap);
  EXPECT_EQ(r.message, "exceeded the step limit of 1000");
  EXPECT_GE(r.loc.line, 5u);
  EXPECT_LE(r.loc.line, 12u);
  o.limits.maxSteps = 0;
  RunResult ok = runUir(kLongLoop, o);
  EXPECT_EQ(okSlot(ok), "[499999500000]");
  // Exactly the step count succeeds; one less traps.
  o.limits.maxSteps = ok.steps;
  EXPECT_EQ(runUir(kLongLoop, o).status, RunResult::Status::Ok);
  o.limits.maxSteps = ok.steps - 1;
  EXPECT_EQ(runUir(kLongLoop, o).status, RunResult::Status::Trap);
}

TEST(InterpLimits, StepLimitInStraightLineCode) {
  RunOptions o;
  o.limits.maxSteps = 2;
  RunResult r = runUir(
      "%x = const 1 dtype=i32\n"
      "%a = add %x 1\n"
      "%b = add %a 1\n"
      "%c = add %b 1\n"
      "%o = buffer 1 dtype=i32 slot=0\n"
      "%p = shrink %o 0 shape=[]\n"
      "%s = store %p %c\n"
      "%o1 = after %o %s\n",
      o);
  EXPECT_EQ(r.status, RunResult::Status::Trap);
  EXPECT_EQ(r.message, "exceeded the step limit of 2");
  EXPECT_EQ(r.loc.line, 4u);  // the third add is the third step
}

TEST(InterpLimits, TimeLimit) {
  RunOptions o;
  o.limits.maxSeconds = 0.01;
  o.slotData[1] = {*parseLiteral("4000000000000")};
  RunResult r = runUir(kLongLoop, o);
  EXPECT_EQ(r.status, RunResult::Status::Trap);
  EXPECT_EQ(r.message, "exceeded the time limit of 0.01 s");
}

TEST(InterpTrace, ShowsStepsAndVersions) {
  std::ostringstream os;
  RunOptions o;
  o.trace = &os;
  RunResult r = runUir(
      "%b  = buffer 4 dtype=i32 slot=0 data=[10 20 30 40]\n"
      "%e  = shrink %b 1 shape=[]\n"
      "%s  = store %e 99\n"
      "%b1 = after %b %s\n",
      o);
  EXPECT_EQ(okSlot(r), "[10 99 30 40]");
  std::string t = os.str();
  EXPECT_NE(t.find("line 3: %s = store %e 99  -> %b[1] = 99, makes version %b1"), std::string::npos) << t;
  EXPECT_NE(t.find("line 4: %b1 = after %b %s"), std::string::npos) << t;
}

TEST(InterpTrace, Loops) {
  std::ostringstream os;
  RunOptions o;
  o.trace = &os;
  EXPECT_EQ(okSlot(runUir(kRunningSum, o)), "[1 3 6 10]");
  std::string t = os.str();
  EXPECT_NE(t.find("line 3: %i = range %n  -> 3 iterations"), std::string::npos) << t;
  EXPECT_NE(t.find("line 3: %i = 2"), std::string::npos) << t;
  EXPECT_NE(t.find("line 11: %s = store %q %z  -> %b[3] = 10, makes version %bn"), std::string::npos) << t;
  EXPECT_NE(t.find("line 13: %e = end %i %bn  -> the loop of %i is done"), std::string::npos) << t;
}

TEST(InterpLoops, TenMillionIterations) {
  // 10^7 iterations of load/add/store (its speed is measured in bench/).
  RunOptions o;
  o.slotData[1] = {*parseLiteral("10000000")};
  Loaded l;
  load(kLongLoop, l);
  ASSERT_TRUE(l.ok) << l.diags;
  ProgramPtr p = compile(l.g, l.f);
  RunResult r = execute(*p, o);
  ASSERT_EQ(r.status, RunResult::Status::Ok) << r.message;
  EXPECT_EQ(okSlot(r), "[49999995000000]");
}

TEST(InterpRobust, UntraceableProgramRunsAlikeAndRefusesATrace) {
  // run() compiles without the tracer's tables when it does not trace: the
  // same results and steps as a traceable program; tracing one anyway is
  // the caller's bug.
  Loaded l;
  load(kRunningSum, l);
  ASSERT_TRUE(l.ok) << l.diags;
  ProgramPtr full = compile(l.g, l.f), lean = compile(l.g, l.f, SchedulePriority::SourceOrder, false);
  RunResult a = execute(*full, RunOptions{}), b = execute(*lean, RunOptions{});
  ASSERT_EQ(b.status, RunResult::Status::Ok) << b.message;
  EXPECT_EQ(okSlot(a), okSlot(b));
  EXPECT_EQ(a.steps, b.steps);
  if (kCheckAborts) return;
  std::ostringstream os;
  RunOptions o;
  o.trace = &os;
  EXPECT_THROW((void)execute(*lean, o), InternalError);
  EXPECT_EQ(okSlot(execute(*full, o)), okSlot(a));
}

TEST(InterpRobust, FactsThatDoNotMatchAreAnInternalError) {
  // Only validated graphs are compiled: other facts are the caller's bug.
  if (kCheckAborts) GTEST_SKIP() << "built with CAIRN_CHECK_ABORTS: a failed check aborts";
  Graph g;
  Diags d;
  ASSERT_TRUE(parseUir("%b = buffer 2 dtype=i32 slot=0\n", g, d));
  try {
    (void)run(g, Facts{});
    FAIL() << "run accepted facts of another graph";
  } catch (const InternalError &e) {
    EXPECT_NE(std::string(e.what()).find("the facts do not match the graph"), std::string::npos) << e.what();
    EXPECT_EQ(e.file(), "exec/compile.cpp");
  }
}

// ---- property: in-place execution matches a model with immutable versions --

// A random straight-line program over one i32 buffer: loads from any
// version (old ones included, even after later stores in the text), ALU
// ops, and stores into the newest version. The model keeps every version
// as its own array; the interpreter writes one storage in place, in either
// schedule. They must agree, which holds only if the scheduler honours the
// oracle's "read old versions before overwriting" edges.
RC_GTEST_PROP(InterpProp, InPlaceMatchesVersionModel, ()) {
  const int n = *rc::gen::inRange(1, 6);
  const auto data = *rc::gen::container<std::vector<int>>(static_cast<size_t>(n), rc::gen::inRange(-50, 50));
  const auto steps = *rc::gen::container<std::vector<int>>(rc::gen::inRange(0, 1 << 24));
  std::vector<std::vector<int32_t>> versions{std::vector<int32_t>(data.begin(), data.end())};
  std::vector<std::string> versionName{"%b"};
  std::vector<int32_t> scalars;
  std::string text = "%b = buffer " + std::to_string(n) + " dtype=i32 slot=0 data=[";
  for (int v : data) text += std::to_string(v) + " ";
  text += "]\n";
  int id = 0;
  for (int st : steps) {
    int kind = st % 3, a = (st >> 2) % 97, b = (st >> 9) % 89, c = (st >> 16) % 83;
    std::string k = std::to_string(id++);
    if (kind == 0 || scalars.empty()) {  // load element b of version a
      size_t v = static_cast<size_t>(a) % versions.size();
      int e = b % n;
      text += "%v" + k + " = shrink " + versionName[v] + " " + std::to_string(e) + " shape=[]\n";
      text += "%x" + std::to_string(scalars.size()) + " = load %v" + k + "\n";
      scalars.push_back(versions[v][static_cast<size_t>(e)]);
    } else if (kind == 1) {  // an ALU op on two scalars
      const char *ops[] = {"add", "sub", "mul", "xor", "max", "min"};
      int op = a % 6;
      size_t x = static_cast<size_t>(b) % scalars.size(), y = static_cast<size_t>(c) % scalars.size();
      int32_t p = scalars[x], q = scalars[y], r = 0;
      auto u = [](int32_t z) { return static_cast<uint32_t>(z); };
      switch (op) {
        case 0: r = static_cast<int32_t>(u(p) + u(q)); break;
        case 1: r = static_cast<int32_t>(u(p) - u(q)); break;
        case 2: r = static_cast<int32_t>(u(p) * u(q)); break;
        case 3: r = p ^ q; break;
        case 4: r = std::max(p, q); break;
        default: r = std::min(p, q); break;
      }
      text += "%x" + std::to_string(scalars.size()) + " = " + ops[op] + " %x" + std::to_string(x) + " %x" +
              std::to_string(y) + "\n";
      scalars.push_back(r);
    } else {  // store scalar a into element b of the newest version
      size_t x = static_cast<size_t>(a) % scalars.size();
      int e = b % n;
      text += "%w" + k + " = shrink " + versionName.back() + " " + std::to_string(e) + " shape=[]\n";
      text += "%s" + k + " = store %w" + k + " %x" + std::to_string(x) + "\n";
      text += "%b" + k + " = after " + versionName.back() + " %s" + k + "\n";
      versions.push_back(versions.back());
      versions.back()[static_cast<size_t>(e)] = scalars[x];
      versionName.push_back("%b" + k);
    }
  }
  Loaded l;
  load(text, l);
  RC_ASSERT(l.ok);
  std::vector<Bits> want;
  for (int32_t v : versions.back()) want.push_back(static_cast<Bits>(static_cast<int64_t>(v)));
  for (auto prio : {SchedulePriority::SourceOrder, SchedulePriority::Latest}) {
    RunOptions o;
    o.priority = prio;
    RunResult r = run(l.g, l.f, o);
    RC_ASSERT(r.status == RunResult::Status::Ok);
    RC_ASSERT(r.slots.size() == 1u);
    RC_ASSERT(r.slots[0].values == want);
  }
}

}  // namespace
}  // namespace cairn
