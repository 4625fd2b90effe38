// Places and arrays: what a name, a field, an element or a part refers to.
//
// A place is a list of leaf locations plus one element index; an array is
// a list of columns plus a window [off, off + len). Parts narrow the window
// and carry their guard (lo <= hi <= len) where they are written; a lent
// record becomes the part of its Buf field that its `lends` names, with the
// same guard, read at every use.
#include "lower/fn.hpp"

namespace cairn::lower {

static std::string partMsg(const char *what) {
  return std::string(what) + " out of range: a part xs[lo..hi] needs lo <= hi <= len(xs)";
}

// The guard of a part: lo <= hi <= len. With a column to look at, it is a
// `part` of that column, whose trap names lo, hi and the length; an array
// of no columns (a record of no fields) gets a plain guard.
void FnLowerer::checkWindow(Arr a, NodeId lo, NodeId hi, const std::string &msg) {
  if (a.cols.empty()) {
    NodeId ok = node(Op::And,
                     {node(Op::Neg, {node(Op::Cmplt, {hi, lo}, DType::None, "lt")}, DType::None, "ok"),
                      node(Op::Neg, {node(Op::Cmplt, {lenOf(a), hi}, DType::None, "lt")}, DType::None, "ok")},
                     DType::None, "ok");
    guard(ok, msg);
    return;
  }
  NodeId v = colView(a.cols[0]);
  if (a.off.valid()) v = node(Op::Part, {v, a.off, node(Op::Add, {a.off, a.len}, DType::None, "hi")}, DType::None, "part");
  node(Op::Part, {v, lo, hi}, DType::None, "check");
}

Arr FnLowerer::lentArr(const Place &rec) {
  const sema::RecInst &ri = P.recs[P.type(rec.ty).inst];
  Place data = fieldPlace(rec, static_cast<uint32_t>(ri.lendsField));
  Val h = loadPlace(data);
  Arr a = arrOfBuf(P.type(ri.fields[ri.lendsField].ty).elem, h.leaves[0], rec.writable);
  auto bound = [&](int field, uint64_t lit) {
    if (field < 0) return u64c(lit);
    return loadPlace(fieldPlace(rec, static_cast<uint32_t>(field))).leaves[0];
  };
  NodeId lo = bound(ri.loField, ri.loLit), hi = bound(ri.hiField, ri.hiLit);
  checkWindow(a, lo, hi, "the view " + ri.name + " lends is out of range: its bounds need lo <= hi <= len(" +
                             ri.fields[ri.lendsField].name + ")");
  a.off = lo;
  a.len = node(Op::Sub, {hi, lo}, DType::None, "n");
  return a;
}

static bool isLent(sema::Program &P, Ty t) {
  const sema::TypeRec &r = P.type(t);
  return r.k == sema::TK::Record && (P.leaves(t), P.recs[r.inst].lends);
}

std::optional<Arr> FnLowerer::array(ast::ExprId id) {
  const ast::Expr &e = A.expr(id);
  AtLoc at(cur, e.span.loc());
  switch (e.kind) {
    case ast::ExprKind::Str: {
      Arr a;
      a.elem = P.scalar(sema::Sc::U8);
      a.writable = false;
      NodeId b = node(Op::Buffer, {Opnd::ofU64(e.text.size())}, DType::U8, "text");
      for (unsigned char ch : e.text) {
        Literal l;
        l.magnitude = ch;
        g->addData(b, l);
      }
      g->markHasData(b);
      Col c;
      c.storage = addStorage(Storage{b, b, DType::U8, static_cast<uint32_t>(regions.size()), "", false});
      c.dt = DType::U8;
      a.cols.push_back(c);
      a.len = u64c(e.text.size());
      return a;
    }
    case ast::ExprKind::Name: {
      Local *l = findLocal(e.text);
      if (!l) {
        error(e.span.loc(), "E-NAME", "unknown name " + e.text);
        return std::nullopt;
      }
      if (P.type(l->ty).k == sema::TK::Error) return std::nullopt;  // reported already
      if (l->k == Local::Array) return l->arr;
      if (l->k == Local::Place) {
        const sema::TypeRec &r = P.type(l->ty);
        bool writable = l->place.writable && !(l->owns && !l->mut);
        Place p = l->place;
        p.writable = writable;
        if (r.k == sema::TK::Buf) return arrOfBuf(r.elem, loadPlace(p).leaves[0], writable);
        if (isLent(P, l->ty)) return lentArr(p);
      }
      error(e.span.loc(), "E-TYPE-MISMATCH", e.text + " is a " + P.typeName(l->ty) + ", not an array");
      return std::nullopt;
    }
    case ast::ExprKind::Field:
    case ast::ExprKind::Index: {
      std::optional<Place> p = place(id, false);
      if (!p) return std::nullopt;
      const sema::TypeRec &r = P.type(p->ty);
      if (r.k == sema::TK::Buf) return arrOfBuf(r.elem, loadPlace(*p).leaves[0], p->writable);
      if (isLent(P, p->ty)) return lentArr(*p);
      error(e.span.loc(), "E-TYPE-MISMATCH", "this is a " + P.typeName(p->ty) + ", not an array");
      return std::nullopt;
    }
    case ast::ExprKind::Part: {
      std::optional<Arr> a = array(e.a);
      if (!a) return std::nullopt;
      Ty us = P.scalar(sema::Sc::Usize);
      Val lo = exprScalar(e.b, us);
      Val hi = exprScalar(e.c, us);
      if (!lo.ok() || !hi.ok()) return std::nullopt;
      if (lo.ty != us || hi.ty != us) {
        error(e.span.loc(), "E-TYPE-MISMATCH", "the bounds of a part are usize");
        return std::nullopt;
      }
      NodeId l = lo.leaves[0], h = hi.leaves[0];
      checkWindow(*a, l, h, partMsg("part"));
      Arr out = *a;
      out.off = a->off.valid() ? node(Op::Add, {a->off, l}, DType::None, "off") : l;
      out.len = node(Op::Sub, {h, l}, DType::None, "n");
      return out;
    }
    case ast::ExprKind::Call: {
      const ast::Expr &c = A.expr(e.a);
      if (c.kind == ast::ExprKind::Inst && A.expr(c.a).kind == ast::ExprKind::Name && A.expr(c.a).text == "Array") {
        Ty t = resolveTypeExpr(e.a);
        if (t == kNoTy) return std::nullopt;
        const sema::TypeRec &r = P.type(t);
        if (!e.args.empty()) {
          error(e.span.loc(), "E-ARITY", "Array[T, N]() takes no arguments");
          return std::nullopt;
        }
        Arr a;
        a.elem = r.elem;
        a.len = u64c(r.n);
        for (const sema::Leaf &lf : P.leaves(r.elem)) {
          NodeId b = node(Op::Buffer, {Opnd::ofU64(r.n)}, lf.dt, "array");
          Col col;
          col.storage = addStorage(Storage{b, b, lf.dt, static_cast<uint32_t>(regions.size()), "", true});
          col.dt = lf.dt;
          a.cols.push_back(col);
        }
        if (P.holdsOwner(r.elem)) unsupported(e.span.loc(), "an Array of owners");
        return a;
      }
      break;
    }
    default: break;
  }
  error(e.span.loc(), "E-CALL-VIEW", "an array borrow needs a place: a local array, a Buf, a field, an element or a part");
  return std::nullopt;
}

// A fixed array is a value: binding it elsewhere copies its elements.
Arr FnLowerer::copyArr(Arr src, const std::string &var) {
  Arr out;
  out.elem = src.elem;
  out.len = lenOf(src);
  out.writable = true;
  for (const Col &c : src.cols) {
    newCell(c.dt, var, true, "copy", src.len);
    Col nc;
    nc.storage = static_cast<uint32_t>(storages.size() - 1);
    nc.dt = c.dt;
    out.cols.push_back(nc);
  }
  NameSet only;
  only.insert(var);
  openRegion(src.len, only, false);
  NodeId i = regions.back().range;
  NodeId hi = src.off.valid() ? node(Op::Add, {src.off, src.len}, DType::None, "hi") : NodeId{};
  for (size_t k = 0; k < src.cols.size(); ++k)
    storeLeaf(out.cols[k], i, loadLeaf(src.cols[k], i, src.off, hi));
  closeRegion();
  return out;
}

std::optional<Place> FnLowerer::place(ast::ExprId id, bool forWrite) {
  std::optional<Place> p = placeRaw(id, forWrite);
  if (p && id.valid()) facts->exprTy[id.v] = p->ty;
  return p;
}

std::optional<Place> FnLowerer::placeRaw(ast::ExprId id, bool forWrite) {
  const ast::Expr &e = A.expr(id);
  switch (e.kind) {
    case ast::ExprKind::Name: {
      Local *l = findLocal(e.text);
      if (!l) {
        error(e.span.loc(), "E-NAME", "unknown name " + e.text);
        return std::nullopt;
      }
      if (P.type(l->ty).k == sema::TK::Error) return std::nullopt;  // reported already
      if (l->k == Local::Place) {
        Place p = l->place;
        if (l->owns && !l->mut) p.writable = false;
        return p;
      }
      if (l->k == Local::Value) {
        if (forWrite) {
          error(e.span.loc(), "E-IMMUTABLE", e.text + " is immutable: declare it `let mut " + e.text + "`");
          return std::nullopt;
        }
        Place p = cellPlace(l->ty, "", false, "tmp");
        storePlace(p, l->val);
        p.writable = false;
        return p;
      }
      error(e.span.loc(), "E-TYPE", e.text + " is an array; index it or pass it to a view parameter");
      return std::nullopt;
    }
    case ast::ExprKind::Field: {
      std::optional<Place> base = place(e.a, forWrite);
      if (!base) return std::nullopt;
      const sema::TypeRec &r = P.type(base->ty);
      if (r.k != sema::TK::Record) {
        error(e.span.loc(), "E-FIELD", P.typeName(base->ty) + " has no field " + e.text);
        return std::nullopt;
      }
      const sema::RecInst &ri = P.recs[r.inst];
      for (uint32_t i = 0; i < ri.fields.size(); ++i)
        if (ri.fields[i].name == e.text) return fieldPlace(*base, i);
      error(e.span.loc(), "E-FIELD", ri.name + " has no field " + e.text);
      return std::nullopt;
    }
    case ast::ExprKind::Index: {
      std::optional<Arr> a = array(e.a);
      if (!a) return std::nullopt;
      Ty us = P.scalar(sema::Sc::Usize);
      Val i = exprScalar(e.b, us);
      if (!i.ok()) return std::nullopt;
      const sema::TypeRec &ir = P.type(i.ty);
      if (!sema::scInt(ir.sc) || sema::scSigned(ir.sc)) {
        error(A.expr(e.b).span.loc(), "E-TYPE-MISMATCH", "an index is a usize; got " + P.typeName(i.ty));
        return std::nullopt;
      }
      NodeId idx = i.leaves[0];
      if (sema::dtypeOf(ir.sc) != DType::U64) idx = node(Op::Cast, {idx}, DType::U64, "i");
      Place p = elemPlace(*a, idx);
      if (forWrite && !a->writable) p.writable = false;
      return p;
    }
    case ast::ExprKind::Call: {
      // A temporary record: its value in fresh cells (read only).
      Val v = expr(id);
      if (!v.ok()) return std::nullopt;
      Place p = cellPlace(v.ty, "", false, "tmp");
      storePlace(p, v);
      p.writable = false;
      return p;
    }
    default:
      error(e.span.loc(), "E-PLACE", "this expression is not a place (a local, a field or an element)");
      return std::nullopt;
  }
}

}  // namespace cairn::lower
