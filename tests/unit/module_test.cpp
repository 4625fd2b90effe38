// Modules: the reader and printer (ir/module.hpp), the module oracle
// (oracle/module.hpp, module ops in every layer) and the module interpreter
// (exec/module_interp.hpp), on small modules written inline.
#include <gtest/gtest.h>

#include <sstream>

#include "exec/module_interp.hpp"
#include "ir/module.hpp"
#include "ir/parser.hpp"
#include "oracle/module.hpp"

using namespace cairn;

namespace {

struct Loaded {
  Module m;
  ModuleFacts f;
  Diags d;
  bool parsed = false, valid = false;
};

std::unique_ptr<Loaded> load(std::string_view text) {
  auto l = std::make_unique<Loaded>();
  l->parsed = parseModule(text, l->m, l->d);
  if (l->parsed) l->valid = validateModule(l->m, l->f, l->d);
  return l;
}

std::string diagText(const Diags &d) {
  std::string s;
  for (const Diagnostic &x : d.list()) s += std::to_string(x.loc.line) + ": " + x.message + " [" + x.rule + "]\n";
  return s;
}

// Is there an error of `rule` on `line`?
bool has(const Loaded &l, const std::string &rule, uint32_t line) {
  for (const Diagnostic &x : l.d.list())
    if (x.rule == rule && x.loc.line == line) return true;
  return false;
}

ModuleRunResult run(std::string_view text, ModuleRunOptions o = {}, std::string *printed = nullptr) {
  auto l = load(text);
  EXPECT_TRUE(l->valid) << diagText(l->d);
  if (!l->valid) {
    ModuleRunResult r;
    r.status = ModuleRunResult::Status::Error;
    r.message = "invalid";
    return r;
  }
  std::ostringstream os;
  o.out = &os;
  ModuleRunResult r = runModule(l->m, l->f, o);
  if (printed) *printed = os.str();
  return r;
}

const char *kFib = R"(func fib(i32) -> i32
  %n = param 0 dtype=i32
  %small = cmplt %n 2
  %big = neg %small
  %cnt = cast %big dtype=u64
  %acc = buffer 1 dtype=i32
  %p0 = shrink %acc 0 shape=[]
  %s0 = store %p0 %n
  %acc1 = after %acc %s0
  %i = range %cnt  # if n >= 2
    %ac = carry %acc1
    %a = sub %n 1
    %b = sub %n 2
    %fa = call %a fn=fib dtype=i32
    %fb = call %b fn=fib dtype=i32
    %sum = add %fa %fb
    %q = shrink %ac 0 shape=[]
    %s = store %q %sum
    %an = after %ac %s
  %e = end %i %an
  %acc2 = after %acc1 %e
  %p = shrink %acc2 0 shape=[]
  %v = load %p
  %r = ret %v
func main() -> i32
  %x = const 20 dtype=i32
  %y = call %x fn=fib dtype=i32
  %r = ret %y
)";

}  // namespace

// ---- reading and printing ----

TEST(Module, LooksLikeModule) {
  EXPECT_TRUE(looksLikeModule("# c\n\n  func main() -> i32\n"));
  EXPECT_TRUE(looksLikeModule("extern putchar(i32) -> i32\n"));
  EXPECT_FALSE(looksLikeModule("# func\n%a = const 1 dtype=i32\n"));
  EXPECT_FALSE(looksLikeModule("functional = 1\n"));
  EXPECT_FALSE(looksLikeModule(""));
}

