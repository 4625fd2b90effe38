// The values of the module C back end's FnEmitter (exec/emit_module_c_fn.hpp):
// derefs through their per-site caches, checked once before a simple loop
// when no iteration changes the handle; casts and checked casts; checked
// arithmetic, plain when exec/proven.hpp shows it cannot trap; the other
// scalar ops through the runtime's helpers. Each writes the C that
// exec/compile_module.cpp's instruction for the same op does.
#include <cmath>
#include <cstdio>

#include "exec/emit_module_c_fn.hpp"

namespace cairn::memit {

// A deref directly in the body of a counted loop (not an `if`), whose
// handle no iteration changes and which no call or free may release
// (invariantHandle): its check can run once, before the loop.
bool FnEmitter::hoistableDeref(NodeId n, NodeId &cell) {
  const Region &r = regions_.back();
  if (o_.checkAccesses || regions_.size() < 2 || r.ifShape || r.count.empty() || !r.range.valid()) return false;
  return invariantHandle(g_, f_, n, r.range, proofs_.endOf(r.range), cell);
}

void FnEmitter::deref(NodeId n) {
  auto ops = g_.operands(n);
  const std::string h = scalar(ops[0], DType::U64);
  auto call = [&](const std::string &handle) {
    return "cairn_m_deref(rt, " + handle + ", " + std::to_string(g_.literal(ops[1].lit()).magnitude) + "u, " +
           rtDType(g_.dtype(n)) + ")";
  };
  if (o_.checkAccesses) return defineView(n, call(h));
  // A live handle's columns never move, so each deref site remembers
  // the last handle it checked (0 to begin with: the empty view, which
  // is what deref of 0 is). In a loop that costs a compare, not a walk
  // through the heap table that a byte store would force to repeat.
  // Every free and every call (which may free) forgets those a loop could
  // bring back to (caches_; kReset is replaced when the function is done),
  // so a released handle is caught as the interpreter catches it.
  const std::string c = "dc" + std::to_string(n.v);
  cache_ += "  uint64_t " + c + "_h = 0;\n  cairn_view " + c + "_v = {NULL, 0};\n";
  caches_.emplace_back(c + "_h", outerKey_);
  auto check = [&](const std::string &handle) {
    return "if (" + handle + " != " + c + "_h) { " + c + "_v = " + call(handle) + "; " + c + "_h = " + handle + "; }";
  };
  NodeId cell;
  if (hoistableDeref(n, cell)) {
    // Checked before the loop when it runs at all (the first iteration
    // would check first: a simple body has nothing before it that traps
    // or prints), from the handle as the loop starts.
    Region &r = regions_.back();
    std::string before = h;
    if (cell.valid()) {
      before = cellVar(cell);
      if (before.empty()) before = "(*(uint64_t *)cairn_m_sub(" + view(Operand::ofNode(cell)) + ", UINT64_C(0), UINT64_C(1), 8u).p)";
    }
    r.pre += "if (" + r.count + " > 0) {\n  const uint64_t " + c + "_0 = " + before + ";\n  " + check(c + "_0") + "\n}\n";
    const std::string marker = "@@cairn-hoisted-" + c + "@@";
    r.hoisted.emplace_back(marker, check(h));
    line(marker);
  } else {
    line(check(h));
  }
  defineView(n, c + "_v");
}

// The hoisted deref checks of a loop body that has closed: before the loop
// when the body is simple (nothing in it traps, calls or frees), else back
// in place of their markers.
void FnEmitter::placeHoisted(Region &body) {
  const bool hoist = body.simple && !body.dyn && !body.until;
  for (const auto &[marker, check] : body.hoisted) {
    const size_t p = body.text.find(marker);
    if (p == std::string::npos) continue;
    if (!hoist) {
      body.text.replace(p, marker.size(), check);
      continue;
    }
    const size_t b = body.text.rfind('\n', p), e = body.text.find('\n', p);
    const size_t from = b == std::string::npos ? 0 : b + 1;
    body.text.erase(from, e - from + 1);
  }
  if (!hoist || body.pre.empty()) return;
  const std::string pad(padWidth(), ' ');
  for (size_t p = 0, e; p < body.pre.size(); p = e + 1) {
    e = body.pre.find('\n', p);
    regions_.back().text += pad + body.pre.substr(p, e - p + 1);
  }
}

void FnEmitter::cast(NodeId n) {
  Operand a = g_.operands(n)[0];
  DType to = g_.dtype(n), from = typeOf(a);
  if (from == DType::None) {  // a literal: its own natural dtype (exec/compile.cpp)
    const Literal &l = g_.literal(a.lit());
    from = l.kind == Literal::Kind::Float  ? DType::F64
           : l.kind == Literal::Kind::Bool ? DType::Bool
           : l.negative || l.magnitude <= INT64_MAX ? DType::I64
                                                     : DType::U64;
  }
  std::string x = scalar(a, from), value;
  if (to == DType::Bool) value = "(cairn_bool)(" + x + " != 0)";  // NaN != 0 is true
  else if (isFloat(to)) value = "(" + std::string(cType(to)) + ")" + x;
  else if (isFloat(from)) value = "cairn_f2i_" + std::string(dtypeName(to)) + "((double)" + x + ")";
  else value = "(" + std::string(cType(to)) + ")" + x;
  define(n, to, value);
}

// checked_cast: exec/module_interp.cpp ccastT (integers by value; floats
// truncated first; NaN and infinities never fit).
void FnEmitter::checkedCast(NodeId n) {
  Operand a = g_.operands(n)[0];
  DType to = g_.dtype(n), from = typeOf(a);
  std::string name = cString(dtypeName(to)), s = site(n), x = scalar(a, from);
  if (proofs_.cannotTrap(n)) return define(n, to, "(" + std::string(cType(to)) + ")" + x);  // the value fits
  if (!isInteger(to) || to == DType::Bool)
    return define(n, to, "(cairn_m_nofit(rt, " + s + ", " + name + "), (" + cType(to) + ")0)");
  const int w = static_cast<int>(dtypeBytes(to)) * 8;
  const bool sto = isSigned(to);
  std::string lo = sto ? (w == 64 ? "INT64_MIN" : "-INT64_C(" + std::to_string(uint64_t{1} << (w - 1)) + ")") : "0";
  std::string hi = sto ? "UINT64_C(" + std::to_string((uint64_t{1} << (w - 1)) - 1) + ")"
                       : (w == 64 ? "UINT64_MAX" : "UINT64_C(" + std::to_string((uint64_t{1} << w) - 1) + ")");
  std::string c = "(" + std::string(cType(to)) + ")";
  if (isFloat(from)) {
    char flo[64], fhi[64];
    std::snprintf(flo, sizeof flo, "%a", sto ? -std::ldexp(1.0, w - 1) : 0.0);
    std::snprintf(fhi, sizeof fhi, "%a", std::ldexp(1.0, sto ? w - 1 : w));
    return define(n, to, c + "cairn_m_fit_f(rt, " + s + ", (double)" + x + ", " + flo + ", " + fhi + ", " + name + ")");
  }
  if (isSigned(from)) return define(n, to, c + "cairn_m_fit_s(rt, " + s + ", (int64_t)" + x + ", " + lo + ", " + hi + ", " + name + ")");
  define(n, to, c + "cairn_m_fit_u(rt, " + s + ", (uint64_t)" + x + ", " + hi + ", " + name + ")");
}

// A checked op that cannot trap (exec/proven.hpp cannotTrap): its value
// without the check. Add, sub and mul never wrap there, so the wrapping
// helper's value is the exact one; div and mod have a divisor that is
// never 0 (nor -1 with a MIN dividend), so C's `/` and `%` (truncating,
// the remainder with the dividend's sign) are the ops themselves.
void FnEmitter::uncheckedArith(NodeId n, Op op, DType t) {
  auto ops = g_.operands(n);
  const std::string a = scalar(ops[0], t), b = scalar(ops[1], t), ct = cType(t);
  if (op == Op::CheckedDiv || op == Op::CheckedMod)
    return define(n, t, "(" + ct + ")(" + a + (op == Op::CheckedDiv ? " / " : " % ") + b + ")");
  const Op plain = op == Op::CheckedAdd ? Op::Add : op == Op::CheckedSub ? Op::Sub : Op::Mul;
  define(n, t, aluExpr(plain, t, a, b, ""));
}

void FnEmitter::alu(NodeId n, Op op) {
  auto ops = g_.operands(n);
  const OpInfo &info = opInfo(op);
  DType t = operandType(n), rt = f_.type[n.v];
  if (!info.is(opflag::A) || ops.empty()) return fail("op `" + std::string(info.name) + "` cannot be emitted here");
  std::string a = scalar(ops[0], t), b = ops.size() > 1 ? scalar(ops[1], t) : a;
  std::string e = aluExpr(op, t, a, b, "rt, " + site(n) + ", 0");
  if (e.empty()) return fail("op `" + std::string(info.name) + "` does not take " + std::string(dtypeName(t)));
  if (e.find("rt, ") != std::string::npos) regions_.back().simple = false;  // it may trap (division by zero)
  define(n, op == Op::Cmplt || op == Op::Cmpne || op == Op::Cmpeq ? DType::Bool : rt, e);
}

std::string FnEmitter::combine(Op rop, DType t, const std::string &acc, const std::string &x) {
  std::string s = combineStmt(rop, t, acc, x);
  if (s.empty()) fail("a reduce with op `" + std::string(opInfo(rop).name) + "`");
  return s;
}

}  // namespace cairn::memit
