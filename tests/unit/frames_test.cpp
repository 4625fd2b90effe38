// Frames of the module interpreter (exec/machine.hpp, kFrameHeader): light
// frames (registers only: kCallL, kRetL) and heavy ones (views: kCall,
// kRet) stacked in every order, at depths that make the register and view
// files grow many times, with 0 to 4 parameters and without a value; and
// the call depth limit, exact for each kind of call.
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "exec/module_interp.hpp"
#include "exec/program.hpp"
#include "ir/module.hpp"
#include "oracle/module.hpp"

using namespace cairn;

namespace {

// light(n, a, b, c) = n == 0 ? a + b + c : light(n - 1, a + 1, c, b)
//                   = a + n + b + c     (four parameters: the args table)
// pair(n, a)        = n == 0 ? a : pair(n - 1, a + 2) + 1 = a + 3n
// tick(n)           recurses to 0, no value, one parameter
// heavy(v, n)       v[0] += light(0, n, 0, 0) (= n), then heavy(v, n - 1):
//                   v[0] ends n (n + 1) / 2 above where it began; each
//                   level calls a light function on top of a heavy frame
// main calls the one the test names, with N.
const char *kFunctions = R"(func light(u64, u64, u64, u64) -> u64
  %n = param 0 dtype=u64
  %a = param 1 dtype=u64
  %b = param 2 dtype=u64
  %c = param 3 dtype=u64
  %acc = buffer 1 dtype=u64
  %ab = add %a %b
  %abc = add %ab %c
  %p0 = shrink %acc 0 shape=[]
  %s0 = store %p0 %abc
  %acc1 = after %acc %s0
  %nz = cmpne %n 0
  %cnt = cast %nz dtype=u64
  %i = range %cnt
    %ac = carry %acc1
    %m = sub %n 1
    %a2 = add %a 1
    %x = call %m %a2 %c %b fn=light dtype=u64
    %q = shrink %ac 0 shape=[]
    %s = store %q %x
    %an = after %ac %s
  %e = end %i %an
  %acc2 = after %acc1 %e
  %p = shrink %acc2 0 shape=[]
  %v = load %p
  %r = ret %v
func pair(u64, u64) -> u64
  %n = param 0 dtype=u64
  %a = param 1 dtype=u64
  %acc = buffer 1 dtype=u64
  %p0 = shrink %acc 0 shape=[]
  %s0 = store %p0 %a
  %acc1 = after %acc %s0
  %nz = cmpne %n 0
  %cnt = cast %nz dtype=u64
  %i = range %cnt
    %ac = carry %acc1
    %m = sub %n 1
    %a2 = add %a 2
    %x = call %m %a2 fn=pair dtype=u64
    %x1 = add %x 1
    %q = shrink %ac 0 shape=[]
    %s = store %q %x1
    %an = after %ac %s
  %e = end %i %an
  %acc2 = after %acc1 %e
  %p = shrink %acc2 0 shape=[]
  %v = load %p
  %r = ret %v
func tick(u64)
  %n = param 0 dtype=u64
  %nz = cmpne %n 0
  %cnt = cast %nz dtype=u64
  %i = range %cnt
    %m = sub %n 1
    %x = call %m fn=tick
  %e = end %i
  %r = ret
func heavy(rw u64[], u64)
  %v = vparam 0 dtype=u64
  %n = param 1 dtype=u64
  %k = call 0 %n 0 0 fn=light dtype=u64
  %p = checked_shrink %v 0 shape=[]
  %old = load %p
  %new = add %old %k
  %s = store %p %new
  %v1 = after %v %s
  %nz = cmpne %n 0
  %cnt = cast %nz dtype=u64
  %i = range %cnt
    %vc = carry %v1
    %m = sub %n 1
    %c = call %vc %m fn=heavy
    %w = call_write %c 0
    %vn = after %vc %w
  %e = end %i %vn
  %v2 = after %v1 %e
  %r = ret
)";

std::string mainOf(const std::string &sel, uint64_t n) {
  const std::string N = std::to_string(n);
  std::string body;
  if (sel == "light") body = "  %x = call " + N + " 1 2 3 fn=light dtype=u64\n";
  if (sel == "pair") body = "  %x = call " + N + " 5 fn=pair dtype=u64\n";
  if (sel == "tick") body = "  %t = call " + N + " fn=tick\n  %x = const 7 dtype=u64\n";
  if (sel == "heavy")
    body = "  %z = buffer 1 dtype=u64 data=[1000]\n  %c0 = call %z 0 fn=heavy\n  %w0 = call_write %c0 0\n"
           "  %z1 = after %z %w0\n  %b = buffer 1 dtype=u64\n  %c = call %b " + N +
           " fn=heavy\n  %w = call_write %c 0\n  %b1 = after %b %w\n  %p = shrink %b1 0 shape=[]\n"
           "  %y = load %p\n  %pz = shrink %z1 0 shape=[]\n  %y2 = load %pz\n  %x = add %y %y2\n";
  return "func main() -> i32\n" + body + "  %pr = print %x\n  %r = ret 0\n";
}

