// The shared state and helpers of layer 1 (structure), internal to oracle/.
//
// structure.cpp runs the pass over the nodes and checks the flat-graph ops;
// structure_module.cpp checks the module ops (ops.def flag O). Both see one
// StructureBase: the graph, the facts being filled, the diagnostics, and
// ok_ (per node: no error was reported for it, so its uses need not echo
// one). Every helper reports with the rule names of docs/uir.md.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "oracle/oracle.hpp"
#include "oracle/util.hpp"

namespace cairn::detail {

class StructureBase {
 public:
  StructureBase(const Graph &g, Facts &f, Diags &d, bool module) : g_(g), f_(f), d_(d), module_(module) {}

 protected:
  std::string nm(NodeId n) const { return "%" + std::string(g_.name(n)); }
  Loc opLoc(NodeId n, size_t k) const { return Loc{g_.loc(n).line, g_.operandCol(n, k)}; }
  Diagnostic &err(NodeId n, const char *rule, std::string msg) {
    ok_[n.v] = 0;
    return d_.error(g_.loc(n), rule, std::move(msg));
  }
  Diagnostic &errAt(NodeId n, size_t k, const char *rule, std::string msg) {
    ok_[n.v] = 0;
    return d_.error(opLoc(n, k), rule, std::move(msg));
  }
  static const char *kindName(ResultKind k) {
    switch (k) {
      case ResultKind::Version: return "a buffer version";
      case ResultKind::View: return "a view";
      case ResultKind::Scalar: return "a scalar";
      case ResultKind::Event: return "an event";
      case ResultKind::Index: return "a loop index";
    }
    return "?";
  }
  // What the pass reads of an operand, packed per node in 2 bytes: its kind,
  // whether it was reported (ok_), whether it is a range, and its dtype. On
  // graphs far larger than the cache the operands are random reads of this
  // column, so its size decides whether they hit: 20 MB at 10^7 nodes, 80
  // with the enclosing range in it, which is read instead from the graph
  // (Graph::parent: no column at all for a graph without loops). Written
  // when the pass leaves a node (sync); nodes at or after the current one
  // read the tables themselves.
  struct Packed {
    uint8_t bits;  // kind | ok << 4 | isRange << 5
    DType type;    // f_.type
  };
  static_assert(sizeof(Packed) == 2 && static_cast<int>(ResultKind::Index) < 16, "a kind fits the low 4 bits");
  static constexpr uint8_t kPackedOk = 1 << 4, kPackedRange = 1 << 5;
  void sync(NodeId n) {
    pk_[n.v] = Packed{static_cast<uint8_t>(static_cast<uint8_t>(f_.kind[n.v]) | (ok_[n.v] ? kPackedOk : 0) |
                                           (g_.op(n) == Op::Range ? kPackedRange : 0)),
                      f_.type[n.v]};
    cur_ = n.v + 1;
  }
  bool done(NodeId x) const { return x.v < cur_; }
  ResultKind kindOf(NodeId x) const { return done(x) ? static_cast<ResultKind>(pk_[x.v].bits & 15) : f_.kind[x.v]; }
  DType typeOf(NodeId x) const { return done(x) ? pk_[x.v].type : f_.type[x.v]; }
  bool okOf(NodeId x) const { return done(x) ? (pk_[x.v].bits & kPackedOk) != 0 : ok_[x.v] != 0; }
  bool isScalar(NodeId x) const { return kindOf(x) == ResultKind::Scalar || kindOf(x) == ResultKind::Index; }
  // The region a value is visible in: a range's index is visible in its own body.
  NodeId scopeOf(NodeId x) const {
    bool range = done(x) ? (pk_[x.v].bits & kPackedRange) != 0 : g_.op(x) == Op::Range;
    return range ? x : g_.parent(x);
  }
  // Is region `outer` (a range, or none for the top level) `inner` or around it?
  bool encloses(NodeId outer, NodeId inner) const {
    if (!outer.valid()) return true;
    if (outer == inner) return true;
    if (!inner.valid()) return false;
    NodeId e = endOf_[outer.v];
    return inner.v > outer.v && (!e.valid() || inner.v < e.v);
  }
  NodeId operandNode(NodeId n, size_t k) const { return g_.operands(n)[k].node(); }
  bool isLit(NodeId n, size_t k) const { return g_.operands(n)[k].isLit(); }
  const Literal &lit(NodeId n, size_t k) const { return g_.literal(g_.operands(n)[k].lit()); }