TEST(Module, PrintParseIsAFixedPoint) {
  const char *text = R"(# a module
extern "labs" absl(i64) -> i64  # libc
extern "write" sys_write(i32, ro u8[], u64) -> i64
  # after an extern
func add(i32, rw u8[]) -> i32
  %a = param 0 dtype=i32
  %v = vparam 1 dtype=u8
  %c = add %a 1  # sum
  %r = ret %c
func main() -> i32
  # call it
  %x = const 2 dtype=i32
  %n = const 3 dtype=u64
  %i = range %n
    %g = guard true msg="never \"fails\" # \\ \x01"
    %b = buffer 4 dtype=u8
    %y = call %x %b fn=add dtype=i32
    %w = call_write %y 1
    %b1 = after %b %w
  %e = end %i
  %h = alloc 4 cols=[i32 own]
  %f = free %h
  %r = ret %x
  # trailing
)";
  Module m;
  Diags d;
  ASSERT_TRUE(parseModule(text, m, d)) << diagText(d);
  ASSERT_EQ(m.funcs.size(), 4u);
  EXPECT_EQ(m.funcs[0].symbol, "labs");
  EXPECT_EQ(m.funcs[0].name, "absl");
  EXPECT_TRUE(m.funcs[1].external);
  EXPECT_EQ(m.funcs[1].sig.params[1].mode, ParamSig::Mode::Ro);
  EXPECT_EQ(m.funcs[2].sig.params[1].mode, ParamSig::Mode::Rw);
  EXPECT_EQ(m.funcs[2].body.loc(NodeId{0}).line, 6u) << "bodies keep file line numbers";
  EXPECT_EQ(m.funcs[3].body.text(NodeId{3}), "never \"fails\" # \\ \x01");
  std::string printed = printModule(m);
  EXPECT_EQ(printed, text);
  Module back;
  Diags d2;
  ASSERT_TRUE(parseModule(printed, back, d2)) << diagText(d2);
  EXPECT_EQ(printModule(back), printed);
  for (size_t i = 0; i < m.funcs.size(); ++i) {
    EXPECT_TRUE(back.funcs[i].body.sameAs(m.funcs[i].body));
    EXPECT_EQ(back.funcs[i].sig, m.funcs[i].sig);
  }
  ModuleFacts f;
  Diags d3;
  EXPECT_TRUE(validateModule(m, f, d3)) << diagText(d3);
}

TEST(Module, SyntaxErrorsHaveFileLines) {
  auto l = load("# x\nfunc f(i32 -> i32\n  %a = param 0 dtype=i32\nfunc g()\n  %b = bogus 1\n  %c = add %a 1\nextern e()\n  %x = const 1 dtype=i32\n");
  EXPECT_FALSE(l->parsed);
  EXPECT_TRUE(has(*l, "syntax", 2)) << diagText(l->d);
  EXPECT_TRUE(has(*l, "syntax", 5)) << diagText(l->d);
  EXPECT_TRUE(has(*l, "name", 6)) << diagText(l->d);
  EXPECT_TRUE(has(*l, "syntax", 8)) << diagText(l->d);
  auto head = load("%a = const 1 dtype=i32\nfunc main() -> i32\n");
  EXPECT_TRUE(has(*head, "syntax", 1));
}

TEST(Module, HostileInputNeverCrashes) {
  std::string junk = "func f(\nextern \"\nfunc g(rw i32[\nfunc h() ->\n  %a = guard true msg=\"unterminated\n"
                     "  %b = alloc 1 cols=[x]\n  %c = call fn=\n  %d = guard true msg=\"\\q\"\nfunc main() -> i32\n  %r = ret\n";
  for (size_t cut = 0; cut <= junk.size(); ++cut) {
    Module m;
    Diags d;
    if (parseModule(std::string_view(junk).substr(0, cut), m, d)) {
      ModuleFacts f;
      validateModule(m, f, d);
    }
  }
}

// ---- the rules ----

TEST(Module, ModuleOpsAreRefusedInAFlatGraph) {
  Graph g;
  Diags d;
  ASSERT_TRUE(parseUir("%a = const 1 dtype=i32\n%p = print %a\n", g, d));
  Facts f;
  EXPECT_FALSE(validate(g, f, d));
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d.list()[0].rule, "module");
  EXPECT_EQ(d.list()[0].loc.line, 2u);
}

