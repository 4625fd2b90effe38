// The shape of the loops the module C back end writes (exec/emit_module_c.cpp
// stripMine): a simple loop (straight-line body that neither traps nor
// calls, a count that is a value) is strip-mined into blocks of 16
// iterations and a rest; any other loop stays one `for`. Each program is
// lowered from CAIRN, emitted, compiled and run, and must print what the
// module interpreter prints, for counts around the block size (0, 1, 15,
// 16, 17, 31, 32, 33, ...), with a trap inside a loop at the same place.
#include <gtest/gtest.h>

#include <sstream>

#include "exec/c_toolchain.hpp"
#include "exec/emit_module_c.hpp"
#include "exec/module_interp.hpp"
#include "lower/lower.hpp"
#include "oracle/module.hpp"

using namespace cairn;

namespace {

struct Emitted {
  Module m;
  ModuleFacts f;
  std::string c, error;
  bool ok = false;
};

std::unique_ptr<Emitted> emit(const std::string &src) {
  auto e = std::make_unique<Emitted>();
  Diags d;
  if (!lowerCairn("shape.cairn", src, e->m, d)) {
    e->error = "lowering failed";
    for (const Diagnostic &x : d.list()) e->error += "\n" + std::to_string(x.loc.line) + ": " + x.message;
    return e;
  }
  if (!validateModule(e->m, e->f, d)) {
    e->error = "the module is invalid";
    return e;
  }
  ModuleEmitOptions o;
  o.sourceName = "shape.cairn";
  e->ok = emitModuleC(e->m, e->f, o, e->c, e->error);
  return e;
}

struct Ran {
  std::string out, err;
  int status = -1;
};

bool compileAndRun(const std::string &source, Ran &ran, std::string &error) {
  TempDir dir;
  if (!dir.ok()) return error = dir.error(), false;
  if (!writeFileText(dir.file("t.c"), source)) return error = "cannot write t.c", false;
  if (!compileC(compilerFromEnv(), dir.path(), dir.file("t.c"), dir.file("t"), error)) return false;
  ProcessResult r = runProcess({dir.file("t")}, ProcessIO{"/dev/null", dir.file("out"), dir.file("err")}, {}, 120);
  if (!r.started || r.timedOut) return error = "the program did not run to its end", false;
  ran.out = readFileText(dir.file("out"));
  ran.err = readFileText(dir.file("err"));
  ran.status = r.exitCode;
  return true;
}

std::string interpret(const Emitted &e, ModuleRunResult &r) {
  std::ostringstream os;
  ModuleRunOptions o;
  o.out = &os;
  r = runModule(e.m, e.f, o);
  return os.str();
}

size_t count(const std::string &s, const std::string &what) {
  size_t n = 0;
  for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}

// One emitted program run both ways: by the module interpreter (`want`,
// `ir`) and compiled (`ran`). False after reporting why the C did not run.
struct Both {
  ModuleRunResult ir;
  std::string want;
  Ran ran;
};
bool runBoth(const Emitted &e, Both &b) {
  b.want = interpret(e, b.ir);
  std::string error;
  if (compileAndRun(e.c, b.ran, error)) return true;
  ADD_FAILURE() << error;
  return false;
}

// The C traps (exit 101) with the interpreter's message, at `place`.
void expectSameTrap(const Both &b, const std::string &place) {
  EXPECT_EQ(b.ir.status, RunResult::Status::Trap);
  EXPECT_EQ(b.ran.status, 101);
  EXPECT_NE(b.ran.err.find(place), std::string::npos) << b.ran.err;
  EXPECT_NE(b.ran.err.find(b.ir.message), std::string::npos) << b.ran.err << " vs " << b.ir.message;
}

#define NEED_CC() \
  if (!compilerAvailable(compilerFromEnv())) GTEST_SKIP() << "no C compiler (CC)"

// Sums and fills of every length 0..70, a reduction into a u32 cell, an
// element-wise store, a float sum (its order must not change) and a
// range that does not start at 0.
const char *const kSimple = R"(
fn sum(n:usize, xs:ro<u8>[n]) -> u32 {
  let mut s:u32 = 0;
  for x in xs { s = add_wrap(s, u32(x)); }
  return s;
}
fn fill(n:usize, xs:rw<u8>[n], k:u8) {
  for i in 0..len(xs) { xs[i] = add_wrap(k, 3); }
}
fn fsum(n:usize, xs:ro<f64>[n]) -> f64 {
  let mut s:f64 = 0.0;
  for x in xs { s = s + x; }
  return s;
}
fn span(lo:usize, hi:usize) -> usize {
  let mut t:usize = 0;
  for i in lo..hi { t = add_wrap(t, i); }
  return t;
}
fn main() -> i32 {
  let mut total:u64 = 0;
  for n in 0..70 {
    let mut v = Buf[u8](n);
    fill(len(v), v, u8(n % 200));
    let s = sum(len(v), v);
    total = add_wrap(mul_wrap(total, 31), u64(s));
    let mut w = Buf[f64](n);
    for i in 0..n { w[i] = 0.1 * f64(i + 1); }
    println(fsum(len(w), w));
    println(span(n, n * 2 + 1));
  }
  println(total);
  return 0;
}
)";

