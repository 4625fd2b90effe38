// Layer 1 of the oracle: structure.
//
// Invariants established here, in one pass over the nodes in id order (ids
// are a definition-before-use order, so every operand is already typed):
//   S1  operand counts follow the op table (ops.def);
//   S2  operand kinds follow it: views where views go, versions where
//       versions go, events for `after`, scalars for ALU ops;
//   S3  dtypes agree: binary ops take one dtype, literals fit the dtype they
//       take, float-only and integer-only ops get what they need, `where`
//       gets a bool condition, `store` stores the view's dtype;
//   S4  `load`/`store` get one-element views; shapes do not overflow;
//   S5  buffers: an integer size; `data` with a literal size and exactly that
//       many fitting literals; slots unique; none inside a loop body;
//   S6  scoping: a value defined in a loop body is used only inside that
//       body (the index of a `range` only inside its own body), except that
//       `end` lists events/versions of its own body and `reduce` combines a
//       value of the body of the loop its `end` closes (or that loop's index); loops nest at most
//       kMaxLoopDepth deep (kMaxModuleLoopDepth in a module's functions);
//   S7  loops: `carry` only directly in a serial body, of a version defined in
//       the region around the loop (past enclosing parallel loops); a serial `end` lists one version per
//       carry, of the same buffer, made in the body; a parallel `end` lists
//       events of its own body.
//   S8  module ops (ops.def flag O) only in a module's function bodies, with
//       the kinds and dtypes of docs/uir.md (structure_module.cpp); there a
//       `buffer` may be in a loop body, and has no slot;
// Facts filled: kind, type, storage, version, elems, carries.
// Later layers may assume all of the above when this layer reports nothing.
#include <string>

#include "ir/huge_pages.hpp"
#include "oracle/structure_base.hpp"

namespace cairn {

namespace {

class Structure : detail::StructureBase {
 public:
  Structure(const Graph &g, Facts &f, Diags &d, bool module) : StructureBase(g, f, d, module) {}

  bool run() {
    size_t n = g_.size();
    // The columns are written in node order, so 4 KiB pages cost them
    // little; huge pages are advised only for pk_ below, which a wide graph
    // reads at random. (Advising them for the columns too made the first
    // validate after a parse slower at 10^7 nodes. That was put down to the
    // kernel compacting memory in the fault; on a later VM compact_stall
    // stayed 0, and what cost was the first touch of huge pages the guest
    // had never used: 13 us per 4 KiB the first time, 0.55 us after. Either
    // way the cost depends on the machine's state, not on this code.)
    f_.kind.assign(n, ResultKind::Scalar);
    f_.type.assign(n, DType::None);
    f_.storage.assign(n, NodeId::none());
    f_.version.assign(n, NodeId::none());
    f_.elems.assign(n, 0);
    f_.link.assign(n, NodeId::none());
    f_.carries.clear();
    f_.orderEdges.clear();
    ok_.assign(n, 1);
    assignHuge(pk_, n, Packed{});
    cur_ = 0;
    // Depths and ends are kept for ranges only, so the columns stop after
    // the last range: a graph without loops pays nothing for them.
    uint32_t ranges = 0;
    for (uint32_t i = 0; i < n; ++i)
      if (g_.op(NodeId{i}) == Op::Range) ranges = i + 1;
    depth_.assign(ranges, 0);
    endOf_.assign(ranges, NodeId::none());
    loops_ = ranges != 0;
    for (uint32_t i = 0; i < n; ++i)
      if (g_.op(NodeId{i}) == Op::End && !g_.operands(NodeId{i}).empty() && !g_.operands(NodeId{i})[0].isLit()) {
        NodeId r = g_.operands(NodeId{i})[0].node();
        if (g_.op(r) == Op::Range && !endOf_[r.v].valid()) endOf_[r.v] = NodeId{i};
      }
    size_t before = d_.size();
    for (uint32_t i = 0; i < n && !d_.full(); ++i) {
      if (i + kAhead < n)
        for (Operand o : g_.operands(NodeId{i + kAhead}))
          if (!o.isLit() && o.node().v < g_.size()) __builtin_prefetch(&pk_[o.node().v]);
      node(NodeId{i});
      sync(NodeId{i});
    }
    return d_.size() == before;
  }