TEST(Module, CallRule) {
  auto l = load(R"(func f(i32, rw i32[]) -> i32
  %a = param 0 dtype=i32
  %r = ret %a
func f() -> i32
  %r = ret 1
func main() -> i32
  %b = buffer 2 dtype=i32
  %x = call 1 %b fn=nope dtype=i32
  %y = call 1 fn=f dtype=i32
  %z = call 1.5 %b fn=f dtype=i32
  %u = call 1 %b fn=f dtype=i32
  %v = call 1 %b fn=f dtype=i64
  %w = call_write %v 1
  %b1 = after %b %w
  %r = ret %u
)");
  ASSERT_TRUE(l->parsed);
  EXPECT_FALSE(l->valid);
  EXPECT_TRUE(has(*l, "call", 4)) << diagText(l->d);   // defined twice
  EXPECT_TRUE(has(*l, "call", 8)) << diagText(l->d);   // no such function
  EXPECT_TRUE(has(*l, "call", 9)) << diagText(l->d);   // arity
  EXPECT_TRUE(has(*l, "call", 10)) << diagText(l->d);  // literal does not fit
  EXPECT_TRUE(has(*l, "call", 11)) << diagText(l->d);  // rw argument without call_write
  EXPECT_TRUE(has(*l, "call", 12)) << diagText(l->d);  // dtype is not the return type
}

TEST(Module, SignatureRule) {
  auto l = load(R"(func f(i32, ro i32[]) -> i32
  %a = param 0 dtype=i64
  %v = vparam 1 dtype=i32
  %k = param 2 dtype=i32
  %p = checked_shrink %v 0 shape=[]
  %s = store %p 1
  %v1 = after %v %s
  %r = ret 1.5
func g() -> i32
  %x = const 1 dtype=i32
)");
  ASSERT_TRUE(l->parsed);
  EXPECT_FALSE(l->valid);
  EXPECT_TRUE(has(*l, "call", 2)) << diagText(l->d);   // param dtype
  EXPECT_TRUE(has(*l, "call", 4)) << diagText(l->d);   // no parameter 2
  EXPECT_TRUE(has(*l, "call", 6)) << diagText(l->d);   // store into ro
  EXPECT_TRUE(has(*l, "call", 8)) << diagText(l->d);   // ret literal does not fit
  EXPECT_TRUE(has(*l, "call", 9)) << diagText(l->d);   // no ret
}

TEST(Module, TextOrderRule) {
  auto l = load(R"(func main() -> i32
  %b = buffer 2 dtype=i32
  %p = shrink %b 0 shape=[]
  %s = store %p 1
  %b1 = after %b %s
  %q = shrink %b 1 shape=[]
  %x = load %q
  %r = ret %x
)");
  ASSERT_TRUE(l->parsed);
  EXPECT_FALSE(l->valid);
  EXPECT_TRUE(has(*l, "text-order", 7)) << diagText(l->d);
}

TEST(Module, StructureOfModuleOps) {
  auto l = load(R"(func main() -> i32
  %u = until true
  %b = buffer 2 dtype=i32 slot=0
  %v = vparam 0 dtype=i32
  %c = checked_add 1.5 2
  %f = const 1.5 dtype=f32
  %g = checked_mul %f %f
  %h = checked_cast %f dtype=f64
  %l = len %f
  %x = const 1 dtype=i32
  %p = print %x
  %pr = print 3
  %r = ret %x
  %r2 = ret %x
)");
  ASSERT_TRUE(l->parsed);
  EXPECT_TRUE(has(*l, "loop", 2)) << diagText(l->d);
  EXPECT_TRUE(has(*l, "slot", 3)) << diagText(l->d);
  EXPECT_TRUE(has(*l, "dtype", 5)) << diagText(l->d);
  EXPECT_TRUE(has(*l, "dtype", 7)) << diagText(l->d);
  EXPECT_TRUE(has(*l, "dtype", 8)) << diagText(l->d);
  EXPECT_TRUE(has(*l, "kind", 9)) << diagText(l->d);
  EXPECT_TRUE(has(*l, "kind", 12)) << diagText(l->d);
  EXPECT_TRUE(has(*l, "kind", 13)) << diagText(l->d);  // ret not last
  EXPECT_TRUE(has(*l, "kind", 14)) << diagText(l->d);  // second ret
}