TEST(EmitModuleCShape, SimpleLoopsAreStripMinedAndRunAsTheInterpreter) {
  auto e = emit(kSimple);
  ASSERT_TRUE(e->ok) << e->error;
  // sum, fill (its index proven: exec/proven.hpp, a version of the view), span: simple
  // loops whose only carried value is an integer reduction; fsum's float sum
  // is a recurrence (no vectorizer reorders it); main's loops trap or call.
  EXPECT_EQ(count(e->c, " < 16; ++k"), 3u) << e->c;
  EXPECT_EQ(count(e->c, "cairn_m_csub(rt"), 1u) << e->c;  // w[i] in main
  NEED_CC();
  Both b;
  ASSERT_TRUE(runBoth(*e, b));
  ASSERT_EQ(b.ir.status, RunResult::Status::Ok) << b.ir.message;
  EXPECT_EQ(b.ran.status, 0) << b.ran.err;
  EXPECT_EQ(b.ran.out, b.want);
  EXPECT_EQ(count(b.ran.out, "\n"), 141u);
}

// A loop whose body may trap is one plain `for`: the trap comes at the
// same iteration with the interpreter's message and place.
const char *const kTrap = R"(
fn acc(n:usize, xs:ro<u64>[n]) -> u64 {
  let mut s:u64 = 0;
  for x in xs { s += x; }
  return s;
}
fn main() -> i32 {
  let mut v = Buf[u64](40);
  for i in 0..40 { v[i] = 1; }
  v[33] = 18446744073709551610;
  println(acc(len(v), v));
  return 0;
}
)";

TEST(EmitModuleCShape, TrappingLoopsStayPlainAndTrapAlike) {
  auto e = emit(kTrap);
  ASSERT_TRUE(e->ok) << e->error;
  EXPECT_EQ(count(e->c, " < 16; ++k"), 0u) << e->c;
  NEED_CC();
  Both b;
  ASSERT_TRUE(runBoth(*e, b));
  expectSameTrap(b, "shape.cairn:4:");
  EXPECT_NE(b.ran.err.find("arithmetic overflow"), std::string::npos) << b.ran.err;
}

// An index counted by another view's length keeps its check: it traps
// at the same element as in the interpreter.
const char *const kOther = R"(
fn copy(n:usize, xs:ro<u8>[n], m:usize, ys:rw<u8>[m]) {
  for i in 0..len(xs) { ys[i] = xs[i]; }
}
fn main() -> i32 {
  let mut a = Buf[u8](30);
  let mut b = Buf[u8](20);
  copy(len(a), a, len(b), b);
  return 0;
}
)";

TEST(EmitModuleCShape, AnIndexOfAnotherViewKeepsItsCheck) {
  auto e = emit(kOther);
  ASSERT_TRUE(e->ok) << e->error;
  EXPECT_EQ(count(e->c, " < 16; ++k"), 0u) << e->c;
  NEED_CC();
  Both b;
  ASSERT_TRUE(runBoth(*e, b));
  expectSameTrap(b, "shape.cairn:3:");
}

