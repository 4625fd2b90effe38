// The shape of the loops the module C back end writes (exec/emit_module_c.cpp
// stripMine): a simple loop (straight-line body that neither traps nor
// calls, a count that is a value) is strip-mined into blocks of 64
// iterations and a rest, unless a mutable scalar carries a value other than
// an integer reduction across iterations or the body multiplies or divides
// 64-bit integers; any other loop stays one `for` (a `while` with no loop
// inside unrolled by 4). Each program is lowered
// from CAIRN, emitted, compiled and run, and must print what the module
// interpreter prints, for counts around the block size (0, 1, ..., 63, 64,
// 65, ...), with a trap inside a loop at the same place.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "exec/c_toolchain.hpp"
#include "exec/emit_module_c.hpp"
#include "exec/module_interp.hpp"
#include "ir/module.hpp"
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
  EXPECT_EQ(count(e->c, " < 64; ++k"), 3u) << e->c;
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
  // acc's sum may overflow; main's fill of v (an alloc of 40, a loop of
  // 40: its index proven) cannot trap and is strip-mined.
  EXPECT_EQ(count(fnText(*e, "acc", 1), " < 64; ++k"), 0u) << e->c;
  EXPECT_EQ(count(e->c, " < 64; ++k"), 1u) << e->c;
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
  EXPECT_EQ(count(e->c, " < 64; ++k"), 0u) << e->c;
  NEED_CC();
  Both b;
  ASSERT_TRUE(runBoth(*e, b));
  expectSameTrap(b, "shape.cairn:3:");
}

// Which carried scalars keep a simple loop from being strip-mined
// (exec/emit_module_c_unit.cpp carriesRecurrence), each run at counts
// around the block size against the interpreter. Strip-mined: reductions
// (add, sub with the sum first, xor, max, two at once, one whose operand is
// a local computed in the body) and a u32 multiply. Plain: a rotation (`a =
// b; b = t`), a sum the body also reads elsewhere (a running total stored
// in place), a sub with the sum second, a sum fed by another carried value,
// a value stored twice, and a u64 multiply (no vector form: multipliesWide).
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
fn wide(n:usize, xs:rw<u64>[n]) {
  for i in 0..len(xs) { xs[i] = mul_wrap(xs[i], 2654435761); }
}
fn narrow(n:usize, xs:rw<u32>[n]) {
  for i in 0..len(xs) { xs[i] = mul_wrap(xs[i], 2654435761); }
}
fn main() -> i32 {
  for n in 0..70 {
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
    let mut u = Buf[u64](n);
    for i in 0..n { u[i] = u64(v[i]) + 1; }
    wide(len(u), u);
    narrow(len(v), v);
    let mut h:u64 = 0;
    for i in 0..n { h = add_wrap(mul_wrap(h, 31), add_wrap(u[i], u64(v[i]))); }
    println(h);
  }
  return 0;
}
)";

TEST(EmitModuleCShape, CarriedScalarsOtherThanReductionsKeepALoopPlain) {
  auto e = emit(kCarried);
  ASSERT_TRUE(e->ok) << e->error;
  const std::pair<const char *, size_t> want[] = {{"red", 1},  {"rot", 0},   {"running", 0}, {"back", 0},
                                                  {"fed", 0},  {"twice", 0}, {"wide", 0},    {"narrow", 1}};
  for (size_t k = 0; k < std::size(want); ++k)
    EXPECT_EQ(count(fnText(*e, want[k].first, static_cast<int>(k) + 1), " < 64; ++k"), want[k].second) << want[k].first;
  NEED_CC();
  Both b;
  ASSERT_TRUE(runBoth(*e, b));
  ASSERT_EQ(b.ir.status, RunResult::Status::Ok) << b.ir.message;
  EXPECT_EQ(b.ran.status, 0) << b.ran.err;
  EXPECT_EQ(b.ran.out, b.want);
  EXPECT_EQ(count(b.ran.out, "\n"), 560u);
}