TEST(Module, OrderAndBoundsOfModuleOps) {
  auto l = load(R"(func f(rw i32[])
  %v = vparam 0 dtype=i32
  %p = shrink %v 0 shape=[]
  %r = ret
func main() -> i32
  %b = buffer 2 dtype=i32
  %c = call %b fn=f
  %w = call_write %c 0
  %w2 = call_write %c 0
  %b1 = after %b %w
  %r = ret 0
)");
  ASSERT_TRUE(l->parsed);
  EXPECT_TRUE(has(*l, "bounds", 3)) << diagText(l->d);
  EXPECT_TRUE(has(*l, "one-store-per-version", 9)) << diagText(l->d);
  auto u = load(R"(func f(rw i32[])
  %v = vparam 0 dtype=i32
  %r = ret
func main() -> i32
  %b = buffer 2 dtype=i32
  %c = call %b fn=f
  %w = call_write %c 0
  %r = ret 0
)");
  EXPECT_TRUE(has(*u, "store-sequenced", 7)) << diagText(u->d);
}

// ---- running ----

TEST(ModuleRun, RecursionFib) {
  ModuleRunResult r = run(kFib);
  EXPECT_EQ(r.status, ModuleRunResult::Status::Ok) << r.message;
  EXPECT_EQ(r.value, 6765);
  EXPECT_EQ(r.leaked, 0u);
  EXPECT_GT(r.steps, 0u);
}

TEST(ModuleRun, CallWritesAnRwView) {
  ModuleRunResult r = run(R"(func fill(rw i32[], i32)
  %v = vparam 0 dtype=i32
  %x = param 1 dtype=i32
  %n = len %v
  %i = range %n
    %vc = carry %v
    %p = checked_shrink %vc %i shape=[]
    %ii = cast %i dtype=i32
    %y = add %x %ii
    %s = store %p %y
    %vn = after %vc %s
  %e = end %i %vn
  %v2 = after %v %e
  %r = ret
func main() -> i32
  %b = buffer 4 dtype=i32
  %pa = part %b 1 4
  %c = call %pa 10 fn=fill
  %w = call_write %c 0
  %b1 = after %b %w
  %p = shrink %b1 3 shape=[]
  %v = load %p
  %q = shrink %b1 0 shape=[]
  %z = load %q
  %t = add %v %z
  %r = ret %t
)");
  EXPECT_EQ(r.status, ModuleRunResult::Status::Ok) << r.message;
  EXPECT_EQ(r.value, 12);  // b = [0 10 11 12]
}

TEST(ModuleRun, WhileViaUntilAndIfViaRange) {
  ModuleRunResult r = run(R"(func main() -> i32
  %acc = buffer 1 dtype=i32
  %max = const 18446744073709551615 dtype=u64
  %i = range %max
    %ac = carry %acc
    %p = shrink %ac 0 shape=[]
    %x = load %p
    %y = add %x 1
    %s = store %p %y
    %an = after %ac %s
    %done = cmpeq %y 10
    %u = until %done
  %e = end %i %an
  %a2 = after %acc %e
  %q = shrink %a2 0 shape=[]
  %v = load %q
  %big = cmplt 5 %v
  %k = cast %big dtype=u64
  %j = range %k
    %a3 = carry %a2
    %q3 = shrink %a3 0 shape=[]
    %s3 = store %q3 100
    %a4 = after %a3 %s3
  %e2 = end %j %a4
  %a5 = after %a2 %e2
  %q5 = shrink %a5 0 shape=[]
  %w = load %q5
  %t = add %v %w
  %r = ret %t
)");
  EXPECT_EQ(r.status, ModuleRunResult::Status::Ok) << r.message;
  EXPECT_EQ(r.value, 110);
}

TEST(ModuleRun, ReduceAndBufferInLoop) {
  ModuleRunResult r = run(R"(func main() -> i32
  %i = range 5
    %b = buffer 3 dtype=i32
    %p = shrink %b 1 shape=[]
    %ii = cast %i dtype=i32
    %s = store %p %ii
    %b1 = after %b %s
    %q = shrink %b1 1 shape=[]
    %x = load %q
  %e = end %i
  %t = reduce add %e %x
  %r = ret %t
)",
                          ModuleRunOptions{{10, 0, 0}, 100, nullptr});
  EXPECT_EQ(r.status, ModuleRunResult::Status::Ok) << r.message;
  EXPECT_EQ(r.value, 10) << "buffers are released every iteration: 3 live elements at most";
}