 private:
  // S6: operand k of n must be visible from n.
  bool visible(NodeId n, size_t k) {
    NodeId x = operandNode(n, k);
    Op op = g_.op(n);
    if (op == Op::End) {
      NodeId r = g_.operands(n).empty() || isLit(n, 0) ? NodeId::none() : operandNode(n, 0);
      if (k == 0 || !r.valid()) return true;  // a bad range operand is end()'s error
      if (g_.parent(x) == r) return true;
      errAt(n, k, "loop", "`end` lists " + nm(x) + ", which is not defined directly in the body of " + nm(r))
          .note(g_.loc(x), nm(x) + " is defined here");
      return false;
    }
    if (op == Op::Reduce && k == 1) return true;  // checked in reduce()
    if (encloses(scopeOf(x), g_.parent(n))) return true;
    auto &dg = errAt(n, k, "loop", nm(x) + " is defined inside a loop body and cannot be used outside it");
    dg.note(g_.loc(x), nm(x) + " is defined here");
    if (NodeId r = scopeOf(x); r.valid() && endOf_[r.v].valid())
      dg.note(g_.loc(endOf_[r.v]), "the loop ends here; use `reduce` or a store to take a value out");
    return false;
  }

  // ---- the pass ----
  // Operands are anywhere earlier in the graph: their packed facts are
  // prefetched this many nodes ahead of the pass.
  static constexpr uint32_t kAhead = 16;

  void node(NodeId n) {
    const OpInfo &info = opInfo(g_.op(n));
    auto ops = g_.operands(n);
    int cnt = static_cast<int>(ops.size());
    NodeId par = g_.parent(n);
    const uint32_t depth = par.valid() ? depth_[par.v] + 1 : 0;  // (a parent is a range)
    if (g_.op(n) == Op::Range) depth_[n.v] = depth;
    const uint32_t maxDepth = module_ ? kMaxModuleLoopDepth : kMaxLoopDepth;
    if (g_.op(n) == Op::Range && depth >= maxDepth) {
      if (depth == maxDepth)  // once per nest, at the first level too deep
        err(n, "loop", "loops are nested deeper than " + std::to_string(maxDepth) + " levels");
      ok_[n.v] = 0;
      return;
    }
    if (info.is(opflag::O) && !module_) {
      err(n, "module", "`" + std::string(info.name) + "` is a module op: it is allowed only in a function of a module (a file "
                       "that starts with `func` or `extern`)");
      return;
    }
    if (cnt < info.minArgs || (info.maxArgs >= 0 && cnt > info.maxArgs)) {
      std::string want = info.minArgs == info.maxArgs ? std::to_string(info.minArgs)
                         : info.maxArgs < 0          ? "at least " + std::to_string(info.minArgs)
                                                     : std::to_string(info.minArgs) + " to " + std::to_string(info.maxArgs);
      err(n, "kind", "`" + std::string(info.name) + "` takes " + want + " operand" + (want == "1" ? "" : "s") + ", found " +
                         std::to_string(cnt));
      return;
    }
    for (size_t k = 0; k < ops.size(); ++k) {
      if (ops[k].isLit()) continue;
      NodeId x = ops[k].node();
      if (!okOf(x)) {  // an error was already reported for x: do not echo it
        ok_[n.v] = 0;
        return;
      }
      // (Without loops every node is at the top level and visible, and
      // only `end` has a rule to break.)
      if ((loops_ || g_.op(n) == Op::End) && !visible(n, k)) return;
    }
    switch (g_.op(n)) {
      case Op::Buffer: buffer(n); break;
      case Op::Shrink:
      case Op::CShrink: shrink(n); break;
      case Op::Load: load(n); break;
      case Op::Store: store(n); break;
      case Op::After: after(n); break;
      case Op::Range: range(n); break;
      case Op::Carry: carry(n); break;
      case Op::End: end(n); break;
      case Op::Reduce: reduce(n); break;
      case Op::Const: constant(n); break;
      default:
        if (info.is(opflag::O)) moduleOp(n);
        else alu(n, info);
        break;
    }
  }