// A deref of a handle no iteration changes, in a simple loop, is checked
// once before the loop (when it runs at all) and the loop is strip-mined;
// with a call in the body (which may free) the check stays inside.
const char *const kHoist = R"(
fn f(x:u32) -> u32 = add_wrap(x, 1);
fn main() -> i32 {
  let mut m:usize = 0;
  while m < 70 {
    let mut v = Buf[u32](m);
    m += 1;
    for i in 0..len(v) { v[i] = add_wrap(v[i], 7); }
    let mut s:u32 = 0;
    for x in v { s = add_wrap(s, x); }
    let mut t:u32 = 0;
    for x in v { t = add_wrap(t, f(x)); }
    println(add_wrap(s, t));
  }
  return 0;
}
)";

TEST(EmitModuleCShape, InvariantDerefsAreCheckedBeforeTheLoop) {
  auto e = emit(kHoist);
  ASSERT_TRUE(e->ok) << e->error;
  const std::string m = fnText(*e, "main", 0);
  // The fill's two (its handle loaded in the body from v's cell) and the
  // sum's (a handle loaded before the loop) are checked before their loops.
  EXPECT_EQ(count(m, "_0 = cell"), 2u) << m;  // from the cell's variable
  EXPECT_EQ(count(m, "_0 != dc"), 3u) << m;
  EXPECT_EQ(count(m, " < 64; ++k"), 2u) << m;
  // The loop that calls f keeps its check in the body.
  const size_t call = m.find("_f1(rt"), loop = m.rfind("for (", call);
  ASSERT_NE(call, std::string::npos);
  EXPECT_NE(m.substr(loop, call - loop).find(" != dc"), std::string::npos) << m;
  NEED_CC();
  Both b;
  ASSERT_TRUE(runBoth(*e, b));
  ASSERT_EQ(b.ir.status, RunResult::Status::Ok) << b.ir.message;
  EXPECT_EQ(b.ran.status, 0) << b.ran.err;
  EXPECT_EQ(b.ran.out, b.want);
  EXPECT_EQ(count(b.ran.out, "\n"), 70u);
}

// A hand-written module may deref a released handle in such a loop: the
// check before the loop reports it as the interpreter does (exit 70), and
// not at all when the loop runs no iteration.
std::string freedModule(int count) {
  return R"(func main() -> i32
  %var = buffer 1 dtype=u64
  %c = const 4 dtype=u64
  %buf = alloc %c cols=[u8]
  %at3 = shrink %var 0 shape=[]
  %st3 = store %at3 %buf
  %v2 = after %var %st3
  %at4 = shrink %v2 0 shape=[]
  %ld4 = load %at4
  %fr = free %ld4
  %n = const )" + std::to_string(count) + R"( dtype=u64
  %s = buffer 1 dtype=u32
  %r = range %n
    %carry = carry %v2
    %cs = carry %s
    %at = shrink %carry 0 shape=[]
    %ld = load %at
    %heap = deref %ld 0 dtype=u8
    %at2 = checked_shrink %heap %r shape=[]
    %x = load %at2
    %xw = cast %x dtype=u32
    %sa = shrink %cs 0 shape=[]
    %sl = load %sa
    %sum = add %sl %xw
    %sb = shrink %cs 0 shape=[]
    %st = store %sb %sum
    %vs = after %cs %st
  %end = end %r %carry %vs
  %v3 = after %v2 %end
  %s2 = after %s %end
  %sa2 = shrink %s2 0 shape=[]
  %sv = load %sa2
  %pr = print %sv
  %z = const 0 dtype=i32
  %ret = ret %z
)";
}