TEST(ModuleRun, HeapDeepFree) {
  const char *text = R"(func main() -> i32
  %parent = alloc 2 cols=[i32 own]
  %child = alloc 3 cols=[i64 own]
  %grand = alloc 1 cols=[u8]
  %co = deref %child 1 dtype=u64
  %cp = checked_shrink %co 2 shape=[]
  %cs = store %cp %grand
  %co1 = after %co %cs
  %own = deref %parent 1 dtype=u64
  %p = checked_shrink %own 0 shape=[]
  %s = store %p %child
  %own1 = after %own %s
  %vals = deref %parent 0 dtype=i32
  %q = checked_shrink %vals 1 shape=[]
  %s2 = store %q 42
  %vals1 = after %vals %s2
  %q2 = checked_shrink %vals1 1 shape=[]
  %x = load %q2
  %l = len %vals1
  %l32 = cast %l dtype=i32
  %t = add %x %l32
  %empty = deref 0 0 dtype=i32
  %el = len %empty
  %f = free %parent
  %f0 = free 0
  %r = ret %t
)";
  ModuleRunResult r = run(text);
  EXPECT_EQ(r.status, ModuleRunResult::Status::Ok) << r.message;
  EXPECT_EQ(r.value, 44);
  EXPECT_EQ(r.leaked, 0u);
  std::string leaky(text);
  leaky.replace(leaky.find("  %f = free %parent\n"), 20, "");
  EXPECT_EQ(run(leaky).leaked, 3u);
  std::string twice(text);
  twice.replace(twice.find("  %f0 = free 0\n"), 15, "  %f0 = free %child\n");
  ModuleRunResult d = run(twice);
  EXPECT_EQ(d.status, ModuleRunResult::Status::Error);
  EXPECT_NE(d.message.find("double free"), std::string::npos) << d.message;
}

TEST(ModuleRun, Print) {
  std::string out;
  ModuleRunResult r = run(R"(func main() -> i32
  %b = buffer 3 dtype=u8 data=[104 105 10]
  %x = const -42 dtype=i32
  %f = const 1.5 dtype=f64
  %t = const true dtype=bool
  %p1 = print %x
  %p2 = print %b
  %p3 = print %f
  %p4 = print %t
  %r = ret 0
)",
                          {}, &out);
  EXPECT_EQ(r.status, ModuleRunResult::Status::Ok) << r.message;
  EXPECT_EQ(out, "-42hi\n1.5true");
}

namespace {
struct TrapCase {
  const char *body;  // lines of main before `%r = ret 0`
  const char *message;
  uint32_t line;  // file line of the trap
};
}  // namespace

TEST(ModuleRun, Traps) {
  const TrapCase cases[] = {
      {"  %z = const 0 dtype=i32\n  %q = idiv 7 %z\n", "division by zero", 3},
      {"  %z = const 0 dtype=i32\n  %q = checked_mod 7 %z\n", "division by zero", 3},
      {"  %m = const -2147483648 dtype=i32\n  %q = checked_div %m -1\n", "arithmetic overflow", 3},
      {"  %m = const 2147483647 dtype=i32\n  %q = checked_add %m 1\n", "arithmetic overflow", 3},
      {"  %m = const 0 dtype=u8\n  %q = checked_sub %m 1\n", "arithmetic overflow", 3},
      {"  %m = const 300 dtype=i32\n  %q = checked_cast %m dtype=u8\n", "value does not fit u8", 3},
      {"  %m = const -0.5 dtype=f64\n  %q = checked_cast %m dtype=u8\n  %m2 = const 255.9 dtype=f32\n"
       "  %q2 = checked_cast %m2 dtype=u8\n  %m3 = const nan dtype=f32\n  %q3 = checked_cast %m3 dtype=i64\n",
       "value does not fit i64", 7},
      {"  %b = buffer 4 dtype=i32\n  %k = const 5 dtype=i64\n  %p = checked_shrink %b %k shape=[]\n",
       "index 5 out of bounds for a view of 4 elements", 4},
      {"  %b = buffer 4 dtype=i32\n  %k = const 9 dtype=u64\n  %p = part %b 2 %k\n", "part [2, 9) out of range for a view of 4 elements",
       4},
      {"  %f = const false dtype=bool\n  %g = guard %f msg=\"index too big\"\n", "index too big", 3},
      {"  %n = const 100 dtype=i64\n  %b = buffer %n dtype=i32\n", "out of memory", 3},
      {"  %n = const 100 dtype=u64\n  %h = alloc %n cols=[i32]\n", "out of memory", 3},
      {"  %n = const -1 dtype=i64\n  %b = buffer %n dtype=i32\n", "buffer size -1 is negative", 3},
  };
  for (const TrapCase &c : cases) {
    std::string text = std::string("func main() -> i32\n") + c.body + "  %r = ret 0\n";
    ModuleRunOptions o;
    o.limits.maxElements = 50;
    ModuleRunResult r = run(text, o);
    EXPECT_EQ(r.status, ModuleRunResult::Status::Trap) << text;
    EXPECT_NE(r.message.find(c.message), std::string::npos) << r.message << "\n" << text;
    EXPECT_EQ(r.where.loc.line, c.line) << text;
    EXPECT_EQ(r.function, "main");
  }
}

