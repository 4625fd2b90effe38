// The C emitter: walks a Schedule once and writes each node as C.
//
// Mapping (docs/uir.md, "Emitted C"):
//   buffer          an array `bK` (K: the buffer's index in node order); a
//                   static slot buffer is a kernel parameter, the others are
//                   allocated by the runtime (internal static ones when the
//                   kernel starts, dynamic ones when their node runs);
//   version, view   an element offset into its buffer's array (a version is
//                   offset 0): `const int64_t vN = PARENT + OFFSET;`;
//   checked_shrink  the same through cairn_rt_cshrink, which traps;
//   load / store    `bK[OFFSET]` read into a const local / assigned (with
//                   guard zones or checked accesses, OFFSET goes through a
//                   runtime check first: cairn_rt_guard_rd/wr, cairn_rt_access);
//   after, carry,   nothing: every version of a buffer is the one array,
//   end (serial)    written in place, and the schedule orders the accesses;
//   scalar ops      `const T vN = cairn_<op>_<dtype>(...)` (runtime helpers
//                   with the interpreter's exact semantics);
//   range ... end   `for (T vN = 0; vN < COUNT; ++vN) { body }`, T the
//                   count's dtype; values of the body are locals of the
//                   block, which C scoping matches because the scheduler
//                   keeps loops contiguous;
//   reduce          an accumulator declared before the `for`, initialised to
//                   the identity and combined at the end of each iteration,
//                   in the order the interpreter combines them.
//
// Assumes a graph the oracle accepted, with its Facts and a Schedule of it.
// Anything else it notices (an op on a dtype it has no helper for, a value
// used before the schedule computed it) is a bug in cairn: an internal error
// at the place that noticed it (ir/check.hpp), never C that does something
// else.
#include "exec/emit_c.hpp"
#include "exec/emit_c_writer.hpp"

namespace cairn::cemit {

namespace {

// One program: the schedule as one C kernel function.
class Emitter : public CWriter {
 public:
  using CWriter::CWriter;

  void run() {
    const uint32_t n = g_.size();
    prepare();
    std::string body;
    body_ = &body;
    for (NodeId x : s_.order) {
      if (!x.valid() || x.v >= n) fail("the schedule names a node that does not exist");
      node(x);
      done_[x.v] = 1;
    }
    if (depth_ != 1) fail("a loop is not closed in the schedule");
    writeProgram(body);
  }


 private:
  void writeProgram(const std::string &body) {
    const std::string &P = o_.prefix;
    std::string &o = out_;
    o += "\n/* ---- the program: " + P + "_kernel, " + P + "_prog ---- */\n\n";
    writeData();
    // The kernel: static slot buffers are parameters.
    o += "\nstatic void " + P + "_kernel(cairn_rt *restrict rt";
    for (uint32_t bi = 0; bi < bufs_.size(); ++bi)
      if (isParam(bi))
        o += ",\n    " + std::string(cType(bufs_[bi].type)) + " *restrict " + bufName(bi) + " /* slot " +
             std::to_string(g_.slot(bufs_[bi].node)) + ": " + pct(bufs_[bi].node) + " */";
    o += ") {\n  (void)rt;\n";
    for (uint32_t bi = 0; bi < bufs_.size(); ++bi)
      if (!bufs_[bi].dynamic && !isParam(bi))
        o += "  " + std::string(cType(bufs_[bi].type)) + " *restrict " + bufName(bi) + " = (" + cType(bufs_[bi].type) +
             " *)cairn_rt_alloc(rt, " + std::to_string(bi) + "u);" + note(bufs_[bi].node) + "\n";
    o += body;
    o += "}\n\nstatic void " + P + "_entry(cairn_rt *rt) {\n  " + P + "_kernel(rt";
    for (uint32_t bi = 0; bi < bufs_.size(); ++bi)
      if (isParam(bi)) o += ", (" + std::string(cType(bufs_[bi].type)) + " *)rt->bufs[" + std::to_string(bi) + "].p";
    o += ");\n}\n\n";
    writeTables();
  }
};

}  // namespace

void emitProgram(const Graph &g, const Facts &f, const Schedule &s, const EmitOptions &o, std::string &out) {
  Emitter(g, f, s, o, out).run();
}

}  // namespace cairn::cemit
