// Calls of functions and externs (argument passing, generic inference,
// extents written in, guards, call_write + after for every rw view), and
// the builtins. See call.cpp for the forms a call can take.
#include "lower/fn.hpp"

namespace cairn::lower {

namespace {
struct ArgV {
  enum K : uint8_t { None, Value, Array, Borrow } k = None;
  Val val;
  Arr arr;
  Place place;
  bool deferred = false;
  ast::ExprId expr;
};
}  // namespace

// Whether every generic parameter of `it` that written type t mentions is
// bound in env (so t can be resolved to the instance's type).
bool FnLowerer::boundIn(const ast::Module &M, ast::TypeId t, const ast::Item &it, const sema::GenericEnv &env) const {
  if (!t.valid()) return true;
  const ast::TypeNode &tn = M.type(t);
  if (tn.kind == ast::TypeKind::View || tn.kind == ast::TypeKind::Storage) return boundIn(M, tn.elem, it, env);
  if (tn.kind != ast::TypeKind::Named) return true;
  for (const auto &g : it.generics)
    if (g.name == tn.name && !env.types.count(tn.name) && !env.nats.count(tn.name)) return false;
  for (const auto &ga : tn.args)
    if (ga.type.valid() && !boundIn(M, ga.type, it, env)) return false;
  return true;
}

Val FnLowerer::callFn(ast::ExprId id, sema::ItemRef fn, const std::vector<Ty> &explicitArgs,
                      const std::vector<ast::ExprId> &args, Ty expect, std::optional<ast::ExprId> receiver) {
  const ast::Expr &e = A.expr(id);
  const ast::Item &it = P.item(fn);
  const ast::Module &CA = P.files[fn.file]->ast;
  std::vector<ast::ExprId> all;
  if (receiver) all.push_back(*receiver);
  all.insert(all.end(), args.begin(), args.end());
  sema::GenericEnv env;
  for (size_t i = 0; i < explicitArgs.size() && i < it.generics.size(); ++i)
    if (explicitArgs[i] != kNoTy) env.types[it.generics[i].name] = explicitArgs[i];
  if (fn.file != file && !it.isPub) {
    error(e.span.loc(), "E-PRIVATE",
          it.name + " is not pub in " + P.files[fn.file]->moduleName +
              ": a module's items other than pub ones are its own. Call one of its pub functions instead.");
    return {};
  }
  size_t np = it.params.size();
  // Extent parameters: usize parameters named by a view parameter's extent.
  std::vector<char> isExtent(np, 0);
  for (size_t j = 0; j < np; ++j) {
    const ast::TypeNode &tn = CA.type(it.params[j].type);
    if (tn.kind != ast::TypeKind::View || !tn.extent.valid()) continue;
    const ast::Expr &x = CA.expr(tn.extent);
    if (x.kind != ast::ExprKind::Name) continue;
    for (size_t i = 0; i < np; ++i)
      if (it.params[i].name == x.text && i != j) isExtent[i] = 1;
  }
  size_t nExt = 0;
  for (char c : isExtent) nExt += c;
  std::vector<int> argOf(np, -1);
  if (all.size() == np) {
    for (size_t i = 0; i < np; ++i) argOf[i] = static_cast<int>(i);
  } else if (nExt && all.size() + nExt == np && !it.isExtern) {
    size_t k = 0;
    for (size_t i = 0; i < np; ++i)
      if (!isExtent[i]) argOf[i] = static_cast<int>(k++);
  } else {
    error(e.span.loc(), "E-ARITY", it.name + " takes " + std::to_string(np) + " argument(s), got " +
                                       std::to_string(all.size()) +
                                       (nExt && !it.isExtern ? " (a call passes all its extents or none)" : ""));
    return {};
  }
  Unify u{P, fn.file, it, env};
  std::vector<ArgV> av(np);
  for (size_t i = 0; i < np; ++i) {
    if (argOf[i] < 0) continue;
    ast::ExprId a = all[argOf[i]];
    av[i].expr = a;
    const ast::TypeNode &tn = CA.type(it.params[i].type);
    if (tn.writable && tn.kind == ast::TypeKind::View &&
        (tn.extent.valid() ? A.expr(a).kind == ast::ExprKind::Str
                           : A.expr(a).kind != ast::ExprKind::Name && A.expr(a).kind != ast::ExprKind::Field &&
                                 A.expr(a).kind != ast::ExprKind::Index)) {
      error(A.expr(a).span.loc(), "E-CALL-VIEW",
            "An rw parameter and a view of an array need a place, or a string literal for an ro<u8>[n]: " +
                it.params[i].name + " of " + it.name + " is rw, so pass a local, a field or an element.");
      return {};
    }
    if (tn.kind == ast::TypeKind::View && tn.extent.valid()) {
      std::optional<Arr> arr = array(a);
      if (!arr) return {};
      if (tn.writable && !arr->writable) {
        error(A.expr(a).span.loc(), "E-IMMUTABLE", "a rw view needs a mutable array (declare it `let mut`)");
        return {};
      }
      av[i].k = ArgV::Array;
      av[i].arr = *arr;
      u.run(tn.elem, arr->elem);
    } else if (tn.kind == ast::TypeKind::View) {
      ast::ExprKind ak = A.expr(a).kind;
      if (!tn.writable && ak != ast::ExprKind::Name && ak != ast::ExprKind::Field && ak != ast::ExprKind::Index) {
        // An ro<T> parameter also takes a temporary: its value in a fresh cell.
        Ty want = it.generics.empty() ? P.resolveType(fn.file, tn.elem, env) : kNoTy;
        Val v = moveOrCopy(a, want);
        if (!v.ok()) return {};
        Place tp = cellPlace(v.ty, "", false, "tmp");
        storePlace(tp, v);
        tp.writable = false;
        av[i].k = ArgV::Borrow;
        av[i].place = tp;
        u.run(tn.elem, v.ty);
        continue;
      }
      std::optional<Place> p = place(a, tn.writable);
      if (!p) return {};
      if (tn.writable && !p->writable) {
        error(A.expr(a).span.loc(), "E-IMMUTABLE", "a rw borrow needs a mutable place (declare it `let mut`)");
        return {};
      }
      av[i].k = ArgV::Borrow;
      av[i].place = *p;
      u.run(tn.elem, p->ty);
    } else {
      av[i].k = ArgV::Value;
      if (isLiteralExpr(a)) {
        av[i].deferred = true;
        continue;
      }
      // The parameter's type, once every generic in it is bound by the
      // arguments before this one: Pair(7, 8) then takes Pair[u32, u8].
      Ty want = boundIn(CA, it.params[i].type, it, env) ? P.resolveType(fn.file, it.params[i].type, env) : kNoTy;
      const ast::Expr &ax = A.expr(a);
      if (ax.kind == ast::ExprKind::Name)
        if (Local *l = findLocal(ax.text); l && l->k == Local::Array) {
          unsupported(ax.span.loc(), "passing a fixed array by value");
          return {};
        }
      av[i].val = moveOrCopy(a, want);
      if (!av[i].val.ok()) return {};
      u.run(it.params[i].type, av[i].val.ty);
    }
  }
  if (expect != kNoTy && it.ret.valid()) u.run(it.ret, expect);
  // A generic parameter given only literals takes the literal's own type.
  for (size_t i = 0; i < np; ++i) {
    if (!av[i].deferred) continue;
    const ast::TypeNode &pt = CA.type(it.params[i].type);
    if (pt.kind != ast::TypeKind::Named || !pt.args.empty()) continue;
    for (const auto &gp : it.generics)
      if (gp.name == pt.name) env.types.emplace(pt.name, literalDefault(av[i].expr));
  }
  for (size_t i = 0; i < np; ++i) {
    if (!av[i].deferred) continue;
    for (const auto &gp : it.generics)
      if (!env.types.count(gp.name) && !env.nats.count(gp.name)) {
        error(e.span.loc(), "E-INFER", "cannot infer " + gp.name + " of " + it.name + ": write " + it.name + "[...](...)");
        return {};
      }
    av[i].val = literal(av[i].expr, P.resolveType(fn.file, it.params[i].type, env));
    if (!av[i].val.ok()) return {};
  }
  // A [T:copy] parameter takes only types that hold no owner and are not linear.
  for (const auto &gp : it.generics) {
    auto bound = env.types.find(gp.name);
    if (bound == env.types.end()) continue;
    for (const std::string &b : gp.bounds)
      if (b == "copy" && !P.isCopy(bound->second) && !P.hasError(bound->second)) {
        error(e.span.loc(), "E-BOUND", P.typeName(bound->second) + " is not copy; " + it.name + " needs [" + gp.name + ":copy].");
        return {};
      }
  }
  int fi = L.instance(fn, env, file, e.span.loc());
  if (fi < 0) return {};
  const FnInst &inst = L.fns[fi];  // stays valid: fns is a deque
  // Extents left out: len of the first view with that extent.
  for (size_t i = 0; i < np; ++i) {
    if (argOf[i] >= 0) continue;
    for (size_t j = 0; j < np; ++j)
      if (inst.params[j].k == FnInst::P::Array && inst.params[j].extentName == it.params[i].name && argOf[j] >= 0) {
        av[i].k = ArgV::Value;
        av[i].val = Val{P.scalar(sema::Sc::Usize), {lenOf(av[j].arr)}};
        break;
      }
  }
  {
    check::CallFact cf;
    cf.kind = it.isExtern ? check::CallKind::Extern : check::CallKind::Fn;
    cf.callee = fi;
    cf.name = it.name;
    cf.receiver = receiver.has_value();
    for (size_t i = 0; i < np; ++i) {
      const FnInst::P &pp = inst.params[i];
      check::ArgFact af;
      if (argOf[i] >= 0) af.arg = all[argOf[i]];
      af.rw = pp.rw;
      af.param = pp.name;
      af.extent = pp.extentName;
      af.extentLit = pp.extentLit;
      af.ty = pp.ty;
      af.pass = argOf[i] < 0                         ? check::Pass::Written
                : pp.k == FnInst::P::Array           ? check::Pass::View
                : pp.k == FnInst::P::Value           ? check::Pass::Value
                : av[i].place.leaves.empty() || av[i].expr.valid() ? check::Pass::Borrow
                                                     : check::Pass::Temp;
      if (pp.k == FnInst::P::Borrow) {
        ast::ExprKind ak = A.expr(all[argOf[i]]).kind;
        bool isPlace = ak == ast::ExprKind::Name || ak == ast::ExprKind::Field || ak == ast::ExprKind::Index;
        af.pass = isPlace ? check::Pass::Borrow : check::Pass::Temp;
      }
      if (argOf[i] < 0)
        for (size_t j = 0; j < np; ++j)
          if (inst.params[j].k == FnInst::P::Array && inst.params[j].extentName == it.params[i].name && argOf[j] >= 0) {
            af.viewOf = static_cast<int>(j);
            break;
          }
      cf.args.push_back(std::move(af));
    }
    facts->calls[id.v] = std::move(cf);
  }
  std::vector<Opnd> ops;
  struct RwOp {
    uint32_t operand;
    NodeId root;
    Col col;
  };
  std::vector<RwOp> rws;
  for (size_t i = 0; i < np; ++i) {
    const FnInst::P &pp = inst.params[i];
    ArgV &a = av[i];
    Loc aloc = argOf[i] >= 0 ? A.expr(all[argOf[i]]).span.loc() : e.span.loc();
    if (a.k == ArgV::Value) {
      if (differ(a.val.ty, pp.ty)) {
        error(aloc, "E-TYPE-MISMATCH", "Expected " + P.typeName(pp.ty) + ", got " + P.typeName(a.val.ty) + ".");
        return {};
      }
      if (a.val.ty != pp.ty) return {};  // an error type, reported already
      for (NodeId l : a.val.leaves) ops.push_back(l);
    } else if (a.k == ArgV::Array) {
      if (differ(a.arr.elem, pp.ty)) {
        error(aloc, "E-TYPE-MISMATCH", "Expected a view of " + P.typeName(pp.ty) + ", got one of " + P.typeName(a.arr.elem) + ".");
        return {};
      }
      if (a.arr.elem != pp.ty) return {};  // an error type, reported already
      NodeId want;
      if (!pp.extentName.empty()) {
        for (size_t k = 0; k < np; ++k)
          if (inst.params[k].name == pp.extentName && av[k].k == ArgV::Value && !av[k].val.leaves.empty())
            want = av[k].val.leaves[0];
      } else if (pp.extentLit) {
        want = u64c(pp.extentLit);
      }
      auto sameConst = [&](NodeId x, NodeId y) {
        return g->op(x) == Op::Const && g->op(y) == Op::Const && g->dtype(x) == g->dtype(y) &&
               g->literal(g->operands(x)[0].lit()) == g->literal(g->operands(y)[0].lit());
      };
      // The guard is left out only where it visibly holds: the extent is this
      // very length, or the same constant.
      if (want.valid() && want != lenOf(a.arr) && !sameConst(want, a.arr.len))
        guard(node(Op::Cmpeq, {a.arr.len, want}, DType::None, "fits"),
              "a view of " + it.name + " has the wrong length: " + pp.name + " needs " +
                  (pp.extentName.empty() ? std::to_string(pp.extentLit) : pp.extentName) + " elements");
      for (const Col &c : a.arr.cols) {
        NodeId root = colView(c);
        NodeId v = root;
        if (a.arr.off.valid())
          v = node(Op::Part, {root, a.arr.off, node(Op::Add, {a.arr.off, a.arr.len}, DType::None, "hi")}, DType::None, "part");
        if (pp.rw) rws.push_back({static_cast<uint32_t>(ops.size()), root, c});
        ops.push_back(v);
      }
    } else if (a.k == ArgV::Borrow) {
      if (differ(a.place.ty, pp.ty)) {
        error(aloc, "E-TYPE-MISMATCH", "Expected " + P.typeName(pp.ty) + ", got " + P.typeName(a.place.ty) + ".");
        return {};
      }
      if (a.place.ty != pp.ty) return {};  // an error type, reported already
      for (const Col &c : a.place.leaves) {
        NodeId root = colView(c);
        NodeId v = root;
        if (a.place.partLo.valid()) v = node(Op::Part, {v, a.place.partLo, a.place.partHi}, DType::None, "part");
        if (a.place.idx.valid())
          v = node(Op::Part, {v, a.place.idx, node(Op::Add, {a.place.idx, u64c(1)}, DType::None, "hi")}, DType::None, "one");
        if (pp.rw) rws.push_back({static_cast<uint32_t>(ops.size()), root, c});
        ops.push_back(v);
      }
    } else {
      error(e.span.loc(), "E-ARITY", "missing argument " + it.params[i].name + " of " + it.name);
      return {};
    }
  }
  Place res;
  if (inst.sret) {
    res = cellPlace(inst.ret, "", false, "res");
    for (const Col &c : res.leaves) {
      NodeId root = colView(c);
      rws.push_back({static_cast<uint32_t>(ops.size()), root, c});
      ops.push_back(root);
    }
  }
  // Two rw views of one cell storage (parts of one stack array) would need
  // two writes into one version; the graph has no form for it yet. The
  // checking layer reports it (after E-ALIAS, which may explain it better).
  for (size_t i = 0; i < rws.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if (rws[i].col.k == Col::Cell && rws[i].root == rws[j].root && rws[i].operand != rws[j].operand &&
          !(inst.sret && rws[i].operand >= ops.size() - P.leaves(inst.ret).size())) {
        facts->calls[id.v].sharedRwCell = true;  // the checker refuses it: E-ALIAS, else E-UNSUPPORTED
      }
  const sema::TypeRec &rt = P.type(inst.ret);
  DType rdt = (rt.k == sema::TK::Scalar || rt.k == sema::TK::Buf) ? P.leaves(inst.ret)[0].dt : DType::None;
  NodeId c = nodeV(Op::Call, ops, rdt, "call");
  g->setText(c, inst.name);
  for (const RwOp &w : rws) {
    NodeId cw = node(Op::CallWrite, {c, Opnd::ofU64(w.operand)}, DType::None, "wrote");
    NodeId after = node(Op::After, {w.root, cw}, DType::None, "v");
    if (w.col.k == Col::Cell) storages[w.col.storage].cur = after;
  }
  if (inst.sret) return loadPlace(res);
  if (rdt != DType::None) return Val{inst.ret, {c}};
  return Val{P.unit(), {}};
}

Val FnLowerer::builtin(ast::ExprId id, const std::string &name, const std::vector<ast::ExprId> &args, Ty expect,
                       bool &handled) {
  const ast::Expr &e = A.expr(id);
  handled = true;
  Ty us = P.scalar(sema::Sc::Usize);
  auto arity = [&](size_t n) {
    if (args.size() == n) return true;
    error(e.span.loc(), "E-ARITY", name + " takes " + std::to_string(n) + " argument(s)");
    return false;
  };
  // Two operands of one integer type (literals take the other's type).
  auto pair = [&](Val &a, Val &b) {
    if (isLiteralExpr(args[0]) && !isLiteralExpr(args[1])) {
      b = exprScalar(args[1], expect);
      if (!b.ok()) return false;
      a = exprScalar(args[0], b.ty);
    } else {
      a = exprScalar(args[0], expect);
      if (!a.ok()) return false;
      b = exprScalar(args[1], a.ty);
    }
    if (!a.ok() || !b.ok()) return false;
    if (a.ty != b.ty) {
      error(A.expr(args[1]).span.loc(), "E-TYPE-MISMATCH", "Expected " + P.typeName(a.ty) + ", got " + P.typeName(b.ty) + ".");
      return false;
    }
    if (!sema::scInt(P.type(a.ty).sc)) {
      error(e.span.loc(), "E-TYPE", name + " takes integers; got " + P.typeName(a.ty));
      return false;
    }
    return true;
  };
  if (name == "len") {
    if (!arity(1)) return {};
    std::optional<Arr> a = array(args[0]);
    if (!a) return {};
    return Val{us, {lenOf(*a)}};
  }
  if (name == "add_wrap" || name == "sub_wrap" || name == "mul_wrap" || name == "min" || name == "max") {
    if (!arity(2)) return {};
    Val a, b;
    if (!pair(a, b)) return {};
    Op op = name == "add_wrap" ? Op::Add : name == "sub_wrap" ? Op::Sub : name == "mul_wrap" ? Op::Mul
            : name == "min" ? Op::Min : Op::Max;
    return Val{a.ty, {node(op, {a.leaves[0], b.leaves[0]}, DType::None, "w")}};
  }
  if (name == "shl_wrap" || name == "shr") {
    if (!arity(2)) return {};
    Val x = exprScalar(args[0], expect);
    if (!x.ok()) return {};
    Val n = exprScalar(args[1], us);
    if (!n.ok()) return {};
    if (!sema::scInt(P.type(x.ty).sc) || n.ty != us) {
      error(e.span.loc(), "E-TYPE", name + "(x, count) takes an integer and a usize count");
      return {};
    }
    DType dt = sema::dtypeOf(P.type(x.ty).sc);
    int w = dtypeBits(dt);
    guard(node(Op::Cmplt, {n.leaves[0], u64c(static_cast<uint64_t>(w))}, DType::None, "ok"),
          "shift count out of range (at most " + std::to_string(w - 1) + ")");
    NodeId cnt = dt == DType::U64 ? n.leaves[0] : node(Op::Cast, {n.leaves[0]}, dt, "count");
    return Val{x.ty, {node(name == "shr" ? Op::Shr : Op::Shl, {x.leaves[0], cnt}, DType::None, "sh")}};
  }
  if (name == "take") {
    if (!arity(1)) return {};
    std::optional<Place> p = place(args[0], true);
    if (!p) return {};
    if (!p->writable) {
      error(A.expr(args[0]).span.loc(), "E-IMMUTABLE", "take needs a mutable place");
      return {};
    }
    Val v = loadPlace(*p);
    storePlace(*p, zeroVal(p->ty));
    return v;
  }
  if (name == "swap") {
    if (!arity(2)) return {};
    // A place swapped with one inside it would come to hold itself.
    if (mayLieInside(args[0], args[1]) || mayLieInside(args[1], args[0])) {
      error(e.span.loc(), "E-ALIAS",
            "swap never exchanges a place with one that may lie inside it: the outer one would come to hold itself");
      return {};
    }
    std::optional<Place> a = place(args[0], true);
    if (!a) return {};
    std::optional<Place> b = place(args[1], true);
    if (!b) return {};
    if (a->ty != b->ty) {
      error(e.span.loc(), "E-TYPE-MISMATCH", "swap takes two places of one type; got " + P.typeName(a->ty) + " and " +
                                                 P.typeName(b->ty));
      return {};
    }
    if (!a->writable || !b->writable) {
      error(e.span.loc(), "E-IMMUTABLE", "swap needs two mutable places");
      return {};
    }
    Val va = loadPlace(*a), vb = loadPlace(*b);
    storePlace(*a, vb);
    storePlace(*b, va);
    return Val{P.unit(), {}};
  }
  if (name == "print" || name == "println") {
    for (ast::ExprId a : args) {
      const ast::Expr &x = A.expr(a);
      bool arrayLike = x.kind == ast::ExprKind::Str || x.kind == ast::ExprKind::Part;
      if (x.kind == ast::ExprKind::Name)
        if (Local *l = findLocal(x.text))
          arrayLike = l->k == Local::Array || P.type(l->ty).k == sema::TK::Buf ||
                      (P.type(l->ty).k == sema::TK::Record && (P.leaves(l->ty), P.recs[P.type(l->ty).inst].lends));
      if (x.kind == ast::ExprKind::Int && x.isChar) {
        NodeId ch = node(Op::Buffer, {Opnd::ofU64(1)}, DType::U8, "char");
        Literal l;
        l.magnitude = x.intValue & 0xff;
        g->addData(ch, l);
        g->markHasData(ch);
        node(Op::Print, {ch}, DType::None, "print");
        continue;
      }
      std::optional<Arr> arr;
      if (!arrayLike && (x.kind == ast::ExprKind::Field || x.kind == ast::ExprKind::Index)) {
        // A Buf or lent record reached through a field or an element prints
        // as its bytes and stays where it is; the place is found once.
        std::optional<Place> p = place(a, false);
        if (!p) return {};
        const sema::TypeRec &pr = P.type(p->ty);
        if (pr.k == sema::TK::Buf) {
          arr = arrOfBuf(pr.elem, loadPlace(*p).leaves[0], false);
        } else if (pr.k == sema::TK::Record && (P.leaves(p->ty), P.recs[pr.inst].lends)) {
          arr = lentArr(*p);
        } else if (pr.k == sema::TK::Scalar) {
          node(Op::Print, {loadPlace(*p).leaves[0]}, DType::None, "print");
          continue;
        } else {
          if (!P.hasError(p->ty)) error(x.span.loc(), "E-TYPE", "print takes scalars and u8 views; this is a " + P.typeName(p->ty));
          return {};
        }
      } else if (arrayLike) {
        arr = array(a);
        if (!arr) return {};
      }
      if (arr) {
        if (arr->elem != P.scalar(sema::Sc::U8)) {
          error(x.span.loc(), "E-TYPE", "print writes the bytes of a u8 view; this one holds " + P.typeName(arr->elem));
          return {};
        }
        NodeId v = colView(arr->cols[0]);
        if (arr->off.valid()) v = node(Op::Part, {v, arr->off, node(Op::Add, {arr->off, lenOf(*arr)}, DType::None, "hi")}, DType::None, "part");
        if (arr->cols.empty()) continue;
        node(Op::Print, {v}, DType::None, "print");
      } else {
        Val v = exprScalar(a);
        if (!v.ok()) return {};
        node(Op::Print, {v.leaves[0]}, DType::None, "print");
      }
    }
    if (name == "println") {
      NodeId nl = node(Op::Buffer, {Opnd::ofU64(1)}, DType::U8, "newline");
      Literal l;
      l.magnitude = 10;
      g->addData(nl, l);
      g->markHasData(nl);
      node(Op::Print, {nl}, DType::None, "print");
    }
    return Val{P.unit(), {}};
  }
  if ((name == "asm" || name == "transfer" || name == "wait" || name == "spawn" || name == "mmio_read" ||
       name == "mmio_write") &&
      !P.lookup(file, name).valid()) {  // a user function may take these names
    unsupported(e.span.loc(), name);
    return {};
  }
  handled = false;
  return {};
}

}  // namespace cairn::lower
