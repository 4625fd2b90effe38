// Expressions that make values: literals (typed by what expects them),
// names, fields, elements, unary and binary operators with CAIRN's checked
// arithmetic, and the short-circuit `&&` / `||`.
//
// Typing rule for literals: a literal takes the type expected of it (the
// other operand's, the parameter's, the declared one), u64 / f64 when
// nothing expects one; it must fit that type exactly (E-TYPE).
#include "lower/fn.hpp"

namespace cairn::lower {

namespace {
bool isCmp(ast::BinOp op) {
  using B = ast::BinOp;
  return op == B::Lt || op == B::Le || op == B::Gt || op == B::Ge || op == B::Eq || op == B::Ne;
}
}  // namespace

bool FnLowerer::isLiteralExpr(ast::ExprId id) const {
  if (!id.valid()) return false;
  const ast::Expr &e = A.expr(id);
  if (e.kind == ast::ExprKind::Int || e.kind == ast::ExprKind::Float) return true;
  if (e.kind == ast::ExprKind::Unary && e.unOp == ast::UnOp::Neg) return isLiteralExpr(e.a);
  return false;
}

Ty FnLowerer::literalDefault(ast::ExprId id) {
  bool neg = false;
  while (A.expr(id).kind == ast::ExprKind::Unary) {
    neg = !neg;
    id = A.expr(id).a;
  }
  const ast::Expr &e = A.expr(id);
  if (e.kind == ast::ExprKind::Float) return P.scalar(sema::Sc::F64);
  if (e.isChar) return P.scalar(sema::Sc::U8);
  return P.scalar(neg ? sema::Sc::I64 : sema::Sc::U64);
}

bool FnLowerer::placePath(ast::ExprId id, std::vector<std::string> &out) const {
  if (!id.valid()) return false;
  const ast::Expr &e = A.expr(id);
  switch (e.kind) {
    case ast::ExprKind::Name: out.push_back(e.text); return true;
    case ast::ExprKind::Field:
      if (!placePath(e.a, out)) return false;
      out.push_back("." + e.text);
      return true;
    case ast::ExprKind::Index: {
      if (!placePath(e.a, out)) return false;
      const ast::Expr &i = A.expr(e.b);
      out.push_back(i.kind == ast::ExprKind::Int && !i.intOverflow ? "[" + std::to_string(i.intValue) + "]" : "[?]");
      return true;
    }
    default: return false;
  }
}

bool FnLowerer::mayLieInside(ast::ExprId a, ast::ExprId b) const {
  std::vector<std::string> pa, pb;
  if (!placePath(a, pa) || !placePath(b, pb) || pa.size() <= pb.size()) return false;
  for (size_t k = 0; k < pb.size(); ++k) {
    const std::string &x = pa[k], &y = pb[k];
    if (x == y) continue;
    if (!x.empty() && !y.empty() && x[0] == '[' && y[0] == '[' && (x == "[?]" || y == "[?]")) continue;
    return false;
  }
  return true;
}

bool FnLowerer::isSimple(ast::ExprId id) const {
  if (!id.valid()) return true;
  const ast::Expr &e = A.expr(id);
  switch (e.kind) {
    case ast::ExprKind::Int:
    case ast::ExprKind::Float:
    case ast::ExprKind::Bool:
    case ast::ExprKind::Name: return true;
    case ast::ExprKind::Field: return isSimple(e.a) && A.expr(e.a).kind != ast::ExprKind::Call;
    case ast::ExprKind::Unary: return e.unOp == ast::UnOp::Not && isSimple(e.a);
    case ast::ExprKind::Binary:
      return (isCmp(e.binOp) || e.binOp == ast::BinOp::And || e.binOp == ast::BinOp::Or ||
              e.binOp == ast::BinOp::BitAnd || e.binOp == ast::BinOp::BitOr || e.binOp == ast::BinOp::BitXor) &&
             isSimple(e.a) && isSimple(e.b);
    default: return false;
  }
}

Val FnLowerer::literal(ast::ExprId id, Ty expect, bool negate) {
  const ast::Expr &e = A.expr(id);
  if (e.kind == ast::ExprKind::Unary) return literal(e.a, expect, !negate);
  Ty t = expect;
  if (t != kNoTy && P.type(t).k != sema::TK::Scalar) t = kNoTy;
  if (t == kNoTy) {
    if (e.kind == ast::ExprKind::Float) t = P.scalar(sema::Sc::F64);
    else if (e.kind == ast::ExprKind::Bool) t = P.scalar(sema::Sc::Bool);
    else if (e.isChar) t = P.scalar(sema::Sc::U8);
    else t = P.scalar(negate ? sema::Sc::I64 : sema::Sc::U64);
  }
  DType dt = sema::dtypeOf(P.type(t).sc);
  sema::Sc tsc = P.type(t).sc;
  bool kindOk = e.kind == ast::ExprKind::Bool ? tsc == sema::Sc::Bool
                : e.kind == ast::ExprKind::Float ? sema::scFloat(tsc)
                                                 : tsc != sema::Sc::Bool;
  if (!kindOk) {
    const char *got = e.kind == ast::ExprKind::Bool ? "bool" : e.kind == ast::ExprKind::Float ? "a float literal" : "an integer literal";
    error(e.span.loc(), "E-TYPE-MISMATCH", "Expected " + P.typeName(t) + ", got " + got + ".");
    return {};
  }
  Literal l;
  if (e.kind == ast::ExprKind::Bool) {
    l.kind = Literal::Kind::Bool;
    l.magnitude = e.boolValue;
  } else if (e.kind == ast::ExprKind::Float) {
    l.kind = Literal::Kind::Float;
    l.f = negate ? -e.floatValue : e.floatValue;
  } else {
    if (e.intOverflow) {
      error(e.span.loc(), "E-TYPE", "the literal " + e.text + " does not fit 64 bits");
      return {};
    }
    l.kind = Literal::Kind::Int;
    l.magnitude = e.intValue;
    l.negative = negate && e.intValue != 0;
    if (isFloat(dt)) {
      l.kind = Literal::Kind::Float;
      l.f = static_cast<double>(e.intValue) * (negate ? -1.0 : 1.0);
      l.negative = false;
    }
  }
  if (!literalBits(l, dt)) {
    std::string text = (negate ? "-" : "") + (e.text.empty() ? std::string("literal") : e.text);
    error(e.span.loc(), "E-TYPE", "the literal " + text + " does not fit " + P.typeName(t));
    return {};
  }
  return Val{t, {konstLit(dt, l)}};
}

Val FnLowerer::zeroVal(Ty t) {
  Val v{t, {}};
  for (const sema::Leaf &l : P.leaves(t)) v.leaves.push_back(konst(l.dt, 0));
  return v;
}

Ty FnLowerer::typeOfName(const std::string &name) {
  if (Local *l = findLocal(name)) return l->ty;
  return kNoTy;
}

Val FnLowerer::exprScalar(ast::ExprId e, Ty expect) {
  Val v = expr(e, expect);
  if (v.ok() && (P.hasError(v.ty) || v.leaves.empty())) return {};  // reported already
  if (v.ok() && P.type(v.ty).k != sema::TK::Scalar) {
    error(A.expr(e).span.loc(), "E-TYPE", "expected a scalar, got " + P.typeName(v.ty));
    return {};
  }
  return v;
}

NodeId FnLowerer::exprBool(ast::ExprId e) {
  Val v = exprScalar(e, P.scalar(sema::Sc::Bool));
  if (!v.ok()) return {};
  if (v.ty != P.scalar(sema::Sc::Bool)) {
    error(A.expr(e).span.loc(), "E-TYPE-MISMATCH", "Expected bool, got " + P.typeName(v.ty) + ".");
    return {};
  }
  return v.leaves[0];
}

// A value use of an expression: a place holding owners is moved out of
// (its owner leaves become 0); anything else is read or computed.
Val FnLowerer::moveOrCopy(ast::ExprId id, Ty expect) {
  Val v = moveOrCopyRaw(id, expect);
  if (v.ok() && id.valid()) facts->exprTy[id.v] = v.ty;
  return v;
}

Val FnLowerer::moveOrCopyRaw(ast::ExprId id, Ty expect) {
  const ast::Expr &e = A.expr(id);
  AtLoc at(cur, e.span.loc());
  if (e.kind == ast::ExprKind::Name || e.kind == ast::ExprKind::Field || e.kind == ast::ExprKind::Index) {
    bool isPlaceExpr = true;
    if (e.kind == ast::ExprKind::Name) {
      Local *l = findLocal(e.text);
      isPlaceExpr = l && l->k == Local::Place;
      if (isPlaceExpr && !l->owns && P.holdsOwner(l->ty)) {
        error(e.span.loc(), "E-PARTIAL-MOVE",
              "An owner cannot be moved out of a place; use take() or swap(). " + e.text +
                  " is borrowed: its owner stays with the caller");
        return {};
      }
    } else if (e.kind == ast::ExprKind::Field) {
      const ast::Expr &b = A.expr(e.a);
      // enum variants and module paths are not places
      if (b.kind == ast::ExprKind::Name && !findLocal(b.text)) isPlaceExpr = false;
      if (b.kind == ast::ExprKind::Call || b.kind == ast::ExprKind::Inst) isPlaceExpr = false;
    }
    if (isPlaceExpr) {
      std::optional<Place> p = place(id, false);
      if (!p) return {};
      Val v = loadPlace(*p);
      if (P.holdsOwner(p->ty)) {
        if (e.kind != ast::ExprKind::Name) {
          error(e.span.loc(), "E-PARTIAL-MOVE", "An owner cannot be moved out of a place; use take() or swap().");
          return {};
        }
        zeroOwners(*p);
      }
      return v;
    }
  }
  return expr(id, expect);
}

Val FnLowerer::expr(ast::ExprId id, Ty expect) {
  Val v = exprRaw(id, expect);
  if (v.ok() && id.valid()) facts->exprTy[id.v] = v.ty;
  return v;
}

// `name` must outlive the facts (see CallFact::name).
void FnLowerer::noteCall(ast::ExprId id, check::CallKind k, std::string_view name,
                         const std::vector<ast::ExprId> &args) {
  check::CallFact &c = facts->calls[id.v];
  c = check::CallFact{};
  c.kind = k;
  c.name = name;
  c.args.reserve(args.size());
  for (ast::ExprId a : args) {
    check::ArgFact af;
    af.arg = a;
    c.args.push_back(af);
  }
}

Val FnLowerer::exprRaw(ast::ExprId id, Ty expect) {
  if (!id.valid()) return {};
  const ast::Expr &e = A.expr(id);
  AtLoc at(cur, e.span.loc());
  if (++depthGuard > 400) {
    --depthGuard;
    error(e.span.loc(), "E-LIMIT", "expression nested too deeply");
    return {};
  }
  struct Depth {
    uint32_t &d;
    ~Depth() { --d; }
  } depth{depthGuard};
  switch (e.kind) {
    case ast::ExprKind::Int:
    case ast::ExprKind::Float:
    case ast::ExprKind::Bool: return literal(id, expect);
    case ast::ExprKind::Str:
      error(e.span.loc(), "E-TYPE", "a string literal is a view: pass it to a view parameter or bind it with let");
      return {};
    case ast::ExprKind::Zeroed:
      if (expect == kNoTy) {
        error(e.span.loc(), "E-TYPE", "zeroed needs a declared type");
        return {};
      }
      return zeroVal(expect);
    case ast::ExprKind::Name: {
      if (Local *l = findLocal(e.text)) {
        if (P.type(l->ty).k == sema::TK::Error) return {};  // its error is reported
        if (l->k == Local::Value) return l->val;
        if (l->k == Local::Place) return moveOrCopy(id, expect);
        error(e.span.loc(), "E-TYPE", e.text + " is an array: pass it to a view parameter, or index it");
        return {};
      }
      sema::ItemRef r = P.lookup(file, e.text);
      if (r.valid() && P.item(r).kind == ast::ItemKind::Const) {
        const ast::Item &ci = P.item(r);
        Ty ct = P.resolveType(r.file, ci.type, {});
        uint64_t v;
        if (P.type(ct).k == sema::TK::Scalar && sema::scInt(P.type(ct).sc) && P.constValue(r.file, ci.value, {}, v) &&
            literalBits(Literal{Literal::Kind::Int, false, v, 0}, sema::dtypeOf(P.type(ct).sc)))
          return Val{ct, {konst(sema::dtypeOf(P.type(ct).sc), v)}};
        // Other constants (negative, float, bool): lower the expression in
        // the constant's own file.
        if (r.file == file) return expr(ci.value, ct);
        unsupported(e.span.loc(), "this constant from another module");
        return {};
      }
      if (auto nat = F.env.nats.find(e.text); nat != F.env.nats.end())
        return Val{P.scalar(sema::Sc::Usize), {u64c(nat->second)}};
      error(e.span.loc(), "E-NAME", "unknown name " + e.text);
      return {};
    }
    case ast::ExprKind::Field: {
      const ast::Expr &b = A.expr(e.a);
      // Enum.Variant (tag only) or Option[T].None
      Ty sumTy = kNoTy;
      if (b.kind == ast::ExprKind::Name && !findLocal(b.text)) {
        sema::ItemRef r = P.lookup(file, b.text);
        if (r.valid() && P.item(r).kind == ast::ItemKind::Enum) {
          std::vector<Ty> args;
          if (!P.item(r).generics.empty()) {
            if (expect != kNoTy && P.type(expect).k == sema::TK::Sum && P.sums[P.type(expect).inst].item.id == r.id)
              return variant(id, expect, UINT32_MAX, {});
            error(e.span.loc(), "E-INFER", "write the generic arguments: " + b.text + "[T]." + e.text);
            return {};
          }
          sumTy = P.recordOf(r, args, file, e.span.loc());
        } else if (P.isModuleAlias(file, b.text)) {
          sema::ItemRef q = P.lookupQualified(file, b.text, e.text);
          if (q.valid() && P.item(q).kind == ast::ItemKind::Const) {
            Ty ct = P.resolveType(q.file, P.item(q).type, {});
            uint64_t v;
            if (P.type(ct).k == sema::TK::Scalar && P.constValue(q.file, P.item(q).value, {}, v))
              return Val{ct, {konst(sema::dtypeOf(P.type(ct).sc), v)}};
          }
          error(e.span.loc(), "E-NAME", b.text + "." + e.text + " is not a value");
          return {};
        }
      } else if (b.kind == ast::ExprKind::Inst) {
        sumTy = resolveTypeExpr(e.a);
        if (sumTy == kNoTy) return {};
      }
      if (sumTy != kNoTy) return variant(id, sumTy, UINT32_MAX, {});
      if (b.kind == ast::ExprKind::Name && !findLocal(b.text)) {
        error(b.span.loc(), "E-NAME", "unknown name " + b.text);
        return {};
      }
      if (b.kind == ast::ExprKind::Call) {
        Val bv = expr(e.a);
        if (!bv.ok()) return {};
        const sema::TypeRec &r = P.type(bv.ty);
        if (r.k != sema::TK::Record) {
          error(e.span.loc(), "E-FIELD", P.typeName(bv.ty) + " has no field " + e.text);
          return {};
        }
        const sema::RecInst &ri = P.recs[r.inst];
        for (const sema::Field &f : ri.fields)
          if (f.name == e.text) {
            size_t n = P.leaves(f.ty).size();
            Val out{f.ty, Leaves(bv.leaves.begin() + f.leaf, bv.leaves.begin() + f.leaf + n)};
            // the rest of the temporary is released
            for (const sema::Field &o : ri.fields)
              if (&o != &f && P.holdsOwner(o.ty)) {
                size_t m = P.leaves(o.ty).size();
                freeOwners(Val{o.ty, Leaves(bv.leaves.begin() + o.leaf, bv.leaves.begin() + o.leaf + m)});
              }
            return out;
          }
        error(e.span.loc(), "E-FIELD", ri.name + " has no field " + e.text);
        return {};
      }
      return moveOrCopy(id, expect);
    }
    case ast::ExprKind::Index: return moveOrCopy(id, expect);
    case ast::ExprKind::Part:
      error(e.span.loc(), "E-VIEW-ALIAS",
            "A part xs[lo..hi] is a borrow: it exists only as a view argument of a call. Keep lo and hi in locals "
            "and write the part in each call that reads it.");
      return {};
    case ast::ExprKind::Unary: return unary(id, expect);
    case ast::ExprKind::Binary: return binary(id, expect);
    case ast::ExprKind::Call: return call(id, expect);
    case ast::ExprKind::Inst:
      error(e.span.loc(), "E-TYPE", "a generic name is not a value; call it");
      return {};
    case ast::ExprKind::Try: unsupported(e.span.loc(), "try"); return {};
    case ast::ExprKind::Closure: unsupported(e.span.loc(), "a closure"); return {};
    case ast::ExprKind::Error: return {};
  }
  return {};
}

Val FnLowerer::unary(ast::ExprId id, Ty expect) {
  const ast::Expr &e = A.expr(id);
  if (e.unOp == ast::UnOp::Neg && isLiteralExpr(e.a)) return literal(e.a, expect, true);
  Val a = exprScalar(e.a, e.unOp == ast::UnOp::Not ? P.scalar(sema::Sc::Bool) : expect);
  if (!a.ok()) return {};
  sema::Sc sc = P.type(a.ty).sc;
  DType dt = sema::dtypeOf(sc);
  switch (e.unOp) {
    case ast::UnOp::Neg:
      if (sema::scFloat(sc)) return Val{a.ty, {node(Op::Neg, {a.leaves[0]}, DType::None, "neg")}};
      if (!sema::scSigned(sc)) {
        error(e.span.loc(), "E-TYPE", "unary - needs a signed or float operand; this is " + P.typeName(a.ty));
        return {};
      }
      return Val{a.ty, {node(Op::CheckedSub, {konst(dt, 0), a.leaves[0]}, DType::None, "neg")}};
    case ast::UnOp::Not:
      if (sc != sema::Sc::Bool) {
        error(e.span.loc(), "E-TYPE", "! needs a bool; this is " + P.typeName(a.ty));
        return {};
      }
      return Val{a.ty, {node(Op::Neg, {a.leaves[0]}, DType::None, "not")}};
    case ast::UnOp::BitNot:
      if (!sema::scInt(sc)) {
        error(e.span.loc(), "E-TYPE", "~ needs an integer; this is " + P.typeName(a.ty));
        return {};
      }
      return Val{a.ty, {node(Op::Xor, {a.leaves[0], konst(dt, ~uint64_t{0})}, DType::None, "inv")}};
  }
  return {};
}

Val FnLowerer::shortCircuit(ast::ExprId id) {
  const ast::Expr &e = A.expr(id);
  bool isAnd = e.binOp == ast::BinOp::And;
  NodeId a = exprBool(e.a);
  if (!a.valid()) return {};
  Ty bt = P.scalar(sema::Sc::Bool);
  if (isSimple(e.b)) {
    NodeId b = exprBool(e.b);
    if (!b.valid()) return {};
    return Val{bt, {node(isAnd ? Op::And : Op::Or, {a, b}, DType::None, isAnd ? NodeHint("and") : NodeHint("or"))}};
  }
  // The right side may trap or have effects: it runs only when needed.
  std::string tmp = "$sc" + std::string(nameNumber.text());
  newCell(DType::Bool, tmp, true, isAnd ? NodeHint("and") : NodeHint("or"));
  Col c;
  c.storage = static_cast<uint32_t>(storages.size() - 1);
  c.dt = DType::Bool;
  storeLeaf(c, {}, a);
  NameSet ns;
  mentionedExpr(e.b, ns);
  ns.insert(tmp);
  openIf(isAnd ? a : node(Op::Neg, {a}, DType::None, "else"), ns, false);
  NodeId b = exprBool(e.b);
  if (b.valid()) storeLeaf(c, {}, b);
  closeRegion();
  if (!b.valid()) return {};
  return Val{bt, {loadLeaf(c, {})}};
}

Val FnLowerer::binary(ast::ExprId id, Ty expect) {
  const ast::Expr &e = A.expr(id);
  using B = ast::BinOp;
  if (e.binOp == B::And || e.binOp == B::Or) return shortCircuit(id);
  Ty opExpect = isCmp(e.binOp) ? kNoTy : expect;
  Val a, b;
  if (isLiteralExpr(e.a) && !isLiteralExpr(e.b)) {
    b = expr(e.b, opExpect);
    if (!b.ok()) return {};
    a = expr(e.a, b.ty);
  } else {
    a = expr(e.a, opExpect);
    if (!a.ok()) return {};
    b = expr(e.b, a.ty);
  }
  if (!a.ok() || !b.ok()) return {};
  if (differ(a.ty, b.ty)) {
    error(A.expr(e.b).span.loc(), "E-TYPE-MISMATCH", "Expected " + P.typeName(a.ty) + ", got " + P.typeName(b.ty) + ".");
    return {};
  }
  if (a.ty != b.ty || P.hasError(a.ty) || a.leaves.empty() || b.leaves.empty()) return {};  // reported already
  const sema::TypeRec &r = P.type(a.ty);
  Ty bt = P.scalar(sema::Sc::Bool);
  if (r.k == sema::TK::Sum && (e.binOp == B::Eq || e.binOp == B::Ne)) {
    const sema::SumInst &si = P.sums[r.inst];
    for (const auto &v : si.variants)
      if (v.payload != kNoTy) {
        error(e.span.loc(), "E-TYPE", "only a tag-only enum may be compared with ==; " + si.name + " has payloads");
        return {};
      }
    return Val{bt, {node(e.binOp == B::Eq ? Op::Cmpeq : Op::Cmpne, {a.leaves[0], b.leaves[0]}, DType::None, "eq")}};
  }
  if (r.k != sema::TK::Scalar) {
    error(e.span.loc(), "E-TYPE", std::string("operator ") + std::string(ast::binOpText(e.binOp)) + " takes scalars; got " +
                                      P.typeName(a.ty));
    return {};
  }
  sema::Sc sc = r.sc;
  bool fl = sema::scFloat(sc), in = sema::scInt(sc), bo = sc == sema::Sc::Bool;
  NodeId x = a.leaves[0], y = b.leaves[0];
  auto need = [&](bool ok, const char *what) {
    if (!ok)
      error(e.span.loc(), "E-TYPE", std::string("operator ") + std::string(ast::binOpText(e.binOp)) + " needs " + what +
                                        "; got " + P.typeName(a.ty));
    return ok;
  };
  switch (e.binOp) {
    case B::Add:
      if (!need(in || fl, "numbers")) return {};
      return Val{a.ty, {node(fl ? Op::Add : Op::CheckedAdd, {x, y}, DType::None, "sum")}};
    case B::Sub:
      if (!need(in || fl, "numbers")) return {};
      return Val{a.ty, {node(fl ? Op::Sub : Op::CheckedSub, {x, y}, DType::None, "diff")}};
    case B::Mul:
      if (!need(in || fl, "numbers")) return {};
      return Val{a.ty, {node(fl ? Op::Mul : Op::CheckedMul, {x, y}, DType::None, "prod")}};
    case B::Div:
      if (!need(in || fl, "numbers")) return {};
      return Val{a.ty, {node(fl ? Op::Fdiv : Op::CheckedDiv, {x, y}, DType::None, "quot")}};
    case B::Rem:
      if (!need(in, "integers")) return {};
      return Val{a.ty, {node(Op::CheckedMod, {x, y}, DType::None, "rem")}};
    case B::Shl:
    case B::Shr: {
      if (!need(in, "integers")) return {};
      int w = dtypeBits(sema::dtypeOf(sc));
      // A literal count in [0, w) needs no guard (`x >> 8`).
      if (g->op(y) == Op::Const && g->operands(y)[0].isLit()) {
        const Literal &l = g->literal(g->operands(y)[0].lit());
        if (l.kind == Literal::Kind::Int && (!l.negative || l.magnitude == 0) && l.magnitude < static_cast<uint64_t>(w))
          return Val{a.ty, {node(e.binOp == B::Shl ? Op::Shl : Op::Shr, {x, y}, DType::None, "sh")}};
      }
      NodeId inRange = sema::scSigned(sc)
                           ? node(Op::And, {node(Op::Cmplt, {y, konst(sema::dtypeOf(sc), static_cast<uint64_t>(w))},
                                                 DType::None, "ok"),
                                            node(Op::Neg, {node(Op::Cmplt, {y, konst(sema::dtypeOf(sc), 0)}, DType::None, "neg")},
                                                 DType::None, "ok")},
                                  DType::None, "ok")
                           : node(Op::Cmplt, {y, konst(sema::dtypeOf(sc), static_cast<uint64_t>(w))}, DType::None, "ok");
      guard(inRange, "shift count out of range (at most " + std::to_string(w - 1) + ")");
      return Val{a.ty, {node(e.binOp == B::Shl ? Op::Shl : Op::Shr, {x, y}, DType::None, "sh")}};
    }
    case B::BitAnd:
    case B::BitOr:
    case B::BitXor:
      if (!need(in || bo, "integers or bools")) return {};
      return Val{a.ty, {node(e.binOp == B::BitAnd ? Op::And : e.binOp == B::BitOr ? Op::Or : Op::Xor, {x, y}, DType::None,
                             "bits")}};
    case B::Lt: return Val{bt, {node(Op::Cmplt, {x, y}, DType::None, "lt")}};
    case B::Gt: return Val{bt, {node(Op::Cmplt, {y, x}, DType::None, "gt")}};
    case B::Le:
      return Val{bt, {node(Op::Or, {node(Op::Cmplt, {x, y}, DType::None, "lt"), node(Op::Cmpeq, {x, y}, DType::None, "eq")},
                           DType::None, "le")}};
    case B::Ge:
      return Val{bt, {node(Op::Or, {node(Op::Cmplt, {y, x}, DType::None, "gt"), node(Op::Cmpeq, {x, y}, DType::None, "eq")},
                           DType::None, "ge")}};
    case B::Eq: return Val{bt, {node(Op::Cmpeq, {x, y}, DType::None, "eq")}};
    case B::Ne: return Val{bt, {node(Op::Cmpne, {x, y}, DType::None, "ne")}};
    case B::And:
    case B::Or: break;
  }
  return {};
}

}  // namespace cairn::lower
