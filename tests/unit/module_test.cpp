// Modules: the reader and printer (ir/module.hpp), the module oracle
// (oracle/module.hpp, module ops in every layer) and the module interpreter
// (exec/module_interp.hpp), on small modules written inline: the APIs (the
// printer's fixed point, run options and results, origins). Programs with
// their expected errors, output, exit status or trap are golden files in
// tests/golden/module/.
#include <gtest/gtest.h>

#include <sstream>

#include "exec/module_interp.hpp"
#include "exec/program.hpp"
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

// ---- running ----

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

TEST(ModuleRun, ExternSymbolNotFound) {
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

TEST(ModuleRun, AFusedDerefInALoopSeesEveryRelease) {
  // A deref fused with its access keeps its view in the frame while the
  // handle and Machine::derefEpoch are unchanged. Freeing the object
  // inside the loop must make the next iteration's deref trap (released),
  // and freeing another object each iteration must not disturb the
  // stores (the cache is taken again, the values are right).
  const std::string head = R"(func main() -> i32
  %var = buffer 1 dtype=u64
  %c = const 4 dtype=u64
  %buf = alloc %c cols=[u8]
  %at3 = shrink %var 0 shape=[]
  %st3 = store %at3 %buf
  %v2 = after %var %st3
  %n = const 3 dtype=u64
  %r = range %n
    %carry = carry %v2
    %at = shrink %carry 0 shape=[]
    %ld = load %at
    %val = cast %r dtype=u8
    %heap = deref %ld 0 dtype=u8
    %at2 = checked_shrink %heap %r shape=[]
    %st = store %at2 %val
    %v4 = after %heap %st
)";
  const std::string tail = R"(  %end = end %r %carry
  %v3 = after %v2 %end
  %at5 = shrink %v3 0 shape=[]
  %ld5 = load %at5
  %heap5 = deref %ld5 0 dtype=u8
  %at6 = checked_shrink %heap5 2 shape=[]
  %x = load %at6
  %xi = cast %x dtype=i32
  %f5 = free %ld5
  %ret = ret %xi
)";
  {  // the loop's store is one fused deref and access
    auto l = load(head + "    %fr = free %ld\n" + tail);
    ASSERT_TRUE(l->valid) << diagText(l->d);
    int fused = 0;
    const std::vector<Program> ps = exec::compileModule(l->m, l->f, true);  // kept: the loop reads its code
    for (const exec::Ins &i : ps[0].code)
      fused += i.op == exec::vidxOpc(exec::kVStoreDrfW, DType::U8) || i.op == exec::vidxOpc(exec::kVStoreDrfUW, DType::U8);
    EXPECT_EQ(fused, 1);
  }
  ModuleRunResult r = run(head + "    %fr = free %ld\n" + tail);
  EXPECT_EQ(r.status, ModuleRunResult::Status::Error);
  EXPECT_NE(r.message.find("released"), std::string::npos) << r.message;
  EXPECT_EQ(r.where.loc.line, 14u);
  ModuleRunResult o = run(head + "    %tmp = alloc 2 cols=[u8]\n    %ft = free %tmp\n" + tail);
  EXPECT_EQ(o.status, ModuleRunResult::Status::Ok) << o.message;
  EXPECT_EQ(o.value, 2);
}

TEST(ModuleRun, DerefOfAReleasedHandleTrapsAfterACachedDeref) {
  // The interpreter remembers recent derefs (Machine::derefView); a free
  // forgets them, so a handle used after its object was released traps
  // even where the same deref succeeded just before, and even when a new
  // object took the released one's place.
  const char *text = R"(func main() -> i32
  %h = alloc 4 cols=[i32 u8]
  %v = deref %h 0 dtype=i32
  %a = checked_shrink %v 2 shape=[]
  %s = store %a 7
  %v1 = after %v %s
  %w = deref %h 0 dtype=i32
  %b = checked_shrink %w 2 shape=[]
  %x = load %b
  %f = free %h
  %g = alloc 4 cols=[i32 u8]
  %y = deref %h 0 dtype=i32
  %c = checked_shrink %y 2 shape=[]
  %z = load %c
  %f2 = free %g
  %r = ret %x
)";
  ModuleRunResult r = run(text);
  EXPECT_EQ(r.status, ModuleRunResult::Status::Error);
  EXPECT_NE(r.message.find("released"), std::string::npos) << r.message;
  EXPECT_EQ(r.where.loc.line, 12u);
  // Without the stale deref the run is fine: the cached derefs read the
  // stored value.
  std::string ok(text);
  ok.replace(ok.find("  %y = deref"), ok.find("  %f2 = free") - ok.find("  %y = deref"), "");
  ModuleRunResult o = run(ok);
  EXPECT_EQ(o.status, ModuleRunResult::Status::Ok) << o.message;
  EXPECT_EQ(o.value, 7);
}