TEST(EmitModuleCShape, AHoistedDerefOfAReleasedHandleFailsAsTheInterpreter) {
  for (int n : {3, 0}) {
    Emitted e;
    Diags d;
    ASSERT_TRUE(parseModule(freedModule(n), e.m, d) && validateModule(e.m, e.f, d));
    ModuleEmitOptions o;
    o.sourceName = "freed.uir";
    ASSERT_TRUE(emitModuleC(e.m, e.f, o, e.c, e.error)) << e.error;
    EXPECT_EQ(count(e.c, "_0 = cell"), 1u) << e.c;
    NEED_CC();
    Both b;
    ASSERT_TRUE(runBoth(e, b));
    if (n == 0) {
      EXPECT_EQ(b.ir.status, RunResult::Status::Ok);
      EXPECT_EQ(b.ran.status, 0) << b.ran.err;
      EXPECT_EQ(b.ran.out, b.want);
    } else {
      EXPECT_EQ(b.ir.status, RunResult::Status::Error) << b.ir.message;
      EXPECT_TRUE(b.ir.internal);
      EXPECT_EQ(b.ran.status, 70) << b.ran.err;
      EXPECT_NE(b.ran.err.find(b.ir.message), std::string::npos) << b.ran.err << " vs " << b.ir.message;
    }
  }
}

TEST(EmitModuleCShape, SelfRecursiveFunctionsAreInlineAndKeepTheDepthLimit) {
  // fib calls itself: declared `static inline` (gcc inlines it into itself
  // at -O2 then), its locals C variables; even/odd call each other and main calls both: plain
  // `static`. The values agree with the interpreter, and a recursion too
  // deep for the call-depth limit traps at the same place with the same
  // message, inlined or not.
  const char *src = R"(
fn fib(n:u64) -> u64 {
  if n < 2 { return n; }
  return fib(n - 1) + fib(n - 2);
}
fn even(n:u64) -> bool {
  if n == 0 { return true; }
  return odd(n - 1);
}
fn odd(n:u64) -> bool {
  if n == 0 { return false; }
  return even(n - 1);
}
fn down(n:u64) -> u64 {
  if n == 0 { return 0; }
  return add_wrap(down(n - 1), 1);
}
fn main() -> i32 {
  println(fib(0), " ", fib(1), " ", fib(2), " ", fib(25));
  println(even(7), " ", odd(9));
  println(down(9000));
  println(down(20000));
  return 0;
}
)";
  auto e = emit(src);
  ASSERT_TRUE(e->ok) << e->error;
  const std::string mod = e->c.substr(e->c.find("/* ---- module:"));  // past the runtime's own
  // fib and down, each declared and defined so
  EXPECT_EQ(count(mod, "static inline CAIRN_RT_UNUSED uint64_t cairn_f"), 4u) << mod;
  EXPECT_EQ(count(mod, "static inline"), 4u) << mod;
  // fib's `result` local is a C variable, not an array; it has no
  // `returned` flag (its return is an `if`'s body, the rest its `else`).
  const std::string fib = fnText(*e, "fib", 1);  // main is function 0
  EXPECT_EQ(count(fib, "cairn_m_frame"), 0u) << fib;
  EXPECT_EQ(count(fib, "cairn_bool cell"), 0u) << fib;
  EXPECT_EQ(count(fib, "uint64_t cell0 = UINT64_C(0);"), 1u) << fib;
  NEED_CC();
  Both b;
  ASSERT_TRUE(runBoth(*e, b));
  EXPECT_EQ(b.want, "0 1 1 75025\nfalse true\n9000\n");
  EXPECT_EQ(b.ran.out, b.want);
  expectSameTrap(b, "shape.cairn:16:19:");
  EXPECT_NE(b.ir.message.find("stack overflow"), std::string::npos) << b.ir.message;
}


