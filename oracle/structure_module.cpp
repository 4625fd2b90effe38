// Layer 1 of the oracle, module ops (ops.def flag O; docs/uir.md, "Modules").
//
// Runs inside the structure pass (structure.cpp), only for a module's
// function bodies, after the op table's operand count and the scoping rule
// were checked. Invariants established, per op:
//   M1  param/vparam: a literal index K, at the top level of the body, with a
//       dtype; param is a scalar, vparam a version root of run-time length
//       (K against the signature is the module layer's: oracle/module.cpp);
//   M2  ret: at most one, at the top level, the body's last line; its value
//       is a scalar (its dtype against the signature: module layer);
//   M3  call: every argument a scalar, a literal or a view; with dtype= a
//       scalar of that dtype, without it an event; call_write names a call
//       of its own region and a view argument K of it, and writes into the
//       version that argument views;
//   M4  until directly in a serial loop body; until/guard take a bool;
//   M5  len/part take a view, part u64 bounds; a part is a view of
//       run-time length of its parent's version;
//   M6  alloc/free/deref take u64 handles and sizes; alloc has columns of
//       dtypes or `own`; deref's column is a literal and its result a
//       version root of run-time length;
//   M7  checked_* arithmetic: two operands of one integer dtype (not bool);
//       checked_cast from an integer, bool or float scalar to an integer;
//   M8  print: a scalar (not a literal) or a u8 view.
// Facts filled as structure.cpp does: kind, type, storage, version, elems.
#include "oracle/structure_base.hpp"

