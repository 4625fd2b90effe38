// `const` items of an integer type, evaluated in their declared type at
// check time (E-CONST): a constant defined through itself, one whose value
// or any step of whose arithmetic falls outside its type, a division by
// zero and a shift count past the width are refused where they happen,
// instead of trapping at run time or never ending.
//
// Evaluation is over 128-bit integers, and every step is checked against
// the range of the constant's type, so nothing wraps: the values a step
// may take are below 2^64 in magnitude and products of two fit 128 bits.
// What is not a constant expression here (a call, a float, a constant of
// another type) is left to the lowering, which types it as before.
#include "lower/check/items.hpp"

namespace cairn::check {

namespace {
using i128 = __int128;

void rangeOf(sema::Sc sc, i128 &lo, i128 &hi) {
  int bits = static_cast<int>(dtypeBytes(sema::dtypeOf(sc))) * 8;
  if (sema::scSigned(sc)) {
    lo = -(i128(1) << (bits - 1));
    hi = (i128(1) << (bits - 1)) - 1;
  } else {
    lo = 0;
    hi = (i128(1) << bits) - 1;
  }
}

bool fits(sema::Sc sc, i128 v) {
  i128 lo, hi;
  rangeOf(sc, lo, hi);
  return v >= lo && v <= hi;
}

// The source text of a span on one line (empty when it spans lines).
std::string spanText(const sema::SourceFile &sf, const ast::Span &s) {
  if (s.line != s.endLine || s.col == 0 || s.endCol <= s.col) return "";
  size_t pos = 0;
  for (uint32_t l = 1; l < s.line && pos != std::string::npos; ++l) {
    pos = sf.text.find('\n', pos);
    if (pos != std::string::npos) ++pos;
  }
  if (pos == std::string::npos || pos + s.endCol - 1 > sf.text.size()) return "";
  return sf.text.substr(pos + s.col - 1, s.endCol - s.col);
}
}  // namespace

std::string uint128Text(unsigned __int128 u) {
  std::string s;
  do {
    s.insert(s.begin(), static_cast<char>('0' + static_cast<int>(u % 10)));
    u /= 10;
  } while (u);
  return s;
}

std::string int128Text(__int128 v) {
  bool neg = v < 0;
  unsigned __int128 u = neg ? -static_cast<unsigned __int128>(v) : static_cast<unsigned __int128>(v);
  return neg ? "-" + uint128Text(u) : uint128Text(u);
}

bool ItemCheck::scalarOfConst(sema::ItemRef r, sema::Sc &sc) {
  const ast::Item &it = P.item(r);
  if (!it.type.valid()) return false;
  const ast::TypeNode &tn = P.files[r.file]->ast.type(it.type);
  return tn.kind == ast::TypeKind::Named && tn.args.empty() && sema::parseSc(tn.name, sc) && sema::scInt(sc);
}

void ItemCheck::checkConsts() {
  for (uint32_t f = 0; f < P.files.size(); ++f)
    for (ast::ItemId id : P.files[f]->ast.top)
      if (P.files[f]->ast.item(id).kind == ast::ItemKind::Const) {
        __int128 v;
        constItem(sema::ItemRef{f, id}, v);
        // Warm constValue's memo in source order, so that a long chain of
        // constants is never evaluated deeper than one link at a time.
        uint64_t u;
        P.constValue(f, P.files[f]->ast.item(id).value, {}, u);
      }
}

// The value of a const item of an integer type: 1 a value, 0 not a
// constant expression (or not of an integer type), -1 refused (reported
// once; every constant of a cycle is refused with it).
int ItemCheck::constItem(sema::ItemRef r, __int128 &out) {
  sema::Sc sc;
  if (!scalarOfConst(r, sc)) return 0;
  const ast::Item &it = P.item(r);
  Key key{r.file, r.id.v};
  ConstMemo &m = consts_[key];
  if (m.state == 2) {
    out = m.value;
    return m.result;
  }
  if (m.state == 1) {
    std::string chain;
    bool in = false;
    for (const auto &[k, n] : constStack_) {
      in = in || k == key;
      if (!in) continue;
      chain += n + " -> ";
      consts_[k] = ConstMemo{2, -1, 0};
    }
    P.error(r.file, it.span.loc(), "E-CONST",
            "The constant " + it.name + " is defined through itself: " + chain + it.name + ".");
    constRefused_ = true;
    return -1;
  }
  if (constStack_.size() >= 512) {  // a chain declared backwards: bound the recursion
    P.error(r.file, it.span.loc(), "E-CONST",
            "The constant " + it.name + " is defined through a chain of more than 512 constants.");
    constRefused_ = true;
    return -1;
  }
  m.state = 1;
  constStack_.push_back({key, it.name});
  __int128 v = 0;
  int got = constExpr(r.file, it.value, sc, it.name, v, 0);
  constStack_.pop_back();
  ConstMemo &done = consts_[key];
  if (done.state == 2) return done.result;  // refused with its cycle
  done = ConstMemo{2, got, v};
  if (got < 0) constRefused_ = true;
  out = v;
  return got;
}

int ItemCheck::constExpr(uint32_t f, ast::ExprId eid, sema::Sc sc, const std::string &name, __int128 &out,
                       int depth) {
  if (!eid.valid() || depth > 1024) return 0;
  const ast::Expr &e = P.files[f]->ast.expr(eid);
  Loc loc = e.span.loc();
  switch (e.kind) {
    case ast::ExprKind::Int:
      if (e.intOverflow) return 0;  // the lexer reported it
      out = e.intValue;
      if (fits(sc, out)) return 1;
      {
        i128 lo, hi;
        rangeOf(sc, lo, hi);
        P.error(f, loc, "E-CONST",
                "The constant " + name + " does not fit " + std::string(sema::scName(sc)) + ": " + int128Text(out) +
                    " is outside " + int128Text(lo) + " to " + int128Text(hi) + ".");
      }
      return -1;
    case ast::ExprKind::Name: {
      sema::ItemRef r = P.lookup(f, e.text);
      sema::Sc other;
      if (!r.valid() || P.item(r).kind != ast::ItemKind::Const || !scalarOfConst(r, other) || other != sc) return 0;
      return constItem(r, out);
    }
    case ast::ExprKind::Unary: {
      if (e.unOp == ast::UnOp::Not) return 0;
      if (e.unOp == ast::UnOp::Neg && !sema::scSigned(sc)) return 0;  // the lowering refuses it
      i128 a;
      const ast::Expr &x = P.files[f]->ast.expr(e.a);
      if (e.unOp == ast::UnOp::Neg && x.kind == ast::ExprKind::Int) {  // -128 is one literal
        if (x.intOverflow) return 0;
        out = -static_cast<i128>(x.intValue);
        if (fits(sc, out)) return 1;
        i128 lo, hi;
        rangeOf(sc, lo, hi);
        P.error(f, loc, "E-CONST",
                "The constant " + name + " does not fit " + std::string(sema::scName(sc)) + ": " + int128Text(out) +
                    " is outside " + int128Text(lo) + " to " + int128Text(hi) + ".");
        return -1;
      }
      int got = constExpr(f, e.a, sc, name, a, depth + 1);
      if (got != 1) return got;
      i128 lo, hi;
      rangeOf(sc, lo, hi);
      out = e.unOp == ast::UnOp::Neg ? -a : (sema::scSigned(sc) ? -a - 1 : hi - a);
      if (fits(sc, out)) return 1;
      P.error(f, loc, "E-CONST",
              "The constant " + name + " overflows " + std::string(sema::scName(sc)) + ": " +
                  spanText(*P.files[f], e.span) + " is " + int128Text(out) + ", outside " + int128Text(lo) + " to " +
                  int128Text(hi) + ".");
      return -1;
    }
    case ast::ExprKind::Binary: return constBinary(f, e, sc, name, out, depth);
    case ast::ExprKind::Call: return constCall(f, eid, sc, name, out, depth);
    default: return 0;
  }
}

int ItemCheck::constBinary(uint32_t f, const ast::Expr &e, sema::Sc sc, const std::string &name, __int128 &out,
                         int depth) {
  using ast::BinOp;
  switch (e.binOp) {
    case BinOp::Add: case BinOp::Sub: case BinOp::Mul: case BinOp::Div: case BinOp::Rem:
    case BinOp::Shl: case BinOp::Shr: case BinOp::BitAnd: case BinOp::BitOr: case BinOp::BitXor: break;
    default: return 0;  // comparisons and && || are bool
  }
  i128 a, b;
  int ga = constExpr(f, e.a, sc, name, a, depth + 1);
  if (ga < 0) return -1;
  int gb = constExpr(f, e.b, sc, name, b, depth + 1);
  if (gb < 0) return -1;
  if (ga == 0 || gb == 0) return 0;
  Loc loc = e.span.loc();
  std::string text = spanText(*P.files[f], e.span);
  std::string scn(sema::scName(sc));
  int bits = static_cast<int>(dtypeBytes(sema::dtypeOf(sc))) * 8;
  switch (e.binOp) {
    case BinOp::Add: out = a + b; break;
    case BinOp::Sub: out = a - b; break;
    case BinOp::Mul: {
      // |a|, |b| <= 2^64, so the magnitudes' product fits 128 unsigned
      // bits; one above 2^126 fits no type (and might not fit i128).
      using u128 = unsigned __int128;
      u128 ma = a < 0 ? -static_cast<u128>(a) : static_cast<u128>(a);
      u128 mb = b < 0 ? -static_cast<u128>(b) : static_cast<u128>(b);
      u128 mp = ma * mb;
      bool neg = (a < 0) != (b < 0) && mp != 0;
      if (mp > (u128(1) << 126)) {
        i128 lo, hi;
        rangeOf(sc, lo, hi);
        P.error(f, loc, "E-CONST",
                "The constant " + name + " overflows " + scn + ": " + (text.empty() ? "a step" : text) + " is " +
                    (neg ? "-" : "") + uint128Text(mp) + ", outside " + int128Text(lo) + " to " + int128Text(hi) + ".");
        return -1;
      }
      out = neg ? -static_cast<i128>(mp) : static_cast<i128>(mp);
      break;
    }
    case BinOp::Div:
    case BinOp::Rem:
      if (b == 0) {
        P.error(f, loc, "E-CONST", "The constant " + name + " divides by zero" + (text.empty() ? "" : ": " + text) + ".");
        return -1;
      }
      out = e.binOp == BinOp::Div ? a / b : a % b;
      if (e.binOp == BinOp::Rem && b == -1 && !fits(sc, -a)) {  // MIN % -1 traps, as MIN / -1 does
        P.error(f, loc, "E-CONST",
                "The constant " + name + " overflows " + scn + ": " + (text.empty() ? "a step" : text) +
                    " traps, as " + int128Text(a) + " / -1 does.");
        return -1;
      }
      break;
    case BinOp::Shl:
    case BinOp::Shr:
      if (b < 0 || b >= bits) {
        P.error(f, loc, "E-CONST",
                "The constant " + name + " shifts by " + int128Text(b) + ", out of range for " + scn + " (0 to " +
                    std::to_string(bits - 1) + ").");
        return -1;
      }
      if (e.binOp == BinOp::Shr) {
        out = a >> static_cast<int>(b);
        break;
      }
      out = a * (i128(1) << static_cast<int>(b));
      if (!fits(sc, out)) return 0;  // bits shifted out: what `<<` gives is the lowering's to say
      break;
    case BinOp::BitAnd: out = a & b; break;
    case BinOp::BitOr: out = a | b; break;
    default: out = a ^ b; break;
  }
  if (fits(sc, out)) return 1;
  i128 lo, hi;
  rangeOf(sc, lo, hi);
  P.error(f, loc, "E-CONST",
          "The constant " + name + " overflows " + scn + ": " + (text.empty() ? "a step" : text) + " is " +
              int128Text(out) + ", outside " + int128Text(lo) + " to " + int128Text(hi) + ".");
  return -1;
}

// A conversion T(x) of a constant, or a layout method that is a constant.
int ItemCheck::constCall(uint32_t f, ast::ExprId eid, sema::Sc sc, const std::string &name, __int128 &out,
                       int depth) {
  const ast::Module &A = P.files[f]->ast;
  const ast::Expr &e = A.expr(eid);
  if (!e.a.valid()) return 0;
  const ast::Expr &callee = A.expr(e.a);
  sema::Sc to;
  if (callee.kind == ast::ExprKind::Field) {
    uint64_t v;
    if (sc != sema::Sc::Usize || !layoutConst(f, eid, v)) return 0;
    out = v;
    return 1;
  }
  if (callee.kind != ast::ExprKind::Name || !sema::parseSc(callee.text, to) || !sema::scInt(to) ||
      e.args.size() != 1)
    return 0;
  // The operand's own type: a constant's, a conversion's, else a literal's
  // default (u64, or i64 under a minus).
  const ast::Expr &x = A.expr(e.args[0]);
  sema::Sc from = x.kind == ast::ExprKind::Unary && x.unOp == ast::UnOp::Neg ? sema::Sc::I64 : sema::Sc::U64;
  if (x.kind == ast::ExprKind::Name) {
    sema::ItemRef r = P.lookup(f, x.text);
    if (!r.valid() || P.item(r).kind != ast::ItemKind::Const || !scalarOfConst(r, from)) return 0;
  } else if (x.kind == ast::ExprKind::Call && x.a.valid() && A.expr(x.a).kind == ast::ExprKind::Name &&
             sema::parseSc(A.expr(x.a).text, from) && sema::scInt(from)) {
  } else if (x.kind == ast::ExprKind::Call) {
    from = sema::Sc::Usize;  // a layout method
  }
  i128 v;
  int got = constExpr(f, e.args[0], from, name, v, depth + 1);
  if (got != 1) return got;
  if (!fits(to, v)) {
    i128 lo, hi;
    rangeOf(to, lo, hi);
    P.error(f, e.span.loc(), "E-CONST",
            "The constant " + name + " does not fit " + std::string(sema::scName(to)) + ": " + int128Text(v) +
                " is outside " + int128Text(lo) + " to " + int128Text(hi) + ".");
    return -1;
  }
  out = v;
  return to == sc ? 1 : 0;
}

}  // namespace cairn::check