  void buffer(NodeId n) {
    f_.kind[n.v] = ResultKind::Version;
    f_.type[n.v] = g_.dtype(n);
    f_.storage[n.v] = n;
    f_.version[n.v] = n;
    if (g_.parent(n).valid() && !module_)
      err(n, "loop", "`buffer` inside a loop body is not supported: allocate it before the loop")
          .note(g_.loc(g_.parent(n)), "the loop opens here");
    if (module_ && g_.slot(n) >= 0) err(n, "slot", "`slot=` is not allowed in a module: a function's buffers are its own");
    if (intOperand(n, 0, "a buffer's size") == DType::None) return;
    f_.elems.set(n.v, isLit(n, 0) ? static_cast<int64_t>(lit(n, 0).magnitude) : -1);
    if (g_.hasData(n)) {
      if (!isLit(n, 0)) {
        err(n, "shape", "`data=` needs a literal size; this buffer's size is " + nm(operandNode(n, 0)));
      } else if (g_.data(n).size() != lit(n, 0).magnitude) {
        err(n, "shape", "`data=` has " + std::to_string(g_.data(n).size()) + " value(s) for a buffer of " +
                            std::to_string(lit(n, 0).magnitude) + " element(s)");
      } else {
        for (const Literal &l : g_.data(n))
          if (!literalBits(l, g_.dtype(n))) {
            err(n, "dtype", "`data=` value `" + literalText(l) + "` does not fit dtype " + std::string(dtypeName(g_.dtype(n))));
            break;
          }
      }
    }
    if (g_.slot(n) >= 0) {
      auto [it, fresh] = slots_.emplace(g_.slot(n), n);
      if (!fresh)
        err(n, "slot", "slot " + std::to_string(g_.slot(n)) + " is already bound to " + nm(it->second))
            .note(g_.loc(it->second), nm(it->second) + " is bound to slot " + std::to_string(g_.slot(n)) + " here");
    }
  }

  void shrink(NodeId n) {
    f_.kind[n.v] = ResultKind::View;
    if (!needView(n, 0)) return;
    NodeId v = operandNode(n, 0);
    f_.type[n.v] = f_.type[v.v];
    f_.storage[n.v] = f_.storage[v.v];
    f_.version[n.v] = f_.version[v.v];
    if (intOperand(n, 1, "an offset") == DType::None) return;
    int64_t total = 1;
    for (int64_t d : g_.dims(n)) {
      if (d != 0 && total > (int64_t{1} << 62) / d) {
        err(n, "shape", "the shape has more than 2^62 elements");
        return;
      }
      total *= d;
    }
    f_.elems.set(n.v, total);
  }

  void load(NodeId n) {
    if (!needView(n, 0) || !needElement(n)) return;
    NodeId v = operandNode(n, 0);
    f_.type[n.v] = f_.type[v.v];
    f_.version[n.v] = f_.version[v.v];
    f_.storage[n.v] = f_.storage[v.v];
  }

  void store(NodeId n) {
    f_.kind[n.v] = ResultKind::Event;
    if (!needView(n, 0) || !needElement(n)) return;
    NodeId v = operandNode(n, 0);
    DType t = f_.type[v.v];
    f_.type[n.v] = t;
    f_.version[n.v] = f_.version[v.v];
    f_.storage[n.v] = f_.storage[v.v];
    scalarOperand(n, 1, t, "the stored value");
  }

  void after(NodeId n) {
    f_.kind[n.v] = ResultKind::Version;
    if (isLit(n, 0) || f_.kind[operandNode(n, 0).v] != ResultKind::Version) {
      if (isLit(n, 0)) {
        errAt(n, 0, "kind", "`after` needs a buffer version first, found a literal");
      } else {
        NodeId x = operandNode(n, 0);
        errAt(n, 0, "kind", "`after` needs a buffer version first, but " + nm(x) + " is " + kindName(f_.kind[x.v]) +
                                (f_.kind[x.v] == ResultKind::View ? " (name the version it views)" : ""))
            .note(g_.loc(x), nm(x) + " is defined here");
      }
      return;
    }
    NodeId v = operandNode(n, 0);
    f_.type[n.v] = f_.type[v.v];
    f_.storage[n.v] = f_.storage[v.v];
    f_.version[n.v] = n;
    f_.elems.set(n.v, f_.elems[v.v]);
    if (isLit(n, 1) || f_.kind[operandNode(n, 1).v] != ResultKind::Event) {
      std::string found = isLit(n, 1) ? "a literal" : nm(operandNode(n, 1)) + ", " + kindName(f_.kind[operandNode(n, 1).v]);
      errAt(n, 1, "kind", "`after` needs an event (a store or a loop's end) second, found " + found);
      return;
    }
    if (g_.parent(v) != g_.parent(n))
      err(n, "loop", "`after` must be in the same loop body as the version " + nm(v) + " it builds on" +
                         (g_.parent(n).valid() && !g_.parallel(g_.parent(n)) ? "; carry it into the loop with `carry`" : ""))
          .note(g_.loc(v), nm(v) + " is defined here");
  }

