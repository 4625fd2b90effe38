// Calls: user functions (generic ones instantiated per inferred arguments),
// methods (`x.f(a)` is `f(x, a)` from the module that declares x's type),
// externs, record and sum constructors, conversions written as calls, and
// the builtins (len, the wrapping helpers, min/max, take, swap, print).
//
// Argument passing follows the parameter: a value parameter gets the
// argument's leaves (an owner moves), an array view gets one view per
// column (a part as `part`), a single borrow gets one one-element view per
// leaf. A call that leaves out its extent parameters gets len of the first
// view with that extent. Each view argument of an extent-typed parameter is
// guarded: its length must equal the extent.
#include "lower/fn.hpp"

namespace cairn::lower {


Ty FnLowerer::resolveTypeExpr(ast::ExprId id) {
  const ast::Expr &e = A.expr(id);
  if (e.kind != ast::ExprKind::Inst) return kNoTy;
  std::string name;
  const ast::Expr &b = A.expr(e.a);
  if (b.kind == ast::ExprKind::Name) name = b.text;
  else if (b.kind == ast::ExprKind::Field && A.expr(b.a).kind == ast::ExprKind::Name)
    name = A.expr(b.a).text + "." + b.text;
  else {
    error(e.span.loc(), "E-TYPE", "expected a type name before [...]");
    return kNoTy;
  }
  // The ast is const, so resolve by hand. Array's length is a natural,
  // not a type: resolve only its element type here.
  const std::vector<ast::GenericArg> &gargs = A.moreOf(e).gargs;
  std::vector<Ty> args;
  for (size_t i = 0; i < gargs.size(); ++i) {
    const ast::GenericArg &ga = gargs[i];
    if (ga.type.valid() && !(name == "Array" && i == 1)) args.push_back(P.resolveType(file, ga.type, F.env));
    else args.push_back(kNoTy);
  }
  if (name == "Buf") {
    if (args.size() != 1 || args[0] == kNoTy) {
      error(e.span.loc(), "E-TYPE", "Buf takes one type: Buf[T]");
      return kNoTy;
    }
    if (P.type(args[0]).k == sema::TK::Array) {
      error(e.span.loc(), "E-UNSUPPORTED", "a Buf of fixed arrays is not supported by `cairn run` yet");
      return kNoTy;
    }
    return P.buf(args[0]);
  }
  if (name == "Array") {
    uint64_t n = 0;
    bool ok = gargs.size() == 2 && args[0] != kNoTy;
    if (ok) {
      const ast::GenericArg &ga = gargs[1];
      if (ga.expr.valid()) ok = P.constValue(file, ga.expr, F.env, n);
      else {
        const ast::TypeNode &tn = A.type(ga.type);
        if (auto nat = F.env.nats.find(tn.name); nat != F.env.nats.end()) n = nat->second;
        else {
          sema::ItemRef c = P.lookup(file, tn.name);
          ok = c.valid() && P.item(c).kind == ast::ItemKind::Const && P.constValue(c.file, P.item(c).value, {}, n);
        }
      }
    }
    if (!ok) {
      error(e.span.loc(), "E-EXTENT", "Array[T, N] needs a type and a constant length");
      return kNoTy;
    }
    return P.array(args[0], n);
  }
  sema::ItemRef r;
  auto dot = name.find('.');
  r = dot == std::string::npos ? P.lookup(file, name) : P.lookupQualified(file, name.substr(0, dot), name.substr(dot + 1));
  if (!r.valid() || (P.item(r).kind != ast::ItemKind::Struct && P.item(r).kind != ast::ItemKind::Enum)) {
    error(e.span.loc(), "E-NAME", "unknown type " + name);
    return kNoTy;
  }
  for (Ty a : args)
    if (a == kNoTy) {
      error(e.span.loc(), "E-TYPE", "expected type arguments in " + name + "[...]");
      return kNoTy;
    }
  return P.recordOf(r, args, file, e.span.loc());
}

// Whether `name` is a member of a trait or impl of this file: those parse,
// but `cairn run` does not resolve them.
bool FnLowerer::isTraitMember(const std::string &name) const {
  for (ast::ItemId id : A.top) {
    const ast::Item &it = A.item(id);
    if (it.kind != ast::ItemKind::Trait && it.kind != ast::ItemKind::Impl) continue;
    for (ast::ItemId m : it.members)
      if (A.item(m).name == name) return true;
  }
  return false;
}

Ty FnLowerer::typeFromExpr(ast::ExprId id) {
  const ast::Expr &e = A.expr(id);
  if (e.kind == ast::ExprKind::Inst) return resolveTypeExpr(id);
  sema::ItemRef r;
  if (e.kind == ast::ExprKind::Name) {
    sema::Sc sc;
    if (sema::parseSc(e.text, sc)) return P.scalar(sc);
    if (auto g = F.env.types.find(e.text); g != F.env.types.end()) return g->second;
    r = P.lookup(file, e.text);
  } else if (e.kind == ast::ExprKind::Field && A.expr(e.a).kind == ast::ExprKind::Name) {
    r = P.lookupQualified(file, A.expr(e.a).text, e.text);
  }
  if (r.valid() && (P.item(r).kind == ast::ItemKind::Struct || P.item(r).kind == ast::ItemKind::Enum) &&
      P.item(r).generics.empty())
    return P.recordOf(r, {}, file, e.span.loc());
  error(e.span.loc(), "E-TYPE", "expected a type here");
  return kNoTy;
}

Val FnLowerer::call(ast::ExprId id, Ty expect) {
  const ast::Expr &e = A.expr(id);
  const ast::Expr &c = A.expr(e.a);
  if (c.kind == ast::ExprKind::Name) {
    if (auto gt = F.env.types.find(c.text); gt != F.env.types.end() && !findLocal(c.text)) {
      // T(x) converts, or constructs, at the instance's T
      const sema::TypeRec &tr = P.type(gt->second);
      if (tr.k == sema::TK::Scalar && e.args.size() == 1) return convert(id, tr.sc, e.args[0]);
      if (tr.k == sema::TK::Record) return construct(id, gt->second, e.args);
      error(c.span.loc(), "E-TYPE", "cannot convert to " + P.typeName(gt->second));
      return {};
    }
    if (!findLocal(c.text)) {
      sema::Sc sc;
      if (sema::parseSc(c.text, sc)) {
        if (e.args.size() != 1) {
          error(e.span.loc(), "E-ARITY", "a conversion " + c.text + "(x) takes one value");
          return {};
        }
        return convert(id, sc, e.args[0]);
      }
      // An item declared or imported under a builtin's name is what the
      // program calls (std.io's print(n, data), a user's own min).
      sema::ItemRef r = P.lookup(file, c.text);
      if (!r.valid()) {
        bool handled = false;
        noteCall(id, check::CallKind::Builtin, c.text, e.args);
        Val v = builtin(id, c.text, e.args, expect, handled);
        if (handled) return v;
        facts->calls.erase(id.v);
      }
      if (r.valid()) {
        const ast::Item &it = P.item(r);
        if (it.kind == ast::ItemKind::Fn) return callFn(id, r, {}, e.args, expect, std::nullopt);
        if (it.kind == ast::ItemKind::Struct) {
          if (!it.generics.empty()) {
            // infer the record's arguments from its fields
            noteCall(id, check::CallKind::Construct, it.name, e.args);
            sema::GenericEnv env;
            std::vector<Ty> argTys;
            Unify u{P, r.file, it, env};
            if (expect != kNoTy && P.type(expect).k == sema::TK::Record && P.recs[P.type(expect).inst].item.id == r.id &&
                P.recs[P.type(expect).inst].item.file == r.file)
              return construct(id, expect, e.args);
            // Lower the arguments first, then pick the instance.
            std::vector<Val> vals;
            for (size_t i = 0; i < e.args.size() && i < it.fields.size(); ++i) {
              if (isLiteralExpr(e.args[i])) {
                vals.push_back({});
                continue;
              }
              vals.push_back(moveOrCopy(e.args[i], kNoTy));
              if (!vals.back().ok()) return {};
              u.run(it.fields[i].type, vals.back().ty);
            }
            // A field written only with literals takes the literal's own type.
            for (size_t i = 0; i < e.args.size() && i < it.fields.size(); ++i) {
              if (vals[i].ok()) continue;
              const ast::TypeNode &ft = P.files[r.file]->ast.type(it.fields[i].type);
              if (ft.kind == ast::TypeKind::Named && ft.args.empty()) env.types.emplace(ft.name, literalDefault(e.args[i]));
            }
            std::vector<Ty> targs;
            for (const auto &gp : it.generics) {
              auto f = env.types.find(gp.name);
              if (f == env.types.end()) {
                error(e.span.loc(), "E-INFER", "cannot infer " + gp.name + " of " + it.name);
                return {};
              }
              targs.push_back(f->second);
            }
            Ty rt = P.recordOf(r, targs, file, e.span.loc());
            P.leaves(rt);  // resolves the instance's fields
            const sema::RecInst &ri = P.recs[P.type(rt).inst];
            if (e.args.size() != ri.fields.size()) {
              error(e.span.loc(), "E-ARITY", ri.name + " has " + std::to_string(ri.fields.size()) + " fields");
              return {};
            }
            Val out{rt, {}};
            for (size_t i = 0; i < ri.fields.size(); ++i) {
              Val fv = vals[i].ok() ? vals[i] : expr(e.args[i], ri.fields[i].ty);
              if (!fv.ok()) return {};
              if (differ(fv.ty, ri.fields[i].ty)) {
                error(A.expr(e.args[i]).span.loc(), "E-TYPE-MISMATCH",
                      "Expected " + P.typeName(ri.fields[i].ty) + ", got " + P.typeName(fv.ty) + ".");
                return {};
              }
              if (fv.ty != ri.fields[i].ty) return {};  // an error type, reported already
              out.leaves.insert(out.leaves.end(), fv.leaves.begin(), fv.leaves.end());
            }
            return out;
          }
          return construct(id, P.recordOf(r, {}, file, e.span.loc()), e.args);
        }
      }
      if (isTraitMember(c.text)) {
        unsupported(e.span.loc(), "a trait member (" + c.text + "): traits and impl blocks");
        return {};
      }
      error(c.span.loc(), "E-NAME", "unknown function " + c.text);
      return {};
    }
    error(c.span.loc(), "E-TYPE", c.text + " is not a function");
    return {};
  }
  if (c.kind == ast::ExprKind::Inst) {
    const ast::Expr &base = A.expr(c.a);
    if (base.kind == ast::ExprKind::Name && base.text == "Buf") {
      Ty t = resolveTypeExpr(e.a);
      if (t == kNoTy) return {};
      if (e.args.size() != 1) {
        error(e.span.loc(), "E-ARITY", "Buf[T](n) takes the element count");
        return {};
      }
      Val n = exprScalar(e.args[0], P.scalar(sema::Sc::Usize));
      if (!n.ok()) return {};
      if (n.ty != P.scalar(sema::Sc::Usize)) {
        error(A.expr(e.args[0]).span.loc(), "E-TYPE-MISMATCH", "Expected usize, got " + P.typeName(n.ty) + ".");
        return {};
      }
      Ty elem = P.type(t).elem;
      NodeId h = node(Op::Alloc, {n.leaves[0]}, DType::None, "buf");
      for (const sema::Leaf &l : P.leaves(elem)) g->addDim(h, l.own ? Graph::kOwnColumn : static_cast<int64_t>(l.dt));
      return Val{t, {h}};
    }
    if (base.kind == ast::ExprKind::Name && (base.text == "mmio_read" || base.text == "mmio_write")) {
      unsupported(e.span.loc(), base.text);
      return {};
    }
    // f[T](...) or Name[T](...) record constructors
    std::string name = base.kind == ast::ExprKind::Name ? base.text : std::string();
    sema::ItemRef r;
    if (base.kind == ast::ExprKind::Name) r = P.lookup(file, base.text);
    else if (base.kind == ast::ExprKind::Field && A.expr(base.a).kind == ast::ExprKind::Name)
      r = P.lookupQualified(file, A.expr(base.a).text, base.text);
    if (r.valid() && P.item(r).kind == ast::ItemKind::Fn) {
      std::vector<Ty> targs;
      for (const auto &ga : A.moreOf(c).gargs) targs.push_back(ga.type.valid() ? P.resolveType(file, ga.type, F.env) : kNoTy);
      return callFn(id, r, targs, e.args, expect, std::nullopt);
    }
    if (r.valid() && P.item(r).kind == ast::ItemKind::Struct) {
      Ty t = resolveTypeExpr(e.a);
      if (t == kNoTy) return {};
      return construct(id, t, e.args);
    }
    error(c.span.loc(), "E-NAME", "unknown generic function or type");
    return {};
  }
  if (c.kind == ast::ExprKind::Index) {
    // f[T](...) where the parser could not know f is generic: vec.new[u64]()
    const ast::Expr &base = A.expr(c.a);
    sema::ItemRef r;
    if (base.kind == ast::ExprKind::Name && !findLocal(base.text)) r = P.lookup(file, base.text);
    else if (base.kind == ast::ExprKind::Field && A.expr(base.a).kind == ast::ExprKind::Name &&
             P.isModuleAlias(file, A.expr(base.a).text))
      r = P.lookupQualified(file, A.expr(base.a).text, base.text);
    if (r.valid() && (P.item(r).kind == ast::ItemKind::Fn || P.item(r).kind == ast::ItemKind::Struct)) {
      Ty t = typeFromExpr(c.b);
      if (t == kNoTy) return {};
      if (P.item(r).kind == ast::ItemKind::Fn) return callFn(id, r, {t}, e.args, expect, std::nullopt);
      return construct(id, P.recordOf(r, {t}, file, e.span.loc()), e.args);
    }
    error(c.span.loc(), "E-CALL", "this expression cannot be called");
    return {};
  }
  if (c.kind == ast::ExprKind::Field) {
    const ast::Expr &b = A.expr(c.a);
    // Enum.Variant(payload), Sum[T].Variant(payload)
    if (b.kind == ast::ExprKind::Inst) {
      Ty t = resolveTypeExpr(c.a);
      if (t == kNoTy) return {};
      if (P.type(t).k == sema::TK::Sum) return variant(id, t, UINT32_MAX, e.args);
    }
    if (b.kind == ast::ExprKind::Name && !findLocal(b.text)) {
      sema::ItemRef r = P.lookup(file, b.text);
      if (r.valid() && P.item(r).kind == ast::ItemKind::Enum) {
        if (!P.item(r).generics.empty()) {
          if (expect != kNoTy && P.type(expect).k == sema::TK::Sum && P.sums[P.type(expect).inst].item.id == r.id)
            return variant(id, expect, UINT32_MAX, e.args);
          // infer from the payload
          noteCall(id, check::CallKind::Variant, P.item(r).name, e.args);
          const ast::Item &it = P.item(r);
          for (const auto &v : it.variants)
            if (v.name == c.text && v.payload.valid() && e.args.size() == 1) {
              Val pv = moveOrCopy(e.args[0], kNoTy);
              if (!pv.ok()) return {};
              sema::GenericEnv env;
              Unify u{P, r.file, it, env};
              u.run(v.payload, pv.ty);
              std::vector<Ty> targs;
              for (const auto &gp : it.generics) {
                auto f = env.types.find(gp.name);
                if (f == env.types.end()) {
                  error(e.span.loc(), "E-INFER", "cannot infer " + gp.name + " of " + it.name);
                  return {};
                }
                targs.push_back(f->second);
              }
              Ty st = P.recordOf(r, targs, file, e.span.loc());
              P.leaves(st);
              const sema::SumInst &si = P.sums[P.type(st).inst];
              Val out = zeroVal(st);
              if (P.hasError(st)) return {};
              for (uint32_t k = 0; k < si.variants.size(); ++k)
                if (si.variants[k].name == c.text && si.variants[k].payload == pv.ty) {
                  out.leaves[0] = konst(DType::U32, k);
                  for (size_t j = 0; j < pv.leaves.size(); ++j) out.leaves[si.variants[k].leaf + j] = pv.leaves[j];
                }
              return out;
            }
          error(e.span.loc(), "E-INFER", "write the generic arguments: " + b.text + "[T]." + c.text + "(...)");
          return {};
        }
        return variant(id, P.recordOf(r, {}, file, e.span.loc()), UINT32_MAX, e.args);
      }
      if (P.isModuleAlias(file, b.text)) {
        sema::ItemRef q = P.lookupQualified(file, b.text, c.text);
        if (q.valid() && P.item(q).kind == ast::ItemKind::Fn) return callFn(id, q, {}, e.args, expect, std::nullopt);
        if (q.valid() && P.item(q).kind == ast::ItemKind::Struct && P.item(q).generics.empty())
          return construct(id, P.recordOf(q, {}, file, e.span.loc()), e.args);
        error(c.span.loc(), "E-NAME", b.text + " has no function " + c.text);
        return {};
      }
      if (r.valid() && P.item(r).kind == ast::ItemKind::Layout) {
        uint64_t v = 0;  // size(), cosize(), ... are constants (lower/check/layouts.cpp)
        if (P.constValue(file, id, F.env, v)) return Val{P.scalar(sema::Sc::Usize), {u64c(v)}};
        unsupported(e.span.loc(), "a layout");
        return {};
      }
    }
    // A method: x.f(args) is f(x, args), f from the module declaring x's type.
    Ty rt = kNoTy;
    if (b.kind == ast::ExprKind::Name) rt = typeOfName(b.text);
    if (rt == kNoTy) {
      std::optional<Place> p = place(c.a, false);
      if (!p) return {};
      rt = p->ty;
    }
    sema::ItemRef m = P.methodOf(rt, c.text);
    if (!m.valid()) {
      // a builtin in method position: v.len()
      bool handled = false;
      std::vector<ast::ExprId> args{c.a};
      args.insert(args.end(), e.args.begin(), e.args.end());
      noteCall(id, check::CallKind::Builtin, c.text, args);
      Val v = builtin(id, c.text, args, expect, handled);
      if (handled) return v;
      facts->calls.erase(id.v);
      if (isTraitMember(c.text)) {
        unsupported(e.span.loc(), "a trait member (" + c.text + "): traits and impl blocks");
        return {};
      }
      error(c.span.loc(), "E-NAME", P.typeName(rt) + " has no method " + c.text);
      return {};
    }
    return callFn(id, m, {}, e.args, expect, c.a);
  }
  error(c.span.loc(), "E-CALL", "this expression cannot be called");
  return {};
}

Val FnLowerer::construct(ast::ExprId id, Ty recTy, const std::vector<ast::ExprId> &args) {
  noteCall(id, check::CallKind::Construct, facts->names.emplace_back(P.typeName(recTy)), args);
  const ast::Expr &e = A.expr(id);
  const sema::TypeRec &r = P.type(recTy);
  if (r.k != sema::TK::Record) return {};
  P.leaves(recTy);
  const sema::RecInst ri = P.recs[r.inst];
  if (args.size() != ri.fields.size()) {
    error(e.span.loc(), "E-ARITY", ri.name + " has " + std::to_string(ri.fields.size()) + " fields; got " +
                                       std::to_string(args.size()) + " values");
    return {};
  }
  Val out{recTy, {}};
  for (size_t i = 0; i < args.size(); ++i) {
    if (P.hasError(ri.fields[i].ty)) return {};  // the field's error is reported
    Val v = moveOrCopy(args[i], ri.fields[i].ty);
    if (!v.ok()) return {};
    if (differ(v.ty, ri.fields[i].ty)) {
      error(A.expr(args[i]).span.loc(), "E-TYPE-MISMATCH",
            "Expected " + P.typeName(ri.fields[i].ty) + ", got " + P.typeName(v.ty) + ".");
      return {};
    }
    if (v.ty != ri.fields[i].ty) return {};  // an error type, reported already
    out.leaves.insert(out.leaves.end(), v.leaves.begin(), v.leaves.end());
  }
  return out;
}

Val FnLowerer::variant(ast::ExprId id, Ty sumTy, uint32_t, const std::vector<ast::ExprId> &args) {
  noteCall(id, check::CallKind::Variant, P.typeName(sumTy), args);
  const ast::Expr &e = A.expr(id);
  // id is the Field (tag only) or the Call whose callee is the Field.
  const ast::Expr &f = e.kind == ast::ExprKind::Call ? A.expr(e.a) : e;
  P.leaves(sumTy);
  const sema::SumInst si = P.sums[P.type(sumTy).inst];
  for (uint32_t k = 0; k < si.variants.size(); ++k) {
    if (si.variants[k].name != f.text) continue;
    const sema::Variant &v = si.variants[k];
    Val out = zeroVal(sumTy);
    out.leaves[0] = konst(DType::U32, k);
    size_t want = v.payload == kNoTy ? 0 : 1;
    if (args.size() != want) {
      error(e.span.loc(), "E-ARITY", si.name + "." + v.name + (want ? " takes one payload" : " takes no payload"));
      return {};
    }
    if (want) {
      Val pv = moveOrCopy(args[0], v.payload);
      if (!pv.ok()) return {};
      if (differ(pv.ty, v.payload)) {
        error(A.expr(args[0]).span.loc(), "E-TYPE-MISMATCH",
              "Expected " + P.typeName(v.payload) + ", got " + P.typeName(pv.ty) + ".");
        return {};
      }
      if (pv.ty != v.payload) return {};  // an error type, reported already
      for (size_t j = 0; j < pv.leaves.size(); ++j) out.leaves[v.leaf + j] = pv.leaves[j];
    }
    return out;
  }
  error(f.span.loc(), "E-NAME", si.name + " has no variant " + f.text);
  return {};
}

Val FnLowerer::convert(ast::ExprId id, sema::Sc to, ast::ExprId arg) {
  noteCall(id, check::CallKind::Convert, std::string(sema::scName(to)), {arg});
  const ast::Expr &e = A.expr(id);
  Ty tt = P.scalar(to);
  if (isLiteralExpr(arg)) return literal(arg, tt);
  Val v = exprScalar(arg);
  if (!v.ok()) return {};
  sema::Sc from = P.type(v.ty).sc;
  DType fd = sema::dtypeOf(from), td = sema::dtypeOf(to);
  if (from == sema::Sc::Bool || to == sema::Sc::Bool) {
    if (from != to) {
      error(e.span.loc(), "E-TYPE", "no conversion between bool and " + P.typeName(from == sema::Sc::Bool ? tt : v.ty) +
                                        "; compare instead");
      return {};
    }
    return Val{tt, v.leaves};
  }
  if (fd == td) return Val{tt, v.leaves};
  if (isFloat(td)) return Val{tt, {node(Op::Cast, {v.leaves[0]}, td, "conv")}};
  // to an integer: widening needs no check
  bool widen = !isFloat(fd) && ((isUnsigned(fd) && (isUnsigned(td) ? dtypeBits(td) >= dtypeBits(fd) : dtypeBits(td) > dtypeBits(fd))) ||
                                (isSigned(fd) && isSigned(td) && dtypeBits(td) >= dtypeBits(fd)));
  return Val{tt, {node(widen ? Op::Cast : Op::CheckedCast, {v.leaves[0]}, td, "conv")}};
}

}  // namespace cairn::lower