struct Outcome {
  ModuleRunResult r;
  std::string out;
};

Outcome runSel(const std::string &sel, uint64_t n, uint32_t depth) {
  Module m;
  ModuleFacts f;
  Diags d;
  const std::string text = std::string(kFunctions) + mainOf(sel, n);
  Outcome o;
  if (!parseModule(text, m, d) || !validateModule(m, f, d)) {
    ADD_FAILURE() << "invalid module:\n" << (d.list().empty() ? std::string() : d.list()[0].message);
    return o;
  }
  ModuleRunOptions opts;
  opts.maxCallDepth = depth;
  std::ostringstream os;
  opts.out = &os;
  o.r = runModule(m, f, opts);
  o.out = os.str();
  return o;
}

uint64_t expected(const std::string &sel, uint64_t n) {
  if (sel == "light") return 1 + n + 2 + 3;
  if (sel == "pair") return 5 + 3 * n;
  if (sel == "tick") return 7;
  return 1000 + n * (n + 1) / 2;  // main's other view, read after the calls, holds 1000
}

// The deepest frame each selection reaches, main's being 1.
uint64_t deepest(const std::string &sel, uint64_t n) { return sel == "heavy" ? n + 3 : n + 2; }

}  // namespace

TEST(Frames, EachKindTakesItsFastForm) {
  Module m;
  ModuleFacts f;
  Diags d;
  ASSERT_TRUE(parseModule(std::string(kFunctions) + mainOf("heavy", 1), m, d));
  ASSERT_TRUE(validateModule(m, f, d));
  const std::vector<Program> ps = exec::compileModule(m, f, true);
  auto count = [&](const char *fn, uint32_t op) {
    int k = 0;
    for (const exec::Ins &i : ps[static_cast<size_t>(m.find(fn))].code) k += i.op == op;
    return k;
  };
  for (const char *light : {"light", "pair", "tick"}) {
    EXPECT_GE(count(light, exec::kRetL), 1) << light;
    EXPECT_EQ(count(light, exec::kRet), 0) << light;
    EXPECT_EQ(count(light, exec::kCall), 0) << light;
  }
  EXPECT_EQ(count("heavy", exec::kCallL), 1);  // light, from a heavy frame
  EXPECT_EQ(count("heavy", exec::kCall), 1);   // itself
  EXPECT_EQ(count("heavy", exec::kRetL), 0);
}

TEST(Frames, DeepRecursionOfEveryKindGivesItsValue) {
  for (const char *sel : {"light", "pair", "tick", "heavy"})
    for (uint64_t n : {0, 1, 2, 3, 7, 64, 65, 500, 4000}) {
      Outcome o = runSel(sel, n, 10000);
      ASSERT_EQ(o.r.status, ModuleRunResult::Status::Ok) << sel << " " << n << ": " << o.r.message;
      EXPECT_EQ(o.out, std::to_string(expected(sel, n))) << sel << " " << n;
      EXPECT_EQ(o.r.value, 0);
    }
}

TEST(Frames, TheDepthLimitIsExactForEveryKindOfCall) {
  for (const char *sel : {"light", "pair", "tick", "heavy"})
    for (uint32_t limit : {3u, 4u, 17u, 300u}) {
      // The deepest run that fits, then one frame more.
      const uint64_t n = limit - (deepest(sel, 0) - 0);
      Outcome ok = runSel(sel, n, limit);
      EXPECT_EQ(ok.r.status, ModuleRunResult::Status::Ok) << sel << " " << limit << ": " << ok.r.message;
      EXPECT_EQ(ok.out, std::to_string(expected(sel, n))) << sel << " " << limit;
      Outcome over = runSel(sel, n + 1, limit);
      EXPECT_EQ(over.r.status, ModuleRunResult::Status::Trap) << sel << " " << limit;
      EXPECT_EQ(over.r.message, "stack overflow (call depth " + std::to_string(limit) + ")") << sel;
      EXPECT_EQ(over.r.function, sel) << limit;  // the call that went over is in sel
    }
}
