// The module compiler's access fusions (optimizing only). A checked access
// through a one-element checked_shrink (kVLoadAtC / kVStoreAtC) whose index
// is a u64 value computed by the instruction just before, used by nothing
// else: `xs[i * n + j]` (kCMulAdd_U64) or `xs[i + k]` (kCheckedAdd_U64).
// The two become one kV<Load|Store><CMA|CA>_<T> in the index instruction's
// place, whose node is then the shrink's (a bounds trap is about it).
//
// Steps stay exact: the fused instruction's steps are the index
// instruction's, those of ops between that emit nothing, and the access's,
// contiguous in Program::stepNodes; each trap names its own step by how many
// steps it lies before the access's (Ins::pad, and pad + t for the multiply
// of a multiply-add). An access through the `deref` just before it (a Buf's
// element) takes the deref in the same way (fuseDeref). A second unchecked
// load at the index of the unchecked load just before (`a[i] * b[i]`) joins
// it (fuseLoad2).
#include "exec/compiler.hpp"

namespace cairn::exec {

bool Compiler::fuseAccess(NodeId n, NodeId v, bool load) {
  if (!checkedIndex(v) || p_.code.empty()) return false;
  const Operand io = g_.operands(v)[1];
  if (io.isLit()) return false;
  const NodeId x = io.node();
  Ins &prev = p_.code.back();
  const bool ma = prev.op == kCMulAdd_U64;
  if ((!ma && prev.op != checkedOpc(0, DType::U64)) || !(owner_.back() == x) || uses_[x.v] != 1 || intoCell_[x.v] ||
      p_.regOf[x.v] != prev.d)
    return false;
  // The steps after the index instruction's last, the access's included.
  const uint32_t back = static_cast<uint32_t>(p_.stepNodes.size()) - p_.stepEnd.back() + 1;
  if (back + (ma ? prev.pad : 0) > 255) return false;
  const DType t = f_.type[n.v];
  const uint32_t view = vreg(v, 0);
  if (load) {
    prev.d = p_.regOf[n.v] = newReg();
  } else {
    prev.d = sreg(n, 1, t);
  }
  prev.t = ma ? prev.pad : 0;
  prev.pad = static_cast<uint8_t>(back);
  prev.w = view;  // not a step weight: these do not count steps
  prev.op = static_cast<uint16_t>(vidxOpc((load ? 0 : 1) + (ma ? 0 : 2), t));
  p_.nodeOf.setBack(v);
  joinStep(v);
  owner_.back() = n;  // as the unfused access's (intoCell looks for it)
  return true;
}

// An access through a one-element shrink of the `deref` just emitted (a
// Buf's element, `v[i]`): one kV<Load|Store>Drf(U)_<T> in the deref's
// place, whose node is then the shrink's. It still sets the deref's view
// register (in w: it counts no steps), which versions of it share. The
// deref's own trap (a released object) stays at its step, pad steps back.
bool Compiler::fuseDeref(NodeId n, NodeId v, bool load) {
  if (p_.code.empty() || g_.operands(v)[0].isLit()) return false;
  const NodeId x = g_.operands(v)[0].node();
  Ins &prev = p_.code.back();
  if (prev.op != kDeref || !(owner_.back() == x) || p_.regOf[x.v] != prev.d) return false;
  const uint32_t back = static_cast<uint32_t>(p_.stepNodes.size()) - p_.stepEnd.back() + 1;
  // Its cache: the handle and the epoch it was taken at, in two registers
  // that each frame starts at 0 (startRegs_; no handle is cached at epoch 0).
  const uint32_t hc = p_.nregs;  // newReg's
  if (back > 255 || prev.b > 0xffff || hc + 1 > 0xffff) return false;
  newReg();
  newReg();
  startRegs_.push_back({hc, 0});
  startRegs_.push_back({hc + 1, 0});
  prev.b |= hc << 16;
  const DType t = f_.type[n.v];
  const uint32_t idx = sreg(v, 1, DType::I64);
  const uint32_t val = load ? (p_.regOf[n.v] = newReg()) : sreg(n, 1, t);
  const int which = (load ? 4 : 5) + (checkedIndex(v) ? 0 : 2);
  prev = Ins{static_cast<uint16_t>(vidxOpc(which, t)), prev.t, static_cast<uint8_t>(back), val, prev.a, prev.b, idx, prev.d};
  p_.nodeOf.setBack(v);
  joinStep(v);
  owner_.back() = n;
  return true;
}

// An unchecked load at the same index register as the unchecked load of
// the same dtype just before: one kVLoad2At_<T> in the first's place, with
// both destinations and both views packed as lo | hi << 16. Neither load
// can trap, so the second's step joins the first's stretch, as in
// fuseAccess.
bool Compiler::fuseLoad2(NodeId n, NodeId v) {
  if (p_.code.empty() || checkedIndex(v) || g_.operands(v)[1].isLit()) return false;
  const DType t = f_.type[n.v];
  Ins &prev = p_.code.back();
  const uint32_t view = vreg(v, 0), idx = sreg(v, 1, DType::I64);
  const uint32_t next = p_.nregs;  // newReg's
  if (prev.op != vmemOpc(kVLoadAtW, t) || prev.b != idx || prev.d == idx || prev.d > 0xffff || prev.a > 0xffff ||
      view > 0xffff || next > 0xffff)
    return false;
  const uint32_t d = p_.regOf[n.v] = newReg();
  prev.op = static_cast<uint16_t>(vidxOpc(kVLoad2AtW, t));
  prev.d |= d << 16;
  prev.a |= view << 16;
  joinStep(v);
  owner_.back() = n;
  return true;
}

}  // namespace cairn::exec