// Which carried scalars keep a simple loop from being strip-mined
// (exec/emit_module_c_unit.cpp carriesRecurrence), each run at counts
// around the block size against the interpreter. Strip-mined: reductions
// (add, sub with the sum first, xor, max, two at once, one whose operand is
// a local computed in the body). Plain: a rotation (`a = b; b = t`), a sum
// the body also reads elsewhere (a running total stored in place), a
// sub with the sum second, a sum fed by another carried value, and a value
// stored twice.
const char *const kCarried = R"(
fn red(n:usize, xs:ro<u32>[n]) -> u32 {
  let mut s:u32 = 0;
  let mut d:u32 = 1000;
  let mut x:u32 = 0;
  let mut m:u32 = 0;
  for i in 0..len(xs) {
    let y = mul_wrap(xs[i], 3);
    s = add_wrap(s, y);
    d = sub_wrap(d, xs[i]);
    x = x ^ xs[i];
    m = max(m, xs[i]);
  }
  return add_wrap(add_wrap(s, d), add_wrap(x, m));
}
fn rot(n:usize) -> u64 {
  let mut a:u64 = 0;
  let mut b:u64 = 1;
  for i in 0..n { let t = add_wrap(a, b); a = b; b = t; }
  return b;
}
fn running(n:usize, xs:rw<u32>[n]) -> u32 {
  let mut s:u32 = 0;
  for i in 0..len(xs) { s = add_wrap(s, xs[i]); xs[i] = s; }
  return s;
}
fn back(n:usize, xs:ro<u32>[n]) -> u32 {
  let mut s:u32 = 7;
  for i in 0..len(xs) { s = sub_wrap(xs[i], s); }
  return s;
}
fn fed(n:usize) -> u64 {
  let mut s:u64 = 0;
  let mut k:u64 = 1;
  for i in 0..n { s = add_wrap(s, k); k = mul_wrap(k, 3); }
  return add_wrap(s, k);
}
fn twice(n:usize, xs:ro<u32>[n]) -> u32 {
  let mut s:u32 = 0;
  for i in 0..len(xs) { s = add_wrap(s, xs[i]); s = add_wrap(s, 1); }
  return s;
}
fn main() -> i32 {
  for n in 0..40 {
    let mut v = Buf[u32](n);
    let mut w = Buf[u32](n);
    for i in 0..n { v[i] = u32(i * 2654435761 % 4294967291); }
    println(red(len(v), v));
    println(rot(n));
    for i in 0..n { w[i] = v[i]; }
    println(running(len(w), w));
    let mut t:u32 = 0;
    for i in 0..n { t = t ^ w[i]; }
    println(t);
    println(back(len(v), v));
    println(fed(n));
    println(twice(len(v), v));
  }
  return 0;
}
)";

// The C text of function `name` (its definition, up to the closing brace).
std::string fnText(const Emitted &e, const std::string &name, int index) {
  const std::string head = "_f" + std::to_string(index) + "(cairn_rt *rt";
  size_t p = e.c.find(head + ", uint32_t depth");
  for (; p != std::string::npos; p = e.c.find(head, p + 1)) {
    size_t brace = e.c.find('\n', p);
    if (brace != std::string::npos && e.c[brace - 1] == '{') return e.c.substr(p, e.c.find("\n}\n", p) - p);
  }
  ADD_FAILURE() << "no definition of " << name;
  return "";
}

TEST(EmitModuleCShape, CarriedScalarsOtherThanReductionsKeepALoopPlain) {
  auto e = emit(kCarried);
  ASSERT_TRUE(e->ok) << e->error;
  const std::pair<const char *, size_t> want[] = {{"red", 1}, {"rot", 0}, {"running", 0}, {"back", 0}, {"fed", 0}, {"twice", 0}};
  for (size_t k = 0; k < std::size(want); ++k)
    EXPECT_EQ(count(fnText(*e, want[k].first, static_cast<int>(k) + 1), " < 16; ++k"), want[k].second) << want[k].first;
  NEED_CC();
  Both b;
  ASSERT_TRUE(runBoth(*e, b));
  ASSERT_EQ(b.ir.status, RunResult::Status::Ok) << b.ir.message;
  EXPECT_EQ(b.ran.status, 0) << b.ran.err;
  EXPECT_EQ(b.ran.out, b.want);
  EXPECT_EQ(count(b.ran.out, "\n"), 280u);
}

}  // namespace