TEST(EmitModuleCShape, InnermostWhileLoopsAreUnrolledAndRunAsTheInterpreter) {
  // A `while` with no loop inside is unrolled by 4 (CAIRN_RT_UNROLL4 before
  // its `for`); one around another loop (the sieve's outer loop, whose
  // inner loop is inside an `if`) and a `for` are not. The sieve's counts
  // for n = 0 .. 60 (trip counts around every multiple of 4) and a scan
  // that traps in its add agree with the interpreter.
  const char *src = R"(
fn sieve(n:usize, composite:rw<u8>[n]) -> u64 {
  let mut count:u64 = 0;
  let mut i:usize = 2;
  while i < n {
    if composite[i] == 0 {
      count += 1;
      let mut j:usize = i * i;
      while j < n { composite[j] = 1; j += i; }
    }
    i += 1;
  }
  return count;
}
fn skip(n:usize, xs:ro<u8>[n], inc:usize) -> u64 {
  let mut j:usize = 1;
  let mut c:u64 = 0;
  while j < n {
    if xs[j] == 7 { c += 1; }
    j += inc;
  }
  return c;
}
fn main() -> i32 {
  let mut t:u64 = 0;
  for n in 0..61 {
    let mut c = Buf[u8](usize(n));
    let k = sieve(len(c), c);
    t = add_wrap(mul_wrap(t, 7), k);
  }
  println(t);
  let mut b = Buf[u8](9);
  println(skip(len(b), b, 4));
  println(skip(len(b), b, 18446744073709551615));
  return 0;
}
)";
  auto e = emit(src);
  ASSERT_TRUE(e->ok) << e->error;
  const std::string sieve = fnText(*e, "sieve", 1), skip = fnText(*e, "skip", 2), main = fnText(*e, "main", 0);
  EXPECT_EQ(count(sieve, "CAIRN_RT_UNROLL4\n"), 1u) << sieve;
  EXPECT_LT(sieve.find("CAIRN_RT_UNROLL4\n"), sieve.rfind("for (")) << sieve;  // the inner loop's
  EXPECT_EQ(count(skip, "CAIRN_RT_UNROLL4\n"), 1u) << skip;
  EXPECT_EQ(count(main, "CAIRN_RT_UNROLL4\n"), 0u) << main;
  NEED_CC();
  Both b;
  ASSERT_TRUE(runBoth(*e, b));
  EXPECT_EQ(b.ran.out, b.want);
  EXPECT_EQ(b.want.substr(b.want.find('\n') + 1), "0\n");
  expectSameTrap(b, "shape.cairn:20:5:");
}

// The code after each of 400 early returns is a region inside the one
// before; its C is indented at most kMaxIndentLevels levels (it was two
// spaces a level: lines of 800 blanks, and text that grew as the square of
// the returns), and runs as the interpreter does for every n.
TEST(ModuleCShape, DeepEarlyExitsKeepTheLinesShort) {
  std::string src = "fn f(n:u64) -> u64 {\n  let mut x: u64 = 1;\n";
  for (int j = 0; j < 400; ++j)
    src += "  x = x + " + std::to_string(j % 9) + ";\n  if n == " + std::to_string(j) + " { return x; }\n";
  src += "  return x * 2;\n}\nfn main() -> i32 {\n  let mut t: u64 = 0;\n  for n in 0..405 { t = add_wrap(mul_wrap(t, 31), f(u64(n))); }\n"
         "  println(t);\n  return 0;\n}\n";
  auto e = emit(src);
  ASSERT_TRUE(e->ok) << e->error;
  size_t longest = 0;
  for (size_t p = 0, q; p < e->c.size(); p = q + 1) {
    q = e->c.find('\n', p);
    if (q == std::string::npos) q = e->c.size();
    longest = std::max(longest, q - p);
  }
  EXPECT_LT(longest, 300u);  // 64 blanks at most, and the longest statement
  NEED_CC();
  Both b;
  ASSERT_TRUE(runBoth(*e, b));
  EXPECT_EQ(b.ran.out, b.want);
  EXPECT_EQ(b.ran.status, 0);
}

