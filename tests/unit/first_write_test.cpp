// Tests of buffersWrittenFirst (exec/first_write.hpp): the buffers whose
// zero fill the C back end may skip.
//   - Named cases: the pattern it accepts, and one near miss for each of its
//     conditions, each of which it must refuse.
//   - Soundness over a family of programs: every combination of buffer size
//     (literal or a value), fill count (the size, one less, another value),
//     fill offset (the index, reversed, halved, 0), a read in the fill loop
//     before the store (none, the same element, element 0) and size value,
//     as programs that read every element of the buffer afterwards, weighted
//     by position. They run as one batch of emitted C with guard zones,
//     where a written-first buffer starts as poison (CAIRN_RT_POISON_BYTE),
//     not zeros: any buffer the analysis accepts wrongly shows up as a sum
//     the interpreter does not give. The family's clear cases must also be
//     accepted, so that the test cannot pass by accepting nothing.
#include "exec/first_write.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "exec/c_toolchain.hpp"
#include "exec/emit_c.hpp"
#include "exec/interp.hpp"
#include "ir/parser.hpp"
#include "oracle/oracle.hpp"

namespace cairn {
namespace {

struct Loaded {
  Graph g;
  Facts f;
  Schedule s;
  bool ok = false;
};

std::unique_ptr<Loaded> load(const std::string &text) {
  auto p = std::make_unique<Loaded>();
  Diags d;
  p->ok = parseUir(text, p->g, d) && validate(p->g, p->f, d);
  if (p->ok) p->s = schedule(p->g, p->f);
  return p;
}

// The names of the buffers the analysis accepts, in node order.
std::string accepted(const std::string &text) {
  auto p = load(text);
  if (!p->ok) return "(invalid)";
  std::vector<bool> w = exec::buffersWrittenFirst(p->g, p->f);
  std::string s;
  for (uint32_t i = 0; i < p->g.size(); ++i)
    if (w[i]) s += (s.empty() ? "%" : " %") + std::string(p->g.name(NodeId{i}));
  return s;
}

const std::string kHead =
    "%nb = buffer 1 dtype=i64 slot=0 data=[5]\n"
    "%np = shrink %nb 0 shape=[]\n"
    "%n  = load %np\n"
    "%o  = buffer 1 dtype=i64 slot=1\n";
// Reads all of version V (size SIZE) into slot 1.
std::string readAll(const std::string &size, const std::string &v = "%b1") {
  return "%j = range " + size +
         " parallel\n"
         "  %q = shrink " + v + " %j shape=[]\n"
         "  %y = load %q\n"
         "%ej = end %j\n"
         "%t = reduce add %ej %y\n"
         "%qo = shrink %o 0 shape=[]\n"
         "%so = store %qo %t\n"
         "%o1 = after %o %so\n";
}

TEST(FirstWrite, AcceptsAFullFillByTheIndex) {
  EXPECT_EQ(accepted(kHead +
                     "%a = buffer %n dtype=i64\n"
                     "%b = buffer %n dtype=i64\n"
                     "%i = range %n parallel\n"
                     "  %pa = shrink %a %i shape=[]\n"
                     "  %sa = store %pa %i\n"
                     "  %pb = shrink %b %i shape=[]\n"
                     "  %x = mul %i 3\n"
                     "  %sb = store %pb %x\n"
                     "%e = end %i %sa %sb\n"
                     "%a1 = after %a %e\n"
                     "%b1 = after %b %e\n" +
                     readAll("%n")),
            "%a %b");
  EXPECT_EQ(accepted(kHead +
                     "%b = buffer 6 dtype=i64\n"
                     "%i = range 6 parallel\n"
                     "  %p = shrink %b %i shape=[]\n"
                     "  %s = store %p -3\n"
                     "%e = end %i %s\n"
                     "%b1 = after %b %e\n" +
                     readAll("6")),
            "%b");
}

// One near miss per condition of the rule.
TEST(FirstWrite, RefusesEachNearMiss) {
  auto fill = [](const std::string &buffer, const std::string &range, const std::string &body) {
    return kHead + buffer + "\n" + range + "\n" + body + "%b1 = after %b %e\n" + readAll("4");
  };
  const std::string store = "  %p = shrink %b %i shape=[]\n  %s = store %p 7\n%e = end %i %s\n";
  EXPECT_EQ(accepted(fill("%b = buffer 4 dtype=i64", "%i = range 4 parallel", store)), "%b");
  // a slot, data
  EXPECT_EQ(accepted(fill("%b = buffer 4 dtype=i64 slot=2", "%i = range 4 parallel", store)), "");
  EXPECT_EQ(accepted(fill("%b = buffer 4 dtype=i64 data=[1 2 3 4]", "%i = range 4 parallel", store)), "");
  // a count other than the size
  EXPECT_EQ(accepted(fill("%b = buffer 4 dtype=i64", "%i = range 3 parallel", store)), "");
  // a serial fill loop (through a carry)
  EXPECT_EQ(accepted(fill("%b = buffer 4 dtype=i64", "%i = range 4",
                          "  %c = carry %b\n  %p = shrink %c %i shape=[]\n  %s = store %p 7\n  %c1 = after %c %s\n"
                          "%e = end %i %c1\n")),
            "");
  // an offset other than the index
  EXPECT_EQ(accepted(fill("%b = buffer 4 dtype=i64", "%i = range 4 parallel",
                          "  %k = sub 3 %i\n  %p = shrink %b %k shape=[]\n  %s = store %p 7\n%e = end %i %s\n")),
            "");
  // a read of the first version in the fill loop, before the store
  EXPECT_EQ(accepted(fill("%b = buffer 4 dtype=i64", "%i = range 4 parallel",
                          "  %p = shrink %b %i shape=[]\n  %x = load %p\n  %s = store %p %x\n%e = end %i %s\n")),
            "");
  // the store in a loop nested in the fill loop (which may run no times)
  EXPECT_EQ(accepted(fill("%b = buffer 4 dtype=i64", "%i = range 4 parallel",
                          "  %p = shrink %b %i shape=[]\n  %k = range 1 parallel\n    %s = store %p 7\n"
                          "  %ek = end %k %s\n%e = end %i %ek\n")),
            "");
  // a fill loop that is itself in a loop, and a buffer in a loop
  EXPECT_EQ(accepted(kHead +
                     "%b = buffer 4 dtype=i64\n"
                     "%r = range 1\n"
                     "  %c = carry %b\n"
                     "  %i = range 4 parallel\n"
                     "    %p = shrink %c %i shape=[]\n"
                     "    %s = store %p 7\n"
                     "  %e = end %i %s\n"
                     "  %c1 = after %c %e\n"
                     "%er = end %r %c1\n"
                     "%b1 = after %b %er\n" +
                     readAll("4")),
            "");
  // a second fill loop, of the next version: the first one still fills %b
  EXPECT_EQ(accepted(kHead +
                     "%b = buffer 4 dtype=i64\n"
                     "%i = range 4 parallel\n"
                     "  %p = shrink %b %i shape=[]\n"
                     "  %s = store %p 7\n"
                     "%e = end %i %s\n"
                     "%b1 = after %b %e\n"
                     "%i2 = range 4 parallel\n"
                     "  %p2 = shrink %b1 %i2 shape=[]\n"
                     "  %s2 = store %p2 8\n"
                     "%e2 = end %i2 %s2\n"
                     "%b2 = after %b1 %e2\n" +
                     readAll("4", "%b2")),
            "%b");
  // read, never written
  EXPECT_EQ(accepted(kHead + "%b = buffer 4 dtype=i64\n" + readAll("4", "%b")), "");
}

// The family of the header comment: SIZE 0 a literal 4, 1 a value n;
// COUNT 0 the size, 1 one less; OFFSET 0 the index, 1 reversed, 2 the index
// plus one; PRE 0 nothing, 1 a load of the element the lane writes, before
// the store, 2 a load of element 0 before the fill loop (added to the sum).
// Combinations out of bounds or with colliding lanes are not programs: the
// oracle refuses them.
std::string familyProgram(int size, int count, int offset, int pre, int nValue) {
  std::string sz = size == 0 ? "4" : "%n";
  std::string cnt = count == 0 ? sz : (size == 0 ? "3" : "%n1");
  std::string last = count == 0 ? (size == 0 ? "3" : "%n1") : (size == 0 ? "2" : "%n2");
  const char *off[] = {"%i", "%k", "%i1"};
  std::string t = "%nb = buffer 1 dtype=i64 slot=0 data=[" + std::to_string(nValue) +
                  "]\n"
                  "%np = shrink %nb 0 shape=[]\n"
                  "%n0 = load %np\n"
                  "%n  = max %n0 0\n"
                  "%n1 = sub %n 1\n"
                  "%n2 = sub %n 2\n"
                  "%o  = buffer 1 dtype=i64 slot=1\n"
                  "%b  = buffer " + sz + " dtype=i64\n";
  if (pre == 2) t += "%z0 = shrink %b 0 shape=[]\n%z  = load %z0\n";
  t += "%i  = range " + cnt + " parallel\n  %k  = sub " + last + " %i\n  %i1 = add %i 1\n  %p  = shrink %b " +
       off[offset] + " shape=[]\n";
  t += pre == 1 ? "  %x  = load %p\n  %v  = add %x %i\n" : "  %v  = add %i 100\n";
  t += "  %s  = store %p %v\n"
       "%e  = end %i %s\n"
       "%b1 = after %b %e\n"
       "%j  = range " + sz + " parallel\n"
       "  %q  = shrink %b1 %j shape=[]\n"
       "  %y  = load %q\n"
       "  %j1 = add %j 1\n"
       "  %w  = mul %y %j1\n"
       "%ej = end %j\n"
       "%t0 = reduce add %ej %w\n";
  t += pre == 2 ? "%t  = add %t0 %z\n" : "%t  = add %t0 0\n";
  t += "%qo = shrink %o 0 shape=[]\n"
       "%so = store %qo %t\n"
       "%o1 = after %o %so\n";
  return t;
}

TEST(FirstWrite, PoisonNeverShowsInTheFamily) {
  if (!compilerAvailable(compilerFromEnv())) GTEST_SKIP() << "no C compiler (CC)";
  std::vector<std::unique_ptr<Loaded>> progs;
  std::vector<EmitUnit> units;
  std::string expected;
  int accepted = 0, clear = 0, clearAccepted = 0;
  for (int size = 0; size < 2; ++size)
    for (int count = 0; count < 2; ++count)
      for (int offset = 0; offset < 3; ++offset)
        for (int pre = 0; pre < 3; ++pre)
          for (int nValue : {0, 1, 2, 5}) {
            if (size == 0 && nValue != 5) continue;  // the value only matters for a value size
            auto p = load(familyProgram(size, count, offset, pre, nValue));
            if (!p->ok) continue;  // out of bounds: the oracle refuses it
            ASSERT_EQ(p->g.op(NodeId{7}), Op::Buffer);  // %b
            bool w = exec::buffersWrittenFirst(p->g, p->f)[7];
            accepted += w;
            if (count == 0 && offset == 0 && pre == 0) ++clear, clearAccepted += w;
            std::string src = "f" + std::to_string(units.size()) + ".uir";
            RunResult r = run(p->g, p->f);
            ASSERT_EQ(r.status, RunResult::Status::Ok) << src << ": " << r.message;
            expected += "=== program " + std::to_string(units.size()) + "\nslot 0 = [" +
                        bitsText(r.slots[0].values[0], r.slots[0].type) + "]\nslot 1 = [" +
                        bitsText(r.slots[1].values[0], r.slots[1].type) + "]\n=== exit 0\n";
            units.push_back({&p->g, &p->f, &p->s, src});
            progs.push_back(std::move(p));
          }
  EXPECT_EQ(clearAccepted, clear);
  std::printf("%d of %zu programs of the family accepted\n", accepted, units.size());
  EXPECT_GT(clear, 0);
  EXPECT_GE(static_cast<int>(units.size()), 30) << "too few valid programs in the family";
  EmitOptions o;
  o.guardZones = true;
  TempDir dir;
  ASSERT_TRUE(dir.ok()) << dir.error();
  ASSERT_TRUE(writeFileText(dir.file("t.c"), emitCBatch(units, o)));
  std::string error;
  ASSERT_TRUE(compileC(compilerFromEnv(), dir.path(), dir.file("t.c"), dir.file("t"), error)) << error;
  ProcessResult r = runProcess({dir.file("t"), "--all"}, ProcessIO{"/dev/null", dir.file("out"), dir.file("err")}, {}, 600);
  ASSERT_TRUE(r.started && !r.signal && !r.timedOut);
  EXPECT_EQ(readFileText(dir.file("out")), expected) << accepted << " of " << units.size() << " accepted";
}

}  // namespace
}  // namespace cairn