namespace cairn::detail {

void StructureBase::moduleOp(NodeId n) {
  Op op = g_.op(n);
  const std::string opName(opInfo(op).name);
  auto topLevel = [&]() {
    if (!g_.parent(n).valid()) return true;
    err(n, "loop", "`" + opName + "` belongs at the top level of the function body, not in a loop body")
        .note(g_.loc(g_.parent(n)), "the loop opens here");
    return false;
  };
  auto literalIndex = [&](size_t k, const char *what) {
    if (!isLit(n, k) || lit(n, k).kind != Literal::Kind::Int || lit(n, k).negative || lit(n, k).magnitude > INT32_MAX) {
      errAt(n, k, "kind", std::string(what) + " must be a literal index (a non-negative integer)");
      return false;
    }
    return true;
  };
  switch (op) {
    case Op::Param:
    case Op::VParam:
      f_.kind[n.v] = op == Op::Param ? ResultKind::Scalar : ResultKind::Version;
      f_.type[n.v] = g_.dtype(n);
      if (!literalIndex(0, "a parameter's index") || !topLevel()) return;
      if (op == Op::VParam) {
        f_.storage[n.v] = n;
        f_.version[n.v] = n;
        f_.elems.set(n.v, -1);
      }
      return;
    case Op::Ret:
      f_.kind[n.v] = ResultKind::Event;
      if (!topLevel()) return;
      if (ret_.valid()) {
        err(n, "kind", "a function has at most one `ret`").note(g_.loc(ret_), "the first `ret` is here");
        return;
      }
      ret_ = n;
      if (n.v + 1 != g_.size()) {
        err(n, "kind", "`ret` must be the last line of the function body");
        return;
      }
      if (!g_.operands(n).empty() && !isLit(n, 0)) {
        NodeId x = operandNode(n, 0);
        if (!isScalar(x)) {
          errAt(n, 0, "kind", "`ret` returns a scalar, but " + nm(x) + " is " + kindName(f_.kind[x.v]))
              .note(g_.loc(x), nm(x) + " is defined here");
          return;
        }
        f_.type[n.v] = f_.type[x.v];
      }
      return;
    case Op::Call: callOp(n); return;
    case Op::CallWrite: {
      f_.kind[n.v] = ResultKind::Event;
      if (isLit(n, 0) || g_.op(operandNode(n, 0)) != Op::Call) {
        errAt(n, 0, "kind", "`call_write` needs a `call` first");
        return;
      }
      NodeId c = operandNode(n, 0);
      if (!literalIndex(1, "a call_write's argument index")) return;
      uint64_t k = lit(n, 1).magnitude;
      auto args = g_.operands(c);
      if (k >= args.size() || args[k].isLit() || !f_.isView(args[k].node())) {
        errAt(n, 1, "kind", "argument " + std::to_string(k) + " of " + nm(c) + " is not a view, so the call cannot write it")
            .note(g_.loc(c), nm(c) + " is here");
        return;
      }
      if (g_.parent(c) != g_.parent(n)) {
        err(n, "loop", "`call_write` must be in the same loop body as its call " + nm(c)).note(g_.loc(c), nm(c) + " is here");
        return;
      }
      NodeId v = args[k].node();
      f_.type[n.v] = f_.type[v.v];
      f_.storage[n.v] = f_.storage[v.v];
      f_.version[n.v] = f_.version[v.v];
      return;
    }
    case Op::Until:
    case Op::Guard:
      f_.kind[n.v] = ResultKind::Event;
      if (op == Op::Until && (!g_.parent(n).valid() || g_.parallel(g_.parent(n)))) {
        err(n, "loop", "`until` must be directly in the body of a serial loop");
        return;
      }
      scalarOperand(n, 0, DType::Bool, op == Op::Until ? "the condition of `until`" : "the condition of `guard`");
      return;
    case Op::Len:
      f_.type[n.v] = DType::U64;
      needView(n, 0);
      return;
    case Op::Part: {
      f_.kind[n.v] = ResultKind::View;
      if (!needView(n, 0)) return;
      NodeId v = operandNode(n, 0);
      f_.type[n.v] = f_.type[v.v];
      f_.storage[n.v] = f_.storage[v.v];
      f_.version[n.v] = f_.version[v.v];
      f_.elems.set(n.v, -1);
      if (!scalarOperand(n, 1, DType::U64, "a part's low bound")) return;
      scalarOperand(n, 2, DType::U64, "a part's high bound");
      return;
    }
    case Op::Alloc: {
      f_.type[n.v] = DType::U64;
      if (!scalarOperand(n, 0, DType::U64, "an object's length")) return;
      if (g_.dims(n).empty()) {
        err(n, "shape", "`alloc` needs at least one column: `cols=[T...]`");
        return;
      }
      for (int64_t c : g_.dims(n))
        if (c != Graph::kOwnColumn && (c < 0 || c >= kNumDTypes)) {
          err(n, "dtype", "a column of `alloc` is a dtype or `own`");
          return;
        }
      return;
    }
    case Op::Free:
      f_.kind[n.v] = ResultKind::Event;
      scalarOperand(n, 0, DType::U64, "the handle");
      return;
    case Op::Deref:
      derefOp(n);
      return;
    case Op::Print: {
      f_.kind[n.v] = ResultKind::Event;
      if (isLit(n, 0)) {
        errAt(n, 0, "kind", "`print` takes a scalar or a u8 view, not a literal: write it as `const LIT dtype=T`");
        return;
      }
      NodeId x = operandNode(n, 0);
      if (f_.isView(x) ? f_.type[x.v] != DType::U8 : !isScalar(x))
        errAt(n, 0, "kind", "`print` takes a scalar or a u8 view, but " + nm(x) + " is " +
                                (f_.isView(x) ? "a view of " + std::string(dtypeName(f_.type[x.v])) : kindName(f_.kind[x.v])))
            .note(g_.loc(x), nm(x) + " is defined here");
      return;
    }
    default:
      checkedOp(n);
      return;
  }
}

void StructureBase::callOp(NodeId n) {
  DType t = g_.dtype(n);
  f_.kind[n.v] = t == DType::None ? ResultKind::Event : ResultKind::Scalar;
  f_.type[n.v] = t;
  auto ops = g_.operands(n);
  for (size_t k = 0; k < ops.size(); ++k) {
    if (ops[k].isLit()) continue;  // its dtype is the parameter's: the module layer checks it fits
    NodeId x = ops[k].node();
    if (!isScalar(x) && !f_.isView(x)) {
      errAt(n, k, "kind", "a call argument is a scalar or a view, but " + nm(x) + " is " + kindName(f_.kind[x.v]))
          .note(g_.loc(x), nm(x) + " is defined here");
      return;
    }
  }
}

void StructureBase::derefOp(NodeId n) {
  f_.kind[n.v] = ResultKind::Version;
  f_.type[n.v] = g_.dtype(n);
  f_.storage[n.v] = n;
  f_.version[n.v] = n;
  f_.elems.set(n.v, -1);
  if (!scalarOperand(n, 0, DType::U64, "the handle")) return;
  if (!isLit(n, 1) || lit(n, 1).kind != Literal::Kind::Int || lit(n, 1).negative || lit(n, 1).magnitude > INT32_MAX)
    errAt(n, 1, "kind", "a deref's column must be a literal index (a non-negative integer)");
}

void StructureBase::checkedOp(NodeId n) {
  Op op = g_.op(n);
  const std::string opName(opInfo(op).name);
  auto ops = g_.operands(n);
  DType t = DType::None;
  for (size_t k = 0; k < ops.size(); ++k)
    if (!ops[k].isLit()) {
      NodeId x = ops[k].node();
      if (!isScalar(x)) {
        errAt(n, k, "kind", "`" + opName + "` takes scalars, but " + nm(x) + " is " + kindName(f_.kind[x.v]))
            .note(g_.loc(x), nm(x) + " is defined here");
        return;
      }
      if (t == DType::None) t = f_.type[x.v];
    }
  if (t == DType::None) {
    err(n, "dtype", op == Op::CheckedCast ? "`checked_cast` of a literal: write it as `const LIT dtype=T`"
                                          : "every operand of `" + opName + "` is a literal, so its dtype is unknown: write one as "
                                            "`const LIT dtype=T`");
    return;
  }
  if (op == Op::CheckedCast) {
    f_.type[n.v] = g_.dtype(n);
    if (!isInteger(g_.dtype(n)))
      err(n, "dtype", "`checked_cast` converts to an integer dtype, not " + std::string(dtypeName(g_.dtype(n))) +
                          " (use `cast`)");
    return;
  }
  for (size_t k = 0; k < ops.size(); ++k)
    if (!scalarOperand(n, k, t, "the operand")) return;
  if (!isInteger(t)) {
    err(n, "dtype", "`" + opName + "` takes integers, not " + std::string(dtypeName(t)));
    return;
  }
  f_.type[n.v] = t;
}

}  // namespace cairn::detail
