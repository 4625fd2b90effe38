// Properties of the oracle and the interpreter over random programs:
//   - generated valid programs (tools/progen) are accepted;
//   - the interpreter's result does not depend on which valid order runs:
//     the source-order schedule and the latest-first schedule agree;
//   - printing and re-parsing a generated program gives the same graph;
//   - a valid program broken in one way (a second store into a version, a
//     store with no after, an after naming the wrong version, a load of an
//     old version made to depend on its overwrite, an unmasked loaded index)
//     is rejected, with a diagnostic of the rule that was broken.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <sstream>

#include "exec/interp.hpp"
#include "ir/parser.hpp"
#include "ir/printer.hpp"
#include "oracle/oracle.hpp"
#include "tools/progen.hpp"

using namespace cairn;

namespace {

struct Checked {
  Graph g;
  Facts f;
  Diags d;
  bool ok = false;
};

void check(const std::string &text, Checked &c) {
  c.ok = parseUir(text, c.g, c.d) && validate(c.g, c.f, c.d);
}

std::string diagText(const Diags &d) {
  std::ostringstream os;
  d.print(os, "gen.uir");
  return os.str();
}

GenOptions options() {
  GenOptions o;
  o.buffers = *rc::gen::inRange(1, 5);
  o.steps = *rc::gen::inRange(1, 40);
  o.loops = *rc::gen::arbitrary<bool>();
  return o;
}

}  // namespace

RC_GTEST_PROP(OracleProps, GeneratedProgramsAreValid, ()) {
  auto seed = *rc::gen::arbitrary<uint64_t>();
  auto p = generateValid(seed, options());
  Checked c;
  check(p.text, c);
  RC_ASSERT_FALSE(c.d.truncated());
  if (!c.ok) RC_FAIL("rejected a valid program:\n" + p.text + "\n" + diagText(c.d));
}

RC_GTEST_PROP(OracleProps, ResultDoesNotDependOnTheSchedule, ()) {
  auto seed = *rc::gen::arbitrary<uint64_t>();
  auto p = generateValid(seed, options());
  Checked c;
  check(p.text, c);
  RC_PRE(c.ok);
  RunOptions a, b;
  a.priority = SchedulePriority::SourceOrder;
  b.priority = SchedulePriority::Latest;
  RunResult ra = run(c.g, c.f, a), rb = run(c.g, c.f, b);
  RC_ASSERT(ra.status == rb.status);
  RC_ASSERT(ra.slots.size() == rb.slots.size());
  for (size_t k = 0; k < ra.slots.size(); ++k) {
    RC_ASSERT(ra.slots[k].slot == rb.slots[k].slot);
    if (ra.slots[k].values != rb.slots[k].values) RC_FAIL("schedules disagree on slot " + std::to_string(ra.slots[k].slot) + ":\n" + p.text);
  }
}

RC_GTEST_PROP(OracleProps, PrintParseIsAFixedPoint, ()) {
  auto p = generateValid(*rc::gen::arbitrary<uint64_t>(), options());
  Checked c;
  check(p.text, c);
  RC_PRE(c.ok);
  std::string once = printUir(c.g);
  Graph g2;
  Diags d2;
  RC_ASSERT(parseUir(once, g2, d2));
  RC_ASSERT(g2.sameAs(c.g));
  RC_ASSERT(printUir(g2) == once);
}

RC_GTEST_PROP(OracleProps, BrokenProgramsNameTheRule, ()) {
  auto seed = *rc::gen::arbitrary<uint64_t>();
  auto opts = options();
  auto p = generateValid(seed, opts);
  auto kind = static_cast<Breakage>(*rc::gen::inRange(0, kNumBreakages));
  std::string broken = breakProgram(p.text, kind, seed);
  RC_PRE(broken != p.text);
  Checked c;
  check(broken, c);
  RC_ASSERT_FALSE(c.ok);
  bool named = false;
  for (const auto &dg : c.d.list()) named = named || dg.rule == breakageRule(kind);
  if (!named) RC_FAIL(std::string("expected a diagnostic of rule ") + breakageRule(kind) + ":\n" + broken + "\n" + diagText(c.d));
}