TEST(ModuleRun, StepLimitAndCallDepth) {
  ModuleRunOptions o;
  o.limits.maxSteps = 1000;
  ModuleRunResult r = run(R"(func main() -> i32
  %max = const 18446744073709551615 dtype=u64
  %i = range %max
    %x = add %i 1
  %e = end %i
  %r = ret 0
)",
                          o);
  EXPECT_EQ(r.status, ModuleRunResult::Status::Trap);
  EXPECT_EQ(r.message, "exceeded the step limit of 1000");
  ModuleRunOptions d;
  d.maxCallDepth = 100;
  ModuleRunResult s = run(R"(func down(i64) -> i64
  %n = param 0 dtype=i64
  %m = add %n 1
  %x = call %m fn=down dtype=i64
  %r = ret %x
func main() -> i32
  %x = call 0 fn=down dtype=i64
  %r = ret 0
)",
                          d);
  EXPECT_EQ(s.status, ModuleRunResult::Status::Trap);
  EXPECT_EQ(s.message, "stack overflow (call depth 100)");
  EXPECT_EQ(s.function, "down");
  EXPECT_EQ(s.where.loc.line, 4u);
}

TEST(ModuleRun, OriginLocatesTraps) {
  auto l = load("func main() -> i32\n  %z = const 0 dtype=i32\n  %q = idiv 7 %z\n  %r = ret 0\n");
  ASSERT_TRUE(l->valid);
  l->m.files = {"a.cairn"};
  l->m.funcs[0].origin = {Origin{0, {1, 1}}, Origin{0, {9, 5}}, Origin{0, {9, 7}}};
  ModuleRunResult r = runModule(l->m, l->f, {});
  EXPECT_EQ(r.status, ModuleRunResult::Status::Trap);
  EXPECT_EQ(r.where.loc.line, 9u);
  EXPECT_EQ(r.where.loc.col, 5u);
}

TEST(ModuleRun, ExternsThroughLibffi) {
  ModuleRunResult r = run(R"(extern labs(i64) -> i64
extern "abs" iabs(i32) -> i32
extern strlen(ro u8[]) -> u64
func main() -> i32
  %x = call -40 fn=labs dtype=i64
  %y = call -2 fn=iabs dtype=i32
  %s = buffer 4 dtype=u8 data=[104 105 0 0]
  %n = call %s fn=strlen dtype=u64
  %x32 = cast %x dtype=i32
  %n32 = cast %n dtype=i32
  %t = add %x32 %y
  %u = add %t %n32
  %r = ret %u
)");
  EXPECT_EQ(r.status, ModuleRunResult::Status::Ok) << r.message;
  EXPECT_EQ(r.value, 44);
  auto l = load("extern cairn_no_such_symbol_xyz(i32)\nfunc main() -> i32\n  %r = ret 0\n");
  ASSERT_TRUE(l->valid);
  ModuleRunResult m = runModule(l->m, l->f, {});
  EXPECT_EQ(m.status, ModuleRunResult::Status::Error);
  EXPECT_EQ(m.message, "extern symbol `cairn_no_such_symbol_xyz` not found");
}

TEST(ModuleRun, MainMustExist) {
  auto l = load("func f() -> i32\n  %r = ret 0\n");
  ASSERT_TRUE(l->valid);
  EXPECT_EQ(runModule(l->m, l->f, {}).status, ModuleRunResult::Status::Error);
}
