// The module C back end's unit (exec/emit_module_c.hpp): the prototypes,
// the trap-site table, the tables of alloc columns and buffer data, the
// functions (exec/emit_module_c.cpp), the entry, main, batches, and the
// public entry points; and the text of a strip-mined loop.
#include <algorithm>
#include <cstring>
#include <vector>

#include "exec/emit_c.hpp"
#include "exec/emit_c_impl.hpp"
#include "exec/emit_module_c.hpp"
#include "exec/emit_module_c_impl.hpp"

namespace cairn {

using cemit::cString;
using cemit::cType;

namespace memit {

std::string fnName(const std::string &prefix, size_t k) { return prefix + "_f" + std::to_string(k); }

// Whether function k calls itself. Such a function is declared inline: at
// -O2 gcc inlines a recursive function into itself only within the larger
// limits it gives inline functions, and the depth parameter puts fib's body
// past the smaller ones (bench fib(32), whole runs, with its locals still C
// arrays: 8.5 ms plain, 3.3 ms inline; hand C 2.9 ms).
static bool callsItself(const Module &m, size_t k) {
  const Graph &g = m.funcs[k].body;
  for (uint32_t i = 0; i < g.size(); ++i)
    if (g.op(NodeId{i}) == Op::Call && m.find(g.text(NodeId{i})) == static_cast<int>(k)) return true;
  return false;
}

// A generous estimate of the bytes of C stack that main's calls can take
// (PREFIX_mod's `stack`, read by cairn_m_run): the largest sum, over a chain
// of calls from main, of each function's frame, taken as 8 KiB of frame
// arrays (the most a frame holds: more are calloc'ed, kStackFrameBytes),
// 1 KiB, and 64 bytes a node of its body (what a node declares, a value, a
// loop's counters or a deref's cache, takes 8 to 24 bytes, and gcc reuses
// the slots of dead ones). A chain of 150 functions of 16 heap buffers each
// was estimated at 3.4 MB, where gcc's -fstack-usage gave at most 600 bytes
// a frame. An estimate, not a proof: the C compiler lays out the frames, so
// the runtime uses it only when it is a quarter of the stack limit or less.
// 0 (none) when a call can recurse or reaches an extern, whose stack is not
// ours. The call graph is walked without recursion (Kahn's order over what
// main reaches), so that a long chain of functions cannot overflow the
// emitter's own stack.
static uint64_t stackEstimate(const Module &m, size_t mainIdx) {
  constexpr uint64_t kFrameArrays = 8192, kPerNode = 64, kPerFrame = 1024, kNone = 0;
  const size_t nf = m.funcs.size();
  std::vector<std::vector<uint32_t>> callees(nf);
  std::vector<uint8_t> seen(nf, 0);
  std::vector<uint32_t> work{static_cast<uint32_t>(mainIdx)}, indegree(nf, 0), order;
  seen[mainIdx] = 1;
  while (!work.empty()) {
    const uint32_t k = work.back();
    work.pop_back();
    order.push_back(k);
    if (m.funcs[k].external) return kNone;
    const Graph &g = m.funcs[k].body;
    for (uint32_t i = 0; i < g.size(); ++i) {
      if (g.op(NodeId{i}) != Op::Call) continue;
      const int c = m.find(g.text(NodeId{i}));
      if (c < 0) return kNone;
      callees[k].push_back(static_cast<uint32_t>(c));
      ++indegree[c];
      if (!seen[c]) {
        seen[c] = 1;
        work.push_back(static_cast<uint32_t>(c));
      }
    }
  }
  // Kahn's order over the reached functions: callers before callees; a
  // function left out lies on a cycle.
  std::vector<uint32_t> topo{static_cast<uint32_t>(mainIdx)};
  if (indegree[mainIdx] != 0) return kNone;  // main is called: a cycle through main
  for (size_t at = 0; at < topo.size(); ++at)
    for (uint32_t c : callees[topo[at]])
      if (--indegree[c] == 0) topo.push_back(c);
  if (topo.size() != order.size()) return kNone;
  std::vector<uint64_t> need(nf, 0);
  for (size_t at = topo.size(); at-- > 0;) {
    const uint32_t k = topo[at];
    uint64_t deepest = 0;
    for (uint32_t c : callees[k]) deepest = std::max(deepest, need[c]);
    need[k] = kFrameArrays + kPerFrame + kPerNode * m.funcs[k].body.size() + deepest;
  }
  return need[mainIdx];
}

// The C prototype of function k (an extern: its symbol through __asm__,
// integers widened to 64 bits, variadic after its parameters).
std::string prototype(const Module &m, size_t k, const std::string &prefix) {
  const Function &f = m.funcs[k];
  std::string o;
  auto scalarType = [](DType t) { return t == DType::Bool ? std::string("uint8_t") : std::string(cType(t)); };
  if (f.external) {
    o = "extern " + (f.sig.ret == DType::None ? std::string("void") : scalarType(f.sig.ret)) + " " + prefix + "_x" +
        std::to_string(k) + "(";
    for (size_t p = 0; p < f.sig.params.size(); ++p) {
      const ParamSig &ps = f.sig.params[p];
      o += p ? ", " : "";
      // An integer narrower than 64 bits goes widened, sign- or
      // zero-extended by its own type, as libffi passes it: a `labs`
      // declared with an i32 parameter gets -5, not 4294967291.
      if (ps.mode == ParamSig::Mode::Scalar && (ps.type == DType::Bool || (isInteger(ps.type) && dtypeBytes(ps.type) < 8)))
        o += isSigned(ps.type) ? "int64_t" : "uint64_t";
      else if (ps.mode == ParamSig::Mode::Scalar) o += scalarType(ps.type);
      else o += std::string(ps.mode == ParamSig::Mode::Ro ? "const " : "") + cType(ps.type) + " *";
    }
    // `...` after the named parameters: the call passes exactly them, as it
    // would without it (x86-64 and AArch64 pass named arguments alike), and
    // also sets what a variadic callee reads (%al on x86-64: the vector
    // registers used), as libffi does for the interpreter -- so a `printf`
    // declared with fixed parameters prints the same on both engines.
    o += f.sig.params.empty() ? "void" : ", ...";
    return o + ") __asm__(" + cString(f.symbol.empty() ? f.name : f.symbol) + ")";
  }
  o = std::string(callsItself(m, k) ? "static inline " : "static ") + "CAIRN_RT_UNUSED " +
      (f.sig.ret == DType::None ? std::string("void") : std::string(cType(f.sig.ret))) + " " + fnName(prefix, k) +
      "(cairn_rt *rt, uint32_t depth";
  for (size_t p = 0; p < f.sig.params.size(); ++p) {
    const ParamSig &ps = f.sig.params[p];
    o += ", " + std::string(ps.mode == ParamSig::Mode::Scalar ? cType(ps.type) : "cairn_view") + " a" + std::to_string(p);
  }
  return o + ")";
}

std::string stripMinedLoop(const std::string &pad, const std::string &id, const std::string &countType,
                           const std::string &count, const std::string &body) {
  auto indent = [&](const std::string &extra) {
    std::string t;
    for (size_t p = 0, e; p < body.size(); p = e + 1) {
      e = body.find('\n', p);
      t += extra + body.substr(p, e - p + 1);
    }
    return t;
  };
  const std::string ix = "v" + id, k = "k" + id, ct = countType, b = std::to_string(kStripBlock);
  // ix <= l: ix + b <= count, so the blocks never overflow the count's type.
  return pad + "{\n" + pad + "  " + ct + " " + ix + " = 0;\n" +              //
         pad + "  if (" + count + " >= " + b + ") {\n" +                    //
         pad + "    const " + ct + " l" + id + " = (" + ct + ")(" + count + " - " + b + ");\n" +
         pad + "    while (" + ix + " <= l" + id + ") {\n" +                  //
         pad + "      for (int " + k + " = 0; " + k + " < " + b + "; ++" + k + ", ++" + ix + ") {\n" + indent("      ") +
         pad + "      }\n" + pad + "    }\n" + pad + "  }\n" +              //
         pad + "  for (; " + ix + " < " + count + "; ++" + ix + ") {\n" + indent("  ") +
         pad + "  }\n" + pad + "}\n";
}

bool carriesRecurrence(const Graph &g, const Facts &f, const exec::CellPlan &cells, NodeId range, NodeId end) {
  constexpr uint32_t kNone = exec::CellPlan::kNone;
  const uint32_t lo = range.v + 1, hi = end.v;
  // The carried cells: made outside the body, stored in it (each with its
  // store, kNone when it has more than one).
  std::vector<uint32_t> store(cells.cells, kNone - 1);  // kNone - 1: not stored
  std::vector<uint8_t> inner(cells.cells, 0);
  for (uint32_t i = lo; i < hi; ++i) {
    const uint32_t c = cells.cell[i];
    if (c == kNone) continue;
    if (g.op(NodeId{i}) == Op::Buffer) inner[c] = 1;
    else if (g.op(NodeId{i}) == Op::Store) store[c] = store[c] == kNone - 1 ? i : kNone;
  }
  auto carried = [&](uint32_t c) { return c != kNone && !inner[c] && store[c] != kNone - 1; };
  // What the carried cells' loads flow into (not through stores: what a
  // store writes is read back only by a load), and each body value's uses.
  std::vector<uint8_t> tainted(hi - lo, 0);
  std::vector<uint32_t> uses(hi - lo, 0);
  auto inBody = [&](Operand o) { return !o.isLit() && o.node().v >= lo && o.node().v < hi; };
  uint32_t nTainted = 0;
  for (uint32_t i = lo; i < hi; ++i) {
    const NodeId n{i};
    bool t = g.op(n) == Op::Load && carried(cells.cell[i]);
    for (Operand o : g.operands(n)) {
      if (!inBody(o)) continue;
      ++uses[o.node().v - lo];
      if (g.op(n) != Op::Store && tainted[o.node().v - lo]) t = true;
    }
    tainted[i - lo] = t;
    nTainted += t;
  }
  // Each carried cell must be a reduction: two tainted nodes (its load and
  // the op), and no others.
  uint32_t reductions = 0;
  for (uint32_t c = 0; c < cells.cells; ++c) {
    if (!carried(c)) continue;
    if (store[c] == kNone) return true;
    const Operand v = g.operands(NodeId{store[c]})[1];
    if (!inBody(v) || uses[v.node().v - lo] != 1) return true;
    const NodeId op = v.node();
    const DType t = f.type[op.v];
    switch (g.op(op)) {
      case Op::Add: case Op::Sub: case Op::Mul: case Op::And: case Op::Or: case Op::Xor: case Op::Max: case Op::Min:
        if (isFloat(t)) return true;
        break;
      default: return true;
    }
    auto ops = g.operands(op);
    auto isLoadOfC = [&](Operand o) { return inBody(o) && g.op(o.node()) == Op::Load && cells.cell[o.node().v] == c; };
    const size_t k = isLoadOfC(ops[0]) ? 0 : g.op(op) != Op::Sub && isLoadOfC(ops[1]) ? 1 : 2;
    if (k == 2 || uses[ops[k].node().v - lo] != 1) return true;
    if (inBody(ops[1 - k]) && tainted[ops[1 - k].node().v - lo]) return true;
    ++reductions;
  }
  return nTainted != 2 * reductions;
}

bool multipliesWide(const Graph &g, const Facts &f, NodeId range, NodeId end) {
  for (uint32_t i = range.v + 1; i < end.v; ++i) {
    switch (g.op(NodeId{i})) {
      case Op::Mul: case Op::Idiv: case Op::Mod: case Op::CheckedMul: case Op::CheckedDiv: case Op::CheckedMod:
        if (f.type[i] == DType::I64 || f.type[i] == DType::U64) return true;
        break;
      default: break;
    }
  }
  return false;
}

bool invariantHandle(const Graph &g, const Facts &f, NodeId deref, NodeId range, NodeId end, NodeId &cell) {
  cell = NodeId::none();
  auto node = [&](NodeId n, size_t k) {
    auto ops = g.operands(n);
    return k < ops.size() && !ops[k].isLit() ? ops[k].node() : NodeId::none();
  };
  if (!range.valid() || !end.valid() || !(g.parent(deref) == range)) return false;
  const NodeId h = node(deref, 0);
  if (!h.valid()) return false;
  if (h.v < range.v) return true;  // defined before the loop
  const NodeId at = node(h, 0), c = at.valid() ? node(at, 0) : NodeId::none();
  if (g.op(h) != Op::Load || !(g.parent(h) == range) || g.op(at) != Op::Shrink || f.elems[at.v] != 1 ||
      !g.operands(at)[1].isLit() || g.literal(g.operands(at)[1].lit()).magnitude != 0 || !c.valid() ||
      g.op(c) != Op::Carry || !(g.parent(c) == range) || f.type[h.v] != DType::U64)
    return false;
  const auto &carries = f.carriesOf(range);
  for (size_t k = 0; k < carries.size(); ++k)
    if (carries[k] == c) {
      if (!(node(end, k + 1) == c)) return false;  // an iteration stores a new version
      cell = node(c, 0);
      return cell.valid();
    }
  return false;
}

}  // namespace memit

namespace {

using memit::fnName;
using memit::prototype;

// The module's C (without the runtime and main): prototypes, tables,
// functions, the entry and PREFIX_mod.
bool emitModuleBody(const Module &m, const ModuleFacts &facts, const ModuleEmitOptions &o, std::string &out,
                    std::string &error) {
  int mainIdx = m.find("main");
  if (std::string why = moduleEntryError(m); !why.empty()) {
    error = why;
    return false;
  }
  if (facts.funcs.size() != m.funcs.size()) {
    error = "the module was not validated";
    return false;
  }
  memit::Sites sites;
  std::string statics, fns, protos;
  for (size_t k = 0; k < m.funcs.size(); ++k) {
    protos += prototype(m, k, o.prefix) + ";\n";
    if (m.funcs[k].external) continue;
    if (!memit::emitFunction(m, k, facts.funcs[k], o, sites, statics, fns, error)) return false;
  }
  std::string &u = out;
  u += "\n/* ---- module: " + o.sourceName + " ---- */\n\n" + protos + "\n";
  u += sites.table(o.prefix + "_sites") + statics + "\n" + fns;
  u += "static int32_t " + o.prefix + "_entry(cairn_rt *rt) {\n  return " + fnName(o.prefix, static_cast<size_t>(mainIdx)) +
       "(rt, 1);\n}\n";
  u += "static CAIRN_RT_UNUSED const cairn_mmod " + o.prefix + "_mod = {" + cString(o.sourceName) + ", " + o.prefix + "_sites, " +
       o.prefix + "_entry, UINT64_C(" + std::to_string(memit::stackEstimate(m, static_cast<size_t>(mainIdx))) + ")};\n";
  return true;
}

}  // namespace

bool isFrameBuffer(const Graph &g, NodeId n) {
  auto ops = g.operands(n);
  if (g.op(n) != Op::Buffer || ops.empty() || !ops[0].isLit()) return false;
  const Literal &l = g.literal(ops[0].lit());
  return l.kind == Literal::Kind::Int && !l.negative && l.magnitude >= 1 && l.magnitude <= 64 &&
         l.magnitude * dtypeBytes(g.dtype(n)) <= 512;
}

std::string moduleEntryError(const Module &m) {
  int k = m.find("main");
  if (k < 0) return "the module has no function `main`";
  const Function &f = m.funcs[static_cast<size_t>(k)];
  if (f.external || !f.sig.params.empty() || f.sig.ret != DType::I32)
    return "`main` must be a function with no parameters that returns i32";
  return "";
}

bool emitModuleC(const Module &m, const ModuleFacts &facts, const ModuleEmitOptions &opts, std::string &out,
                 std::string &error) {
  std::string body;
  if (!emitModuleBody(m, facts, opts, body, error)) return false;
  out += "/* Generated by cairn emit c from " + opts.sourceName + ": a module (exec/emit_module_c.hpp). */\n";
  out += cRuntimeText();
  out += body;
  if (opts.withMain)
    out += "\nint main(int argc, char **argv) {\n  return cairn_m_run(&" + opts.prefix +
           "_mod, argc - 1, argv + 1, stdout, stderr);\n}\n";
  return true;
}

std::string emitModuleCBatch(const std::vector<ModuleEmitUnit> &units, const ModuleEmitOptions &opts) {
  std::string out = "/* Generated by cairn: a batch of " + std::to_string(units.size()) + " modules. */\n";
  out += cRuntimeText();
  std::string table;
  for (size_t k = 0; k < units.size(); ++k) {
    ModuleEmitOptions o = opts;
    o.prefix = "cairn_m" + std::to_string(k);
    o.sourceName = units[k].sourceName;
    o.withMain = false;
    if (units[k].checkAccesses >= 0) o.checkAccesses = units[k].checkAccesses != 0;
    std::string body, error;
    if (!units[k].module || !units[k].facts || !emitModuleBody(*units[k].module, *units[k].facts, o, body, error)) {
      if (error.empty()) error = "no module";
      // A stand-in that reports the problem when run.
      body = "\nstatic int32_t " + o.prefix + "_entry(cairn_rt *rt) {\n  fprintf(rt->err, \"cairn: error: cannot emit this program: %s\\n\", " +
             cString(error) + ");\n  rt->status = CAIRN_USAGE;\n  longjmp(rt->jb, 1);\n}\n" +
             "static const cairn_msite " + o.prefix + "_sites[] = {{\"\", 0, 0, \"\"}};\n" +
             "static const cairn_mmod " + o.prefix + "_mod = {" + cString(o.sourceName) + ", " + o.prefix + "_sites, " + o.prefix +
             "_entry, 0};\n";
    }
    out += body;
    table += "  &" + o.prefix + "_mod,\n";
  }
  out += "\nstatic const cairn_mmod *const cairn_mods[] = {\n" + (table.empty() ? std::string("  NULL,\n") : table) + "};\n";
  out += "int main(int argc, char **argv) {\n  return cairn_m_batch_main(cairn_mods, " + std::to_string(units.size()) +
         "u, argc, argv);\n}\n";
  return out;
}

}  // namespace cairn