  void range(NodeId n) {
    f_.kind[n.v] = ResultKind::Index;
    DType t = intOperand(n, 0, "a loop bound");
    f_.type[n.v] = t == DType::None ? DType::I64 : t;
  }

  void carry(NodeId n) {
    f_.kind[n.v] = ResultKind::Version;
    NodeId r = g_.parent(n);
    if (!r.valid() || g_.parallel(r)) {
      err(n, "loop", r.valid() ? "`carry` is only for serial loops; this body belongs to a parallel range"
                               : "`carry` must be directly inside a serial loop body");
      return;
    }
    if (isLit(n, 0) || f_.kind[operandNode(n, 0).v] != ResultKind::Version) {
      errAt(n, 0, "kind", "`carry` needs a buffer version");
      return;
    }
    NodeId v = operandNode(n, 0);
    // The region the loop writes into: around it, past any parallel loops it
    // is in (their `end`s take its writes further out, under the lane rule).
    NodeId home = g_.parent(r);
    while (home.valid() && g_.parallel(home)) home = g_.parent(home);
    if (g_.parent(v) != home) {
      err(n, "loop", "`carry` takes a version defined in the region around its loop (past enclosing parallel loops), but " + nm(v) +
                         " is not")
          .note(g_.loc(v), nm(v) + " is defined here");
      return;
    }
    for (NodeId c : f_.carriesOf(r))
      if (f_.storage[c.v] == f_.storage[v.v]) {
        err(n, "loop", "the loop already carries buffer " + nm(f_.storage[v.v]))
            .note(g_.loc(c), "carried here");
        return;
      }
    f_.type[n.v] = f_.type[v.v];
    f_.storage[n.v] = f_.storage[v.v];
    f_.version[n.v] = n;
    f_.elems.set(n.v, f_.elems[v.v]);
    f_.carries[r.v].push_back(n);
  }

  void end(NodeId n) {
    f_.kind[n.v] = ResultKind::Event;
    if (isLit(n, 0) || g_.op(operandNode(n, 0)) != Op::Range) {
      errAt(n, 0, "kind", "`end` needs the loop's range first");
      return;
    }
    NodeId r = operandNode(n, 0);
    auto ops = g_.operands(n);
    if (!g_.parallel(r)) {
      const auto &cs = f_.carriesOf(r);
      if (ops.size() - 1 != cs.size()) {
        auto &dg = err(n, "loop", "the serial loop of " + nm(r) + " carries " + std::to_string(cs.size()) +
                                      " version(s), so its `end` lists " + std::to_string(cs.size()) + " next version(s); found " +
                                      std::to_string(ops.size() - 1));
        for (NodeId c : cs) dg.note(g_.loc(c), "carried here");
        return;
      }
      for (size_t k = 1; k < ops.size(); ++k) {
        if (ops[k].isLit() || f_.kind[ops[k].node().v] != ResultKind::Version ||
            f_.storage[ops[k].node().v] != f_.storage[cs[k - 1].v]) {
          errAt(n, k, "loop", "operand " + std::to_string(k) + " of a serial `end` must be the next version of " + nm(cs[k - 1]) +
                                  " (a version of buffer " + nm(f_.storage[cs[k - 1].v]) + ")")
              .note(g_.loc(cs[k - 1]), "carried here");
          return;
        }
      }
      return;
    }
    for (size_t k = 1; k < ops.size(); ++k) {
      if (ops[k].isLit() || f_.kind[ops[k].node().v] != ResultKind::Event) {
        errAt(n, k, "kind", "a parallel `end` lists the stores (and inner loop ends) of its body");
        return;
      }
    }
  }