  // An integer operand (size, offset, bound): a non-negative integer literal or
  // an integer scalar. Returns its dtype (i64 for a literal), or None.
  DType intOperand(NodeId n, size_t k, const char *what) {
    if (isLit(n, k)) {
      const Literal &l = lit(n, k);
      if (l.kind != Literal::Kind::Int || l.negative || !literalBits(l, DType::I64)) {
        errAt(n, k, "dtype", std::string(what) + " must be a non-negative integer below 2^63, found `" + literalText(l) + "`");
        return DType::None;
      }
      return DType::I64;
    }
    NodeId x = operandNode(n, k);
    if (!isScalar(x) || !isInteger(typeOf(x))) {
      errAt(n, k, "dtype", std::string(what) + " must be an integer, but " + nm(x) + " is " +
                               (isScalar(x) ? std::string("of dtype ") + std::string(dtypeName(f_.type[x.v])) : kindName(f_.kind[x.v])))
          .note(g_.loc(x), nm(x) + " is defined here");
      return DType::None;
    }
    return f_.type[x.v];
  }

  bool checkLiteralFits(NodeId n, size_t k, DType t) {
    if (!literalBits(lit(n, k), t)) {
      errAt(n, k, "dtype", "literal `" + literalText(lit(n, k)) + "` does not fit dtype " + std::string(dtypeName(t)));
      return false;
    }
    return true;
  }


  bool needView(NodeId n, size_t k) {
    if (isLit(n, k)) {
      errAt(n, k, "kind", "`" + std::string(opInfo(g_.op(n)).name) + "` needs a view, found the literal `" + literalText(lit(n, k)) + "`");
      return false;
    }
    NodeId x = operandNode(n, k);
    if (!f_.isView(x)) {
      errAt(n, k, "kind", "`" + std::string(opInfo(g_.op(n)).name) + "` needs a view, but " + nm(x) + " is " + kindName(f_.kind[x.v]))
          .note(g_.loc(x), nm(x) + " is defined here");
      return false;
    }
    return true;
  }


  bool needElement(NodeId n) {
    NodeId v = operandNode(n, 0);
    if (f_.elems[v.v] != 1) {
      auto &dg = errAt(n, 0, "shape", "`" + std::string(opInfo(g_.op(n)).name) + "` needs a one-element view (`shape=[]`), but " +
                                          nm(v) + " has " +
                                          (f_.elems[v.v] < 0 ? std::string("a dynamic number of") : std::to_string(f_.elems[v.v])) +
                                          " elements");
      dg.note(g_.loc(v), nm(v) + " is defined here");
      return false;
    }
    return true;
  }


  // A scalar operand that must have dtype t.
  bool scalarOperand(NodeId n, size_t k, DType t, const char *what) {
    if (isLit(n, k)) return checkLiteralFits(n, k, t);
    NodeId x = operandNode(n, k);
    if (!isScalar(x)) {
      errAt(n, k, "kind", std::string(what) + " must be a scalar, but " + nm(x) + " is " + kindName(f_.kind[x.v]))
          .note(g_.loc(x), nm(x) + " is defined here");
      return false;
    }
    if (typeOf(x) != t) {
      errAt(n, k, "dtype", std::string(what) + " " + nm(x) + " has dtype " + std::string(dtypeName(f_.type[x.v])) + ", expected " +
                               std::string(dtypeName(t)))
          .note(g_.loc(x), nm(x) + " is defined here");
      return false;
    }
    return true;
  }


  // Module ops (structure_module.cpp): n's op has flag O, and this is a
  // module function body.
  void moduleOp(NodeId n);
  void callOp(NodeId n);
  void derefOp(NodeId n);
  void checkedOp(NodeId n);

  const Graph &g_;
  Facts &f_;
  Diags &d_;
  bool module_;                // a module function body: module ops allowed
  std::vector<uint8_t> ok_;
  std::vector<Packed> pk_;     // see sync
  uint32_t cur_ = 0;           // nodes below this id are synced
  std::vector<NodeId> endOf_;  // range -> its end; ids up to the last range
  NodeId ret_;                 // the first `ret`
};

}  // namespace cairn::detail