// PREFIX_mod's stack estimate (emit_module_c_unit.cpp, stackEstimate): what
// main's calls can take when none can recurse and none reaches an extern, else 0.
uint64_t stackEstimateOf(const Emitted &e) {
  const size_t at = e.c.find("_mod = {");
  const size_t u = e.c.find("UINT64_C(", at);
  if (at == std::string::npos || u == std::string::npos) return ~uint64_t{0};
  return std::stoull(e.c.substr(u + 9));
}

TEST(EmitModuleCShape, OnlyAModuleThatCannotRecurseRunsOnTheCallingThread) {
  const char *chain = R"(
fn c(x:u64) -> u64 { return add_wrap(x, 1); }
fn b(x:u64) -> u64 { return mul_wrap(c(x), 3); }
fn a(x:u64) -> u64 { return add_wrap(b(x), c(x)); }
fn main() -> i32 {
  println(a(5), " ", b(2));
  return 0;
}
)";
  auto e = emit(chain);
  ASSERT_TRUE(e->ok) << e->error;
  const uint64_t estimate = stackEstimateOf(*e);
  EXPECT_GE(estimate, 4 * 9216u);  // main, a, b, c: 8 KiB of arrays and 1 KiB each at least
  EXPECT_LT(estimate, uint64_t{1} << 20);
  // A function one call deeper needs more.
  std::string longer = chain;
  const std::string call = "println(a(5)";
  longer.replace(longer.find(call), call.size(), "println(d(5)");
  auto deeper = emit("fn d(x:u64) -> u64 { return a(x); }\n" + longer);
  ASSERT_TRUE(deeper->ok) << deeper->error;
  EXPECT_GT(stackEstimateOf(*deeper), estimate);
  // Recursion, direct or mutual, and an extern: no estimate.
  for (const char *src : {"fn f(n:u64) -> u64 { if n == 0 { return 0; } return f(n - 1); }\n"
                          "fn main() -> i32 { println(f(3)); return 0; }\n",
                          "fn ev(n:u64) -> bool { if n == 0 { return true; } return od(n - 1); }\n"
                          "fn od(n:u64) -> bool { if n == 0 { return false; } return ev(n - 1); }\n"
                          "fn main() -> i32 { println(ev(4)); return 0; }\n",
                          "extern \"write\" fn sys_write(fd:i32, data:ro<u8>[n], n:usize) -> i64 effects(io);\n"
                          "fn main() -> i32 { unsafe { let w = sys_write(1, \"x\\n\", 2); } return 0; }\n"}) {
    auto r = emit(src);
    ASSERT_TRUE(r->ok) << r->error << "\n" << src;
    EXPECT_EQ(stackEstimateOf(*r), 0u) << src;
  }
  // The estimated module runs without a thread: with pthread_create made to
  // abort, it still prints what the interpreter prints; fib, with none, aborts.
  NEED_CC();
  const std::string noThreads = "#include <pthread.h>\n#include <stdlib.h>\n#define pthread_create(t, a, f, j) (abort(), 1)\n";
  Both b;
  b.want = interpret(*e, b.ir);
  std::string error;
  ASSERT_TRUE(compileAndRun(noThreads + e->c, b.ran, error)) << error;
  EXPECT_EQ(b.want, "24 9\n");
  EXPECT_EQ(b.ran.out, b.want);
  EXPECT_EQ(b.ran.status, 0) << b.ran.err;
  auto fib = emit("fn fib(n:u64) -> u64 { if n < 2 { return n; } return fib(n - 1) + fib(n - 2); }\n"
                  "fn main() -> i32 { println(fib(10)); return 0; }\n");
  ASSERT_TRUE(fib->ok) << fib->error;
  Ran ran;
  ASSERT_TRUE(compileAndRun(noThreads + fib->c, ran, error)) << error;
  EXPECT_NE(ran.status, 0);
  EXPECT_EQ(ran.out, "");
}

}  // namespace
