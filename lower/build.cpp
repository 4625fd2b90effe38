// Graph building for one function: nodes with fresh names and CAIRN
// origins, cells, regions with their carries, and element access.
//
// Invariants kept here: every node gets `cur` as its origin; a storage's
// `cur` is always a version of that storage visible in the current region
// (regions carry what they may write and rebuild the outside version with
// `after` when they close); every store is followed by the `after` that
// sequences it, so no store is ever left unsequenced.
#include <algorithm>
#include <charconv>
#include <cstring>

#include "ir/check.hpp"
#include "lower/fn.hpp"

namespace cairn::lower {

// Room for about 8 nodes per source line of the function: growing a dozen
// node vectors from empty was a quarter of the lowerer's allocations.
void FnLowerer::reserveBody(const ast::Span &span) {
  size_t lines = span.endLine >= span.line ? span.endLine - span.line + 1 : 1;
  size_t nodes = 12 * lines;  // 8 a line on average, more in the bodies of statements
  g->reserve(nodes);
  g->reserveNames(6 * nodes);  // "t.123"
  g->reserveComments(lines);   // a line comment on the first node of each line
  origin->reserve(nodes);
  storages.reserve(std::min<size_t>(lines, 64));  // a few cells per line at most, usually far fewer
  scopes.reserve(16);
}

NodeId FnLowerer::nodeV(Op op, std::span<const Opnd> ops, DType dt, NodeHint hint) {
  // Named STEM.N (the hint, or the variable), built in place in the graph's
  // names: a hint is copied with a copy of constant size.
  const size_t stem = hint.var.empty() ? hint.n : hint.var.size();
  char *d = g->nameRoom(std::max(stem, NodeHint::kBytes) + 1 + DecimalCounter::kBytes);
  if (hint.var.empty()) std::memcpy(d, hint.s, NodeHint::kBytes);
  else std::memcpy(d, hint.var.data(), stem);
  d[stem] = '.';
  nameNumber.copyTo(d + stem + 1);
  NodeId n = g->addNodeNamed(op, stem + 1 + nameNumber.text().size(), cur);
  nameNumber.next();
  for (const Opnd &o : ops) {
    if (o.lit) g->addOperand(n, Operand::ofLit(g->addLiteral(o.l)), 0);
    else g->addOperand(n, Operand::ofNode(o.n), 0);
  }
  if (dt != DType::None) g->setDType(n, dt);
  origin->push_back(Origin{file, cur});
  // The first node of each CAIRN line says which line it lowers, so
  // `cairn lower` reads side by side with the source.
  if (L.lineComments && cur.line != 0 && cur.line != commentedLine_) {
    commentedLine_ = cur.line;
    lineComment(cur.line, g->comments(n).trailing);
  }
  return n;
}

// "line N: TEXT", written straight into the node's comment (a line lowering
// comes back to is written again: cheaper than keeping and copying each).
void FnLowerer::lineComment(uint32_t line, std::string &out) {
  char num[16];
  char *end = std::to_chars(num, num + sizeof num, line).ptr;
  std::string_view text = trimmedSourceLine(line);
  bool cut = text.size() > 60;
  if (cut) text = text.substr(0, 57);
  out.reserve(5 + static_cast<size_t>(end - num) + 2 + text.size() + (cut ? 3 : 0));
  out.append("line ").append(num, end).append(": ");
  appendPrintable(text, out);
  if (cut) out += "...";
}

// Line `line` of this function's file without a byte order mark and without
// the blanks (control characters and spaces) at both ends.
std::string_view FnLowerer::trimmedSourceLine(uint32_t line) {
  sema::SourceFile &sf = *P.files[file];
  std::string_view t = sf.lineText(line);
  if (t.data() == sf.text.data() && t.starts_with("\xEF\xBB\xBF")) t.remove_prefix(3);  // the byte order mark
  auto blank = [](char c) { return static_cast<unsigned char>(c) <= 32 || c == 127; };
  while (!t.empty() && blank(t.front())) t.remove_prefix(1);
  while (!t.empty() && blank(t.back())) t.remove_suffix(1);
  return t;
}

// Whether `t` has a control character (below 32, or 127), eight bytes at a
// time: a byte below 32 is the only one whose x - 32 sets a high bit that x
// lacks (a borrow from a lower byte happens only below a byte that is itself
// below 32), and 127 the only one whose x ^ 127 is zero.
static bool hasControl(std::string_view t) {
  constexpr uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
  size_t i = 0;
  for (; i + 8 <= t.size(); i += 8) {
    uint64_t x;
    std::memcpy(&x, t.data() + i, 8);
    uint64_t del = x ^ (127 * ones);
    if ((((x - 32 * ones) & ~x) | ((del - ones) & ~del)) & highs) return true;
  }
  for (; i < t.size(); ++i)
    if (static_cast<unsigned char>(t[i]) < 32 || t[i] == 127) return true;
  return false;
}

// Appends `t` with each control character as a space: comments are one line
// of printable text (a line ending in a form feed must not print as a
// comment ending in a space the reader strips; trimming came first).
void FnLowerer::appendPrintable(std::string_view t, std::string &out) {
  size_t from = out.size();
  out.append(t);
  if (!hasControl(t)) return;
  for (size_t i = from; i < out.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(out[i]);
    if (c < 32 || c == 127) out[i] = ' ';
  }
}

NodeId FnLowerer::node(Op op, std::initializer_list<Opnd> ops, DType dt, NodeHint hint) {
  return nodeV(op, std::span<const Opnd>(ops.begin(), ops.size()), dt, hint);
}

NodeId FnLowerer::konstLit(DType dt, const Literal &l) {
  Opnd o{NodeId::none()};
  o.lit = true;
  o.l = l;
  return nodeV(Op::Const, std::span<const Opnd>(&o, 1), dt, "c");
}

NodeId FnLowerer::konst(DType dt, uint64_t bits) {
  if (isInteger(dt)) bits = normalize(bits, dt);
  Literal l;
  if (dt == DType::Bool) {
    l.kind = Literal::Kind::Bool;
    l.magnitude = bits ? 1 : 0;
  } else if (isFloat(dt)) {
    l.kind = Literal::Kind::Float;
    if (dt == DType::F32) {
      float f;
      uint32_t b = static_cast<uint32_t>(bits);
      std::memcpy(&f, &b, 4);
      l.f = f;
    } else {
      std::memcpy(&l.f, &bits, 8);
    }
  } else if (isSigned(dt) && static_cast<int64_t>(bits) < 0) {
    l.negative = true;
    l.magnitude = 0 - bits;
  } else {
    l.magnitude = bits;
  }
  return konstLit(dt, l);
}

NodeId FnLowerer::newCell(DType dt, const std::string &var, bool mut, NodeHint hint, NodeId count) {
  NodeId b = count.valid() ? node(Op::Buffer, {count}, dt, hint) : node(Op::Buffer, {Opnd::ofU64(1)}, dt, hint);
  addStorage(Storage{b, b, dt, static_cast<uint32_t>(regions.size()), var, mut});
  return b;
}

uint32_t FnLowerer::addStorage(Storage st) {
  const auto s = static_cast<uint32_t>(storages.size());
  if (st.mut) {
    auto it = mutByVar.find(std::string_view(st.var));
    if (it == mutByVar.end()) it = mutByVar.emplace(st.var, std::vector<uint32_t>{}).first;
    it->second.push_back(s);
  }
  storages.push_back(std::move(st));
  return s;
}

void FnLowerer::nameStorage(uint32_t s, const std::string &var) {
  Storage &st = storages[s];
  if (st.mut) {
    auto it = mutByVar.find(std::string_view(st.var));
    CAIRN_CHECK(it != mutByVar.end(), "storage " << s << " is not indexed");
    std::vector<uint32_t> &from = it->second;
    from.erase(std::find(from.begin(), from.end(), s));
    std::vector<uint32_t> &to = mutByVar[var];
    to.insert(std::lower_bound(to.begin(), to.end(), s), s);
  }
  st.var = var;
}

// A loop's break and continue flags, once the loop has ended: nothing reads
// them again. A region that may set flags carries every mutable internal
// cell, so without this each loop carried the flags of every loop before it
// in the function (quadratic in a function of loops with `continue`).
void FnLowerer::retireLoopFlags(const LoopFlags &lf) {
  for (int f : {lf.brk, lf.cont}) {
    if (f < 0) continue;
    Storage &st = storages[static_cast<uint32_t>(f)];
    auto it = mutByVar.find(std::string_view(st.var));
    CAIRN_CHECK(st.mut && it != mutByVar.end(), "loop flag " << f << " is not a mutable cell");
    std::vector<uint32_t> &l = it->second;
    l.erase(std::find(l.begin(), l.end(), static_cast<uint32_t>(f)));
    st.mut = false;
  }
}

void FnLowerer::dropStorages(size_t mark) {
  for (size_t s = storages.size(); s-- > mark;) {
    if (!storages[s].mut) continue;
    auto it = mutByVar.find(std::string_view(storages[s].var));
    CAIRN_CHECK(it != mutByVar.end() && !it->second.empty() && it->second.back() == s,
                "storage " << s << " is not the last of its variable's");
    it->second.pop_back();
  }
  storages.resize(mark);
}

void FnLowerer::guard(NodeId cond, const std::string &msg) {
  NodeId gd = node(Op::Guard, {cond}, DType::None, "guard");
  g->setText(gd, msg);
}

// ---------------------------------------------------------------- regions

void FnLowerer::openRegion(NodeId count, NameSet &names, bool flags) {
  names.seal();
  if (regions.size() == 4000 && !regionLimitHit) {  // the oracle's limit for modules is 4096
    error(cur, "E-LIMIT", "this function nests more than 4000 regions (loops, ifs and the code after early exits)");
    regionLimitHit = true;  // stmts lowers nothing more: each level is frames on the native stack
  }
  NodeId r = node(Op::Range, {count}, DType::None, "r");
  Region reg;
  reg.range = r;
  reg.storageMark = storages.size();
  // The mutable storages of the names it mentions (and the internal ones
  // when it may set flags), in the order they were made.
  SmallVec<uint32_t, 16> carry;
  auto take = [&](std::string_view var) {
    if (auto it = mutByVar.find(var); it != mutByVar.end())
      carry.insert(carry.end(), it->second.data(), it->second.data() + it->second.size());
  };
  if (flags) take("");
  for (std::string_view n : names.v)
    if (!n.empty()) take(n);
  std::sort(carry.begin(), carry.end());
  for (uint32_t s : carry) {
    Storage &st = storages[s];
    reg.carried.push_back(s);
    reg.outer.push_back(st.cur);
    st.cur = node(Op::Carry, {st.cur}, DType::None, "carry");
  }
  regions.push_back(std::move(reg));
}

void FnLowerer::closeRegion() {
  Region reg = std::move(regions.back());
  regions.pop_back();
  dropStorages(reg.storageMark);
  SmallVec<Opnd, 8> ops{reg.range};
  for (uint32_t s : reg.carried) ops.push_back(storages[s].cur);
  NodeId e = nodeV(Op::End, std::span<const Opnd>(ops.data(), ops.size()), DType::None, "end");
  for (size_t i = 0; i < reg.carried.size(); ++i)
    storages[reg.carried[i]].cur = node(Op::After, {reg.outer[i], e}, DType::None, "v");
}

void FnLowerer::openIf(NodeId cond, NameSet &names, bool flags) {
  NodeId n = node(Op::Cast, {cond}, DType::U64, "if");
  openRegion(n, names, flags);
}

// ---------------------------------------------------------------- elements

NodeId FnLowerer::colView(const Col &c) {
  if (c.k == Col::Cell) return storages[c.storage].cur;
  return node(Op::Deref, {c.handle, Opnd::ofU64(c.col)}, c.dt, "heap");
}

// The one-element view of element idx (relative to [lo, hi) when given).
// A cell of literal size read at a literal index is proven by the oracle;
// everything else is checked when it runs.
NodeId FnLowerer::elemView(const Col &c, NodeId idx, NodeId lo, NodeId hi, NodeId *root) {
  NodeId base = colView(c);
  if (root) *root = base;
  if (lo.valid()) base = node(Op::Part, {base, lo, hi}, DType::None, "part");
  bool proven = !lo.valid() && !idx.valid() && c.k == Col::Cell &&
                g->op(storages[c.storage].root) == Op::Buffer && g->operands(storages[c.storage].root)[0].isLit();
  NodeId v = proven ? node(Op::Shrink, {base, Opnd::ofU64(0)}, DType::None, "at")
                    : node(Op::CShrink, {base, idx.valid() ? Opnd(idx) : Opnd::ofU64(0)}, DType::None, "at");
  g->setShapeGiven(v);
  return v;
}

NodeId FnLowerer::loadLeaf(const Col &c, NodeId idx, NodeId lo, NodeId hi) {
  if (c.k == Col::Cell && !idx.valid() && !lo.valid()) {  // forwarded (Storage::stored)
    const Storage &st = storages[c.storage];
    if (st.stored.valid() && st.stored == st.cur) return st.storedValue;
  }
  NodeId v = elemView(c, idx, lo, hi);
  return node(Op::Load, {v}, DType::None, "ld");
}

void FnLowerer::storeLeaf(const Col &c, NodeId idx, NodeId value, NodeId lo, NodeId hi) {
  NodeId root;
  NodeId v = elemView(c, idx, lo, hi, &root);
  NodeId s = node(Op::Store, {v, value}, DType::None, "st");
  NodeId after = node(Op::After, {root, s}, DType::None, "v");
  if (c.k != Col::Cell) return;
  Storage &st = storages[c.storage];
  st.cur = after;
  if (g->op(v) == Op::Shrink && value.valid()) {  // elemView's proven view: element 0 of a literal-size cell
    st.stored = after;
    st.storedValue = value;
  }
}

// A record or sum result goes out through the caller's out-views.
void FnLowerer::storeSret(const Val &v) {
  for (size_t k = 0; k < sretStorages.size() && k < v.leaves.size(); ++k) {
    Col c;
    c.storage = sretStorages[k];
    c.dt = storages[sretStorages[k]].dt;
    storeLeaf(c, {}, v.leaves[k]);
  }
}

Val FnLowerer::loadPlace(const Place &p) {
  Val v;
  v.ty = p.ty;
  for (const Col &c : p.leaves) v.leaves.push_back(loadLeaf(c, p.idx, p.partLo, p.partHi));
  return v;
}

void FnLowerer::storePlace(const Place &p, const Val &v) {
  for (size_t i = 0; i < p.leaves.size() && i < v.leaves.size(); ++i)
    storeLeaf(p.leaves[i], p.idx, v.leaves[i], p.partLo, p.partHi);
}

// Moving out of a place leaves zeros behind in its owner leaves, so the
// scope's release of that place finds nothing to free.
void FnLowerer::zeroOwners(const Place &p) {
  const auto &lv = P.leaves(p.ty);
  for (size_t i = 0; i < lv.size() && i < p.leaves.size(); ++i)
    if (lv[i].own) storeLeaf(p.leaves[i], p.idx, u64c(0), p.partLo, p.partHi);
}

void FnLowerer::freeOwners(const Val &v) {
  const auto &lv = P.leaves(v.ty);
  for (size_t i = 0; i < lv.size() && i < v.leaves.size(); ++i)
    if (lv[i].own) node(Op::Free, {v.leaves[i]}, DType::None, "free");
}

Place FnLowerer::elemPlace(const Arr &a, NodeId idx) {
  Place p;
  p.ty = a.elem;
  p.leaves = a.cols;
  p.writable = a.writable;
  if (a.off.valid()) {
    p.partLo = a.off;
    p.partHi = node(Op::Add, {a.off, a.len}, DType::None, "hi");
  }
  p.idx = idx;
  return p;
}

Place FnLowerer::fieldPlace(const Place &p, uint32_t fieldIdx) {
  Place out = p;
  const sema::TypeRec &r = P.type(p.ty);
  const sema::RecInst &ri = P.recs[r.inst];
  const sema::Field &f = ri.fields[fieldIdx];
  size_t n = P.leaves(f.ty).size();
  if (f.leaf + n > p.leaves.size()) {  // only after an error in the record's type
    out.leaves.clear();
    out.ty = P.errorTy();
    return out;
  }
  out.ty = f.ty;
  out.leaves.assign(p.leaves.begin() + f.leaf, p.leaves.begin() + f.leaf + n);
  return out;
}

Place FnLowerer::cellPlace(Ty ty, const std::string &var, bool mut, NodeHint hint) {
  Place p;
  p.ty = ty;
  for (const sema::Leaf &l : P.leaves(ty)) {
    newCell(l.dt, var, mut, hint);
    Col c;
    c.k = Col::Cell;
    c.storage = static_cast<uint32_t>(storages.size() - 1);
    c.dt = l.dt;
    p.leaves.push_back(c);
  }
  return p;
}

NodeId FnLowerer::lenOf(Arr &a) {
  if (!a.len.valid()) a.len = a.cols.empty() ? u64c(0) : node(Op::Len, {colView(a.cols[0])}, DType::None, "n");
  return a.len;
}

Arr FnLowerer::arrOfBuf(Ty elem, NodeId handle, bool writable) {
  Arr a;
  a.elem = elem;
  a.writable = writable;
  uint32_t k = 0;
  for (const sema::Leaf &l : P.leaves(elem)) {
    Col c;
    c.k = Col::Heap;
    c.handle = handle;
    c.col = k++;
    c.dt = l.dt;
    a.cols.push_back(c);
  }
  // The length is read only where something asks for it (lenOf): an
  // element access needs none, and a loop over b[i] should not pay for one.
  return a;
}

Diagnostic &FnLowerer::error(Loc loc, const char *code, std::string msg) { return P.error(file, loc, code, std::move(msg)); }

Diagnostic &FnLowerer::unsupported(Loc loc, const std::string &what) {
  if (F.checkOnly) {  // never runs: nothing to refuse
    static Diagnostic sink;
    sink = Diagnostic{};
    return sink;
  }
  return P.error(file, loc, "E-UNSUPPORTED", what + " is not supported by `cairn run` yet");
}

}  // namespace cairn::lower