  void reduce(NodeId n) {
    if (isLit(n, 0) || g_.op(operandNode(n, 0)) != Op::End) {
      errAt(n, 0, "kind", "`reduce` needs the `end` of a loop first");
      return;
    }
    if (isLit(n, 1)) {
      errAt(n, 1, "kind", "`reduce` needs a scalar of the loop body, found a literal");
      return;
    }
    NodeId e = operandNode(n, 0), x = operandNode(n, 1);
    NodeId r = g_.operands(e).empty() || g_.operands(e)[0].isLit() ? NodeId::none() : g_.operands(e)[0].node();
    // The value: a scalar of the body, or the loop's index itself.
    if (!r.valid() || !(x == r || (isScalar(x) && g_.parent(x) == r))) {
      errAt(n, 1, "loop", "`reduce` combines a scalar defined directly in the body of the loop " + nm(e) + " ends")
          .note(g_.loc(x), nm(x) + " is defined here");
      return;
    }
    DType t = f_.type[x.v];
    Op rop = g_.reduceOp(n);
    bool bitwise = rop == Op::And || rop == Op::Or || rop == Op::Xor;
    if ((bitwise && isFloat(t)) || ((rop == Op::Add || rop == Op::Mul) && t == DType::Bool)) {
      err(n, "dtype", "`reduce " + std::string(opInfo(rop).name) + "` does not take dtype " + std::string(dtypeName(t)));
      return;
    }
    f_.type[n.v] = t;
  }

  void constant(NodeId n) {
    f_.type[n.v] = g_.dtype(n);
    if (!isLit(n, 0)) {
      errAt(n, 0, "kind", "`const` takes a literal; use the value directly");
      return;
    }
    checkLiteralFits(n, 0, g_.dtype(n));
  }

  void alu(NodeId n, const OpInfo &info) {
    Op op = g_.op(n);
    auto ops = g_.operands(n);
    // Operand dtype: from the first non-literal operand (for `where`, of the
    // two values). Literals take it.
    size_t first = op == Op::Where ? 1 : 0;
    DType t = DType::None;
    for (size_t k = first; k < ops.size(); ++k)
      if (!ops[k].isLit()) {
        NodeId x = ops[k].node();
        if (!isScalar(x)) {
          errAt(n, k, "kind", "`" + std::string(info.name) + "` takes scalars, but " + nm(x) + " is " + kindName(f_.kind[x.v]))
              .note(g_.loc(x), nm(x) + " is defined here");
          return;
        }
        if (t == DType::None) t = typeOf(x);
      }
    if (op == Op::Where && !scalarOperand(n, 0, DType::Bool, "the condition of `where`")) return;
    if (t == DType::None) {
      err(n, "dtype", op == Op::Cast ? "`cast` of a literal: write it as `const LIT dtype=T`"
                                      : "every operand of `" + std::string(info.name) +
                                            "` is a literal, so its dtype is unknown: write one as `const LIT dtype=T`");
      return;
    }
    for (size_t k = first; k < ops.size(); ++k)
      if (!scalarOperand(n, k, t, "the operand")) return;
    if (info.is(opflag::F) && !isFloat(t)) {
      err(n, "dtype", "`" + std::string(info.name) + "` takes floats, not " + std::string(dtypeName(t)) +
                          (op == Op::Fdiv ? " (use `idiv` for integers)" : ""));
      return;
    }
    if (info.is(opflag::N) && isFloat(t)) {
      err(n, "dtype", "`" + std::string(info.name) + "` takes integers, not " + std::string(dtypeName(t)) + (op == Op::Idiv ? " (use `fdiv`)" : ""));
      return;
    }
    bool arith = op == Op::Add || op == Op::Sub || op == Op::Mul || op == Op::Idiv || op == Op::Mod || op == Op::Shl ||
                 op == Op::Shr;
    if (arith && t == DType::Bool) {
      err(n, "dtype", "`" + std::string(info.name) + "` does not take bool");
      return;
    }
    f_.type[n.v] = op == Op::Cast ? g_.dtype(n) : info.is(opflag::C) ? DType::Bool : t;
  }

  std::vector<uint32_t> depth_;  // range -> its loop depth (0: top level); ids up to the last range
  bool loops_ = false;  // the graph has a `range`
  std::unordered_map<int64_t, NodeId> slots_;
};

}  // namespace

bool checkStructure(const Graph &g, Facts &facts, Diags &diags, bool module) {
  return Structure(g, facts, diags, module).run();
}

}  // namespace cairn
