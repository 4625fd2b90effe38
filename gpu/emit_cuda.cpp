// The CUDA emitter: splits a Schedule into what the host runs and what the
// device runs, then writes each device part with the C back end's node
// writer (exec/emit_c_writer.hpp) and the host part as the driver's entry.
//
// Placement, the one table of where things run (the schedule's order is
// kept throughout; "host level" is the top level and the bodies of host
// loops):
//
//   what (at host level)                        runs as
//   ------------------------------------------  -------------------------------
//   a parallel range and everything in it       a kernel: one lane per index,
//                                               CAIRN_CU_BLOCK threads a block,
//                                               grid-stride past
//                                               CAIRN_CU_GRID_MAX blocks; loops
//                                               inside run in the lane
//   a serial range with a parallel range at     a host loop: the host counts it
//   host level of its body                      and launches its body's parts
//                                               each iteration (a serial loop
//                                               on one GPU thread would leave
//                                               the inner parallel work on one
//                                               thread too)
//   any other serial range                      in a segment (below): a loop
//                                               that has no parallel work is
//                                               cheapest on one thread, next
//                                               to its data
//   scalar ops, loads, stores, views            a segment: consecutive ones
//                                               share one one-thread kernel
//                                               (the data lives on the device;
//                                               a host access would be a copy)
//   a buffer of dynamic size                    the host: its size is read back
//                                               and it is allocated, counted
//                                               against --max-elements, and
//                                               mirrored on the device
//   a reduce over a kernel's range              per thread, a block tree in
//                                               shared memory, then one block
//                                               over the blocks' results
//                                               (float add/mul: in index order
//                                               under exactFloatReduce)
//   a reduce over a host loop                   a spill cell the host sets to
//                                               the identity; a one-thread
//                                               kernel combines each iteration
//
// A scalar or view offset computed in one kernel and used by another (or by
// the host: a count, a size) goes through the spill (gpu/cairn_cu.h); a
// host loop's index is an argument of every kernel inside it.
#include "gpu/emit_cuda.hpp"

#include <set>

#include "exec/emit_c_writer.hpp"

namespace cairn {

extern const char kCudaEmuText[];
extern const char kCudaRuntimeText[];

namespace cemit {
namespace {

constexpr uint32_t kHost = UINT32_MAX, kSpill = UINT32_MAX - 1, kNone = UINT32_MAX - 2;

class CudaWriter : public CWriter {
 public:
  CudaWriter(const Graph &g, const Facts &f, const Schedule &s, const EmitOptions &base, const CudaEmitOptions &co,
             std::string &out)
      : CWriter(g, f, s, base, out), co_(co) {}

  void run() {
    prepare();
    const uint32_t n = g_.size();
    unitOf_.assign(n, kNone);
    spill_.assign(n, -1);
    findLoops();
    std::vector<Item> items = plan(0, n);
    for (uint32_t u = 0; u < units_; ++u) imports_.emplace_back();
    collectImports(items);
    host_.clear();
    hdepth_ = 1;
    emitItems(items);
    writeProgram();
  }

 private:
  struct Item {
    enum Kind { Seg, Kernel, Loop, DynBuf } kind = Seg;
    uint32_t unit = kNone;
    NodeId node;                  // Kernel, Loop: the range; DynBuf: the buffer
    NodeId end;                   // Kernel, Loop: the range's end
    std::vector<NodeId> nodes;    // Seg: its nodes in order; Kernel: the body (range and end excluded)
    std::vector<Item> body;       // Loop
  };

  // ---- planning ------------------------------------------------------------

  // endAt_[p]: for a range at schedule position p, its end's position;
  // hostLoop_: serial ranges the host runs (a parallel range at host level
  // of their body).
  void findLoops() {
    const auto &ord = s_.order;
    endAt_.assign(ord.size(), 0);
    hostLoop_.assign(g_.size(), 0);
    std::vector<uint32_t> open;
    for (uint32_t p = 0; p < ord.size(); ++p) {
      NodeId x = ord[p];
      if (!x.valid() || x.v >= g_.size()) fail("the schedule names a node that does not exist");
      if (g_.op(x) == Op::Range) {
        if (g_.parallel(x)) {
          bool inKernel = false;
          for (uint32_t q : open) inKernel = inKernel || g_.parallel(ord[q]);
          if (!inKernel)
            for (uint32_t q : open) hostLoop_[ord[q].v] = 1;
        }
        open.push_back(p);
      } else if (g_.op(x) == Op::End) {
        if (open.empty()) fail("an end outside any loop");
        endAt_[open.back()] = p;
        open.pop_back();
      }
    }
    if (!open.empty()) fail("a loop is not closed in the schedule");
  }

  NodeId rangeOfReduce(NodeId r) const {
    auto ops = g_.operands(r);
    if (ops.size() != 2 || ops[0].isLit()) return NodeId{};
    auto eops = g_.operands(ops[0].node());
    return eops.empty() || eops[0].isLit() ? NodeId{} : eops[0].node();
  }
  // Whether reduce r is over a kernel's range or a host loop.
  bool reduceAtHost(NodeId r) const {
    NodeId rg = rangeOfReduce(r);
    return rg.valid() && (unitOf_[rg.v] == kHost || kernelRange_.count(rg.v));
  }

  std::vector<Item> plan(uint32_t from, uint32_t to) {
    const auto &ord = s_.order;
    std::vector<Item> items;
    auto seg = [&]() -> Item & {
      if (items.empty() || items.back().kind != Item::Seg) {
        items.emplace_back();
        items.back().unit = units_++;
      }
      return items.back();
    };
    for (uint32_t p = from; p < to;) {
      NodeId x = ord[p];
      Op op = g_.op(x);
      if (op == Op::Range) {
        uint32_t e = endAt_[p];
        Item it;
        it.node = x;
        it.end = ord[e];
        if (g_.parallel(x)) {
          it.kind = Item::Kernel;
          it.unit = units_++;
          kernelRange_.insert(x.v);
          for (uint32_t q = p; q <= e; ++q) unitOf_[ord[q].v] = it.unit;
          for (uint32_t q = p + 1; q < e; ++q) it.nodes.push_back(ord[q]);
        } else if (hostLoop_[x.v]) {
          it.kind = Item::Loop;
          unitOf_[x.v] = unitOf_[ord[e].v] = kHost;
          it.body = plan(p + 1, e);
        } else {
          Item &s = seg();
          for (uint32_t q = p; q <= e; ++q) s.nodes.push_back(ord[q]), unitOf_[ord[q].v] = s.unit;
          p = e + 1;
          continue;
        }
        items.push_back(std::move(it));
        p = e + 1;
        continue;
      }
      if (op == Op::Buffer) {
        uint32_t bi = bufOf_[x.v];
        if (bi == UINT32_MAX) fail(pct(x) + " is not a buffer");
        unitOf_[x.v] = kHost;
        if (bufs_[bi].dynamic) {
          Item it;
          it.kind = Item::DynBuf;
          it.node = x;
          items.push_back(std::move(it));
        }
        ++p;
        continue;
      }
      if (op == Op::Reduce && reduceAtHost(x)) {
        unitOf_[x.v] = kSpill;
        spillCell(x);
        ++p;
        continue;
      }
      Item &s = seg();
      s.nodes.push_back(x);
      unitOf_[x.v] = s.unit;
      ++p;
    }
    return items;
  }

  void spillCell(NodeId x) {
    if (spill_[x.v] < 0) spill_[x.v] = static_cast<int32_t>(cells_++);
  }
  // A value a unit (or the host) reads: true when it comes from elsewhere.
  bool isValue(NodeId y) const {
    ResultKind k = f_.kind[y.v];
    return k == ResultKind::Scalar || k == ResultKind::View || k == ResultKind::Index;
  }
  void import(uint32_t unit, NodeId y) {
    if (!isValue(y) || unitOf_[y.v] == unit || unitOf_[y.v] == kHost) return;  // host: a loop index (an argument)
    spillCell(y);
    auto &v = imports_[unit];
    if (std::find(v.begin(), v.end(), y) == v.end()) v.push_back(y);
  }
  // What the host reads: counts and sizes.
  void hostUse(Operand o) {
    if (o.isLit() || !o.node().valid()) return;
    NodeId y = o.node();
    if (unitOf_[y.v] != kHost) spillCell(y);
  }

  void collectImports(const std::vector<Item> &items) {
    for (const Item &it : items) {
      switch (it.kind) {
        case Item::Seg:
        case Item::Kernel:
          for (NodeId x : it.nodes) {
            if (g_.op(x) == Op::Reduce && unitOf_[x.v] == kSpill) continue;
            for (Operand o : g_.operands(x))
              if (!o.isLit() && o.node().valid()) import(it.unit, o.node());
          }
          if (it.kind == Item::Kernel) hostUse(g_.operands(it.node)[0]);
          break;
        case Item::Loop:
          hostUse(g_.operands(it.node)[0]);
          collectImports(it.body);
          reduces_.forEach(it.node, [&](NodeId r) { hostUse(g_.operands(r)[1]); });
          break;
        case Item::DynBuf: hostUse(g_.operands(it.node)[0]); break;
      }
    }
  }

  // ---- device code -----------------------------------------------------------

  std::string trapCtx() const override { return "&cx"; }
  void afterTrap(NodeId) override {
    line("if (cx.hit) goto cairn_out;");
    traps_ = true;
  }
  void buffer(NodeId n, std::span<const Operand>) override { fail(pct(n) + " is not at host level"); }

  std::string P() const { return o_.prefix; }
  std::string valueType(NodeId y) const {
    return f_.kind[y.v] == ResultKind::View ? "int64_t" : std::string(cType(f_.type[y.v]));
  }
  // Whether a value's C is a local variable (`vK`, its own or, for a view
  // that shrinks by 0, its parent's), which another kernel has to read from
  // the spill; a constant is the same text everywhere.
  bool isLocal(NodeId y) const {
    const std::string &e = expr_[y.v];
    return e.size() > 1 && e[0] == 'v' && e.find_first_not_of("0123456789", 1) == std::string::npos;
  }

  // The parameters every kernel inside the current host loops takes.
  std::string hostParams() const {
    std::string s;
    for (NodeId h : hostIdx_) s += ", " + std::string(cType(f_.type[h.v])) + " " + v(h);
    return s;
  }
  std::string hostArgs() const {
    std::string s;
    for (NodeId h : hostIdx_) s += ", " + v(h);
    return s;
  }
  // A kernel's opening: the stale check, the buffers and the imports.
  std::string prologue(uint32_t unit) const {
    std::string s = "  if (cairn_cu_stale(d->trap, seq)) return;\n";
    for (uint32_t bi = 0; bi < bufs_.size(); ++bi) {
      std::string t = cType(bufs_[bi].type), b = bufName(bi);
      s += "  " + t + " *__restrict__ " + b + " = d->" + b + ";\n  (void)" + b + ";\n";
      if (bufs_[bi].dynamic) s += "  const uint64_t " + b + "_n = d->" + b + "_n;\n  (void)" + b + "_n;\n";
    }
    std::set<std::string> declared;  // an alias and its target: one local
    for (NodeId y : imports_[unit])
      if (isLocal(y) && declared.insert(expr_[y.v]).second)
        s += "  const " + valueType(y) + " " + expr_[y.v] + " = cairn_cu_get<" + valueType(y) + ">(d->spill, " +
             std::to_string(spill_[y.v]) + "u);" + note(y) + "\n";
    return s;
  }
  std::string kernelHead(const std::string &name, const std::string &extra) const {
    return "\nstatic __global__ void " + name + "(const " + P() + "_dev *__restrict__ d, cairn_cu_u64 seq" + extra +
           hostParams() + ") {\n";
  }
  // The spill writes of a unit's values that others read.
  void exports(const std::vector<NodeId> &nodes) {
    for (NodeId x : nodes)
      if (spill_[x.v] >= 0 && unitOf_[x.v] != kSpill && isLocal(x))
        line("cairn_cu_put<" + valueType(x) + ">(d->spill, " + std::to_string(spill_[x.v]) + "u, " + expr_[x.v] + ");");
  }
  void nodes(const std::vector<NodeId> &ns) {
    for (NodeId x : ns) {
      if (!(g_.op(x) == Op::Reduce && unitOf_[x.v] == kSpill)) node(x);
      done_[x.v] = 1;
    }
  }
  void hline(const std::string &t) {
    host_.append(static_cast<size_t>(hdepth_) * 2, ' ');
    host_ += t;
    host_ += '\n';
  }
  void launch(const std::string &kernel, const std::string &grid, const std::string &args) {
    hline("++H.seq;");
    hline("CAIRN_LAUNCH(" + kernel + ", " + grid + ", d, H.seq" + args + hostArgs() + ");");
    hline("cairn_cu_launched(&H);");
  }

  void emitSegment(const Item &it) {
    std::string text;
    body_ = &text;
    depth_ = 2;
    traps_ = false;
    nodes(it.nodes);
    exports(it.nodes);
    if (depth_ != 2) fail("a loop is not closed in a segment");
    if (text.empty()) return;
    const std::string name = P() + "_s" + std::to_string(it.unit);
    dev_ += kernelHead(name, "") + prologue(it.unit) + "  cairn_cu_lane cx = {d->trap, seq, 0, 0};\n  {\n" + text +
            "  }\n" + (traps_ ? "cairn_out:;\n" : "") + "  (void)cx;\n}\n";
    launch(name, "1, 1", "");
  }

  // A count operand on the host, as C of dtype t.
  std::string hostValue(Operand o, DType t) {
    if (o.isLit()) return scalar(o, t);
    NodeId y = o.node();
    if (unitOf_[y.v] == kHost || !isLocal(y)) return scalar(o, t);
    if (spill_[y.v] < 0) fail(pct(y) + " has no spill cell");
    return "cairn_cu_read<" + valueType(y) + ">(&H, " + std::to_string(spill_[y.v]) + "u)";
  }
  // The count of range x on the host: declares `cN` (its dtype) and `nN`
  // (the number of iterations, as u64).
  std::string hostCount(NodeId x) {
    Operand c = g_.operands(x)[0];
    DType t = c.isLit() ? DType::I64 : typeOf(c);
    if (c.isLit()) {
      const Literal &l = g_.literal(c.lit());
      uint64_t k = l.kind == Literal::Kind::Int && !l.negative ? l.magnitude : 0;
      hline("const cairn_cu_u64 n" + v(x) + " = UINT64_C(" + std::to_string(k) + ");");
      return "n" + v(x);
    }
    if (!isInteger(t)) fail("the count of " + pct(x) + " is not an integer");
    hline("const " + std::string(cType(t)) + " c" + v(x) + " = " + hostValue(c, t) + ";");
    hline("const cairn_cu_u64 n" + v(x) + " = " +
          (isSigned(t) ? "c" + v(x) + " > 0 ? (cairn_cu_u64)c" + v(x) + " : 0;" : "(cairn_cu_u64)c" + v(x) + ";"));
    return "n" + v(x);
  }
  bool exactReduce(NodeId r) const {
    Op op = g_.reduceOp(r);
    return co_.exactFloatReduce && isFloat(f_.type[r.v]) && (op == Op::Add || op == Op::Mul);
  }
  std::string ident(NodeId r) const { return cConst(reduceIdentity(g_.reduceOp(r), f_.type[r.v]), f_.type[r.v]); }
  std::string combine(NodeId r, const std::string &acc, const std::string &x) {
    std::string s = combineStmt(g_.reduceOp(r), f_.type[r.v], acc, x);
    if (s.empty()) fail("a reduce with op `" + std::string(opInfo(g_.reduceOp(r)).name) + "`");
    return s;
  }

  void emitKernel(const Item &it) {
    NodeId x = it.node;
    Operand c = g_.operands(x)[0];
    const std::string ct = cType(c.isLit() ? DType::I64 : typeOf(c)), name = P() + "_k" + std::to_string(it.unit);
    std::string text;
    body_ = &text;
    depth_ = 3;
    traps_ = false;
    expr_[x.v] = v(x);
    line("const " + ct + " " + v(x) + " = (" + ct + ")lane;" + note(x));
    done_[x.v] = 1;
    nodes(it.nodes);
    if (depth_ != 3) fail("a loop is not closed in the kernel of " + pct(x));
    std::vector<NodeId> reds;
    reduces_.forEach(x, [&](NodeId r) { reds.push_back(r); });
    std::string extra = ", cairn_cu_u64 n", fextra = ", cairn_cu_u64 n, cairn_cu_u64 nb", ptrs;
    for (NodeId r : reds) {
      const std::string t = cType(f_.type[r.v]), val = scalar(g_.operands(r)[1], f_.type[r.v]);
      const std::string arr = (exactReduce(r) ? "s" : "p") + v(r);
      line(exactReduce(r) ? arr + "[lane] = " + val + ";" + note(r) : combine(r, "a" + v(r), val) + note(r));
      extra += ", " + t + " *__restrict__ " + arr;
      fextra += ", const " + t + " *__restrict__ " + arr;
      ptrs += exactReduce(r) ? ", " + arr : ", h." + arr;
      if (!exactReduce(r)) partials_.push_back({r.v, f_.type[r.v]});
    }
    const std::string args = ", n" + v(x) + ptrs, fargs = ", n" + v(x) + ", n" + v(x) + " ? g" + v(x) + " : 0" + ptrs;
    std::string k = kernelHead(name, extra) + prologue(it.unit);
    for (NodeId r : reds)
      if (!exactReduce(r)) k += "  " + std::string(cType(f_.type[r.v])) + " a" + v(r) + " = " + ident(r) + ";\n";
    // A kernel that can trap stops each thread, every 64 of its lanes, once
    // a lower lane of this launch has trapped: its later lanes cannot be
    // the first trap, and a huge count must not run on after lane 0 did.
    k += std::string("  for (cairn_cu_u64 lane = (cairn_cu_u64)blockIdx.x * blockDim.x + threadIdx.x, it = 0; lane < n;\n"
                     "       lane += (cairn_cu_u64)gridDim.x * blockDim.x, ++it) {\n") +
         (traps_ ? "    if ((it & 63u) == 63u && cairn_cu_passed(d->trap, seq, lane)) break;\n" : "") +
         "    {\n      cairn_cu_lane cx = {d->trap, seq, lane, 0};\n" + text + "      (void)cx;\n    }\n" +
         (traps_ ? "  cairn_out:;\n" : "") + "  }\n";
    for (NodeId r : reds)
      if (!exactReduce(r)) k += blockReduce(r, "a" + v(r), "p" + v(r) + "[blockIdx.x] = a" + v(r) + ";");
    dev_ += k + "}\n";
    // The host: the count, the grid, the launch, and the reduces' last step.
    hline("{" + note(x));
    ++hdepth_;
    const std::string n = hostCount(x);
    hline("const unsigned g" + v(x) + " = cairn_cu_grid(" + n + ");");
    bool scratch = false;
    for (NodeId r : reds)
      if (exactReduce(r)) {
        const std::string t = cType(f_.type[r.v]);
        if (!scratch) hline("cairn_cu_check(&H); /* an earlier trap comes before running out of memory */");
        scratch = true;
        hline(t + " *s" + v(r) + " = (" + t + " *)cairn_cu_alloc_n(&H, " + n + ", sizeof(" + t + "));");
      }
    hline("if (" + n + ") {");
    ++hdepth_;
    launch(name, "g" + v(x) + ", CAIRN_CU_BLOCK", args);
    --hdepth_;
    hline("}");
    if (!reds.empty()) {
      const std::string fname = P() + "_f" + std::to_string(it.unit);
      std::string f = kernelHead(fname, fextra) + "  if (cairn_cu_stale(d->trap, seq)) return;\n";
      // The blocks' results on one block (in a fixed order: deterministic);
      // exact float reductions: every lane's value, in index order, on one
      // thread.
      for (NodeId r : reds) {
        const std::string t = cType(f_.type[r.v]), put = "cairn_cu_put<" + t + ">(d->spill, " + std::to_string(spill_[r.v]) + "u, ";
        if (exactReduce(r)) {
          f += "  if (threadIdx.x == 0) {\n    " + t + " acc = " + ident(r) + ";\n    for (cairn_cu_u64 b = 0; b < n; ++b) {\n"
               "      const " + t + " x = s" + v(r) + "[b];\n      " + combine(r, "acc", "x") + "\n    }\n    " + put + "acc);\n  }\n";
        } else {
          f += "  " + t + " a" + v(r) + " = " + ident(r) + ";\n  for (cairn_cu_u64 b = threadIdx.x; b < nb; b += blockDim.x) {\n"
               "    const " + t + " x = p" + v(r) + "[b];\n    " + combine(r, "a" + v(r), "x") + "\n  }\n" +
               blockReduce(r, "a" + v(r), put + "a" + v(r) + ");");
        }
        expr_[r.v] = v(r);
        done_[r.v] = 1;
      }
      dev_ += f + "  (void)n;\n  (void)nb;\n}\n";
      launch(fname, "1, CAIRN_CU_BLOCK", fargs);
      for (NodeId r : reds)
        if (exactReduce(r)) hline("cairn_cu_release(&H, s" + v(r) + ");");
    }
    --hdepth_;
    hline("}");
    done_[it.end.v] = 1;
  }

  // A block's tree over each thread's `acc` of reduce r, in shared memory
  // (the block size is a power of two); then thread 0 runs `done` with the
  // block's result in `acc`.
  std::string blockReduce(NodeId r, const std::string &acc, const std::string &done) {
    const std::string t = cType(f_.type[r.v]);
    return "  {\n    __shared__ " + t + " sh[CAIRN_CU_BLOCK];\n    sh[threadIdx.x] = " + acc +
           ";\n    __syncthreads();\n    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {\n      if (threadIdx.x < s) {\n"
           "        const " + t + " x = sh[threadIdx.x + s];\n        " + combine(r, acc, "x") + "\n        sh[threadIdx.x] = " +
           acc + ";\n      }\n      __syncthreads();\n    }\n    if (threadIdx.x == 0) " + done + "\n  }\n";
  }

  void emitHostLoop(const Item &it) {
    NodeId x = it.node;
    Operand c = g_.operands(x)[0];
    std::vector<NodeId> reds;
    reduces_.forEach(x, [&](NodeId r) { reds.push_back(r); });
    hline("{" + note(x));
    ++hdepth_;
    for (NodeId r : reds)
      hline("cairn_cu_write<" + std::string(cType(f_.type[r.v])) + ">(&H, " + std::to_string(spill_[r.v]) + "u, " +
            ident(r) + ");" + note(r));
    if (c.isLit()) {
      const Literal &l = g_.literal(c.lit());
      uint64_t count = l.kind == Literal::Kind::Int && !l.negative ? l.magnitude : 0;
      if (count > static_cast<uint64_t>(INT64_MAX)) {  // counted unsigned, as the interpreter does
        hline("for (cairn_cu_u64 " + v(x) + "_u = 0; " + v(x) + "_u < UINT64_C(" + std::to_string(count) + "); ++" +
              v(x) + "_u) {");
        hline("  const int64_t " + v(x) + " = (int64_t)" + v(x) + "_u;");
      } else {
        hline("for (int64_t " + v(x) + " = 0; " + v(x) + " < INT64_C(" + std::to_string(count) + "); ++" + v(x) + ") {");
      }
    } else {
      DType t = typeOf(c);
      if (!isInteger(t)) fail("the count of " + pct(x) + " is not an integer");
      const std::string ct = cType(t);
      hline("const " + ct + " c" + v(x) + " = " + hostValue(c, t) + ";");
      hline("for (" + ct + " " + v(x) + " = 0; " + v(x) + " < c" + v(x) + "; ++" + v(x) + ") {");
    }
    ++hdepth_;
    expr_[x.v] = v(x);
    done_[x.v] = 1;
    hostIdx_.push_back(x);
    emitItems(it.body);
    for (NodeId r : reds) emitHostCombine(r);
    // After a trap every launch returns at once, but the loop would still
    // count on: look every 64 iterations (a copy that waits for the device).
    hline("if ((++H.iters & 63u) == 0) cairn_cu_check(&H);");
    hostIdx_.pop_back();
    --hdepth_;
    hline("}");
    --hdepth_;
    hline("}");
    for (NodeId r : reds) expr_[r.v] = v(r), done_[r.v] = 1;
    done_[it.end.v] = 1;
  }

  // One iteration's step of a reduce over a host loop, on one thread.
  void emitHostCombine(NodeId r) {
    DType t = f_.type[r.v];
    const std::string ts = cType(t), name = P() + "_c" + std::to_string(r.v), cell = std::to_string(spill_[r.v]) + "u";
    Operand o = g_.operands(r)[1];
    std::string val;
    if (!o.isLit() && unitOf_[o.node().v] != kHost && isLocal(o.node()))
      val = "cairn_cu_get<" + ts + ">(d->spill, " + std::to_string(spill_[o.node().v]) + "u)";
    else
      val = scalar(o, t);
    dev_ += kernelHead(name, "") + "  if (cairn_cu_stale(d->trap, seq)) return;\n  " + ts + " acc = cairn_cu_get<" + ts +
            ">(d->spill, " + cell + ");\n  const " + ts + " x = " + val + ";\n  " + combine(r, "acc", "x") +
            "\n  cairn_cu_put<" + ts + ">(d->spill, " + cell + ", acc);\n}\n";
    launch(name, "1, 1", "");
  }

  void emitDynBuf(const Item &it) {
    NodeId b = it.node;
    uint32_t bi = bufOf_[b.v];
    Operand so = g_.operands(b)[0];
    DType st = typeOf(so);
    if (!isInteger(st)) fail("the size of " + pct(b) + " is not an integer");
    const std::string t = cType(bufs_[bi].type), B = bufName(bi), I = std::to_string(bi);
    hline("{" + note(b));
    ++hdepth_;
    hline("cairn_cu_check(&H); /* an earlier trap on the device comes first */");
    hline("const " + std::string(cType(st)) + " z = " + hostValue(so, st) + ";");
    hline(std::string("void *hb = cairn_rt_alloc_dyn(rt, ") + I + "u, " +
          (isSigned(st) ? "(uint64_t)(int64_t)z, z < 0);" : "(uint64_t)z, 0);"));
    hline("h." + B + " = (" + t + " *)cairn_cu_mirror(&H, hb, (size_t)rt->bufs[" + I + "].n * sizeof(" + t + "));");
    hline("h." + B + "_n = rt->bufs[" + I + "].n;");
    hline("cairn_cu_ok(&H, cudaMemcpy(d, &h, sizeof h, cudaMemcpyHostToDevice), \"cudaMemcpy to the device\");");
    --hdepth_;
    hline("}");
    done_[b.v] = 1;
  }

  // The device struct, the kernels, the entry and the tables.
  void writeProgram() {
    const std::string p = P();
    std::string &o = out_;
    o += "\n/* ---- the program: " + p + "_entry, " + p + "_prog ---- */\n\n";
    writeData();
    o += "\n/* What every kernel of the program reads (one copy in device memory). */\nstruct " + p +
         "_dev {\n  cairn_cu_trap *trap;\n  cairn_cu_u64 *spill;\n";
    for (uint32_t bi = 0; bi < bufs_.size(); ++bi) {
      o += "  " + std::string(cType(bufs_[bi].type)) + " *" + bufName(bi) + ";" + note(bufs_[bi].node) + "\n";
      if (bufs_[bi].dynamic) o += "  uint64_t " + bufName(bi) + "_n;\n";
    }
    for (auto [r, t] : partials_) o += "  " + std::string(cType(t)) + " *p" + v(NodeId{r}) + "; /* per-block results */\n";
    o += "};\n" + dev_;
    o += "\nstatic void " + p + "_entry(cairn_rt *rt) {\n  cairn_cu_host H;\n  " + p + "_dev h;\n  memset(&h, 0, sizeof h);\n" +
         "  cairn_cu_begin(&H, rt, " + std::to_string(cells_) + "u);\n  h.trap = H.trap;\n  h.spill = H.spill;\n";
    for (uint32_t bi = 0; bi < bufs_.size(); ++bi) {
      if (bufs_[bi].dynamic) continue;
      const std::string t = cType(bufs_[bi].type), I = std::to_string(bi);
      const std::string host = isParam(bi) ? "rt->bufs[" + I + "].p" : "cairn_rt_alloc(rt, " + I + "u)";
      o += "  h." + bufName(bi) + " = (" + t + " *)cairn_cu_mirror(&H, " + host + ", (size_t)rt->bufs[" + I +
           "].n * sizeof(" + t + "));" + note(bufs_[bi].node) + "\n";
    }
    for (auto [r, t] : partials_)
      o += "  h.p" + v(NodeId{r}) + " = (" + cType(t) + " *)cairn_cu_alloc(&H, (size_t)CAIRN_CU_GRID_MAX * sizeof(" +
           cType(t) + "));\n";
    o += "  " + p + "_dev *d = (" + p + "_dev *)cairn_cu_mirror(&H, &h, sizeof h);\n  (void)d;\n" + host_ +
         "  cairn_cu_check(&H);\n";
    for (uint32_t bi : slotOrder_) o += "  cairn_cu_copy_back(&H, " + std::to_string(bi) + "u, h." + bufName(bi) + ");\n";
    o += "  cairn_cu_end(&H);\n}\n\n";
    writeTables();
  }

  void emitItems(const std::vector<Item> &items) {
    for (const Item &it : items) {
      switch (it.kind) {
        case Item::Seg: emitSegment(it); break;
        case Item::Kernel: emitKernel(it); break;
        case Item::Loop: emitHostLoop(it); break;
        case Item::DynBuf: emitDynBuf(it); break;
      }
    }
  }

  const CudaEmitOptions &co_;
  std::vector<uint32_t> endAt_, unitOf_;
  std::vector<uint8_t> hostLoop_;
  std::vector<int32_t> spill_;
  std::set<uint32_t> kernelRange_;
  std::vector<std::vector<NodeId>> imports_;
  std::vector<NodeId> hostIdx_;
  std::vector<std::pair<uint32_t, DType>> partials_;  // kernel reduces' per-block arrays: (reduce node, dtype)
  uint32_t units_ = 0, cells_ = 0;
  std::string dev_, host_;
  int hdepth_ = 1;
  bool traps_ = false;
};

}  // namespace
}  // namespace cemit

std::string_view cudaEmuText() { return kCudaEmuText; }
std::string_view cudaRuntimeText() { return kCudaRuntimeText; }

namespace {

EmitOptions baseOptions(const CudaEmitOptions &o) {
  EmitOptions b;
  b.sourceName = o.sourceName;
  b.prefix = o.prefix;
  return b;
}

std::string header(const std::string &what) {
  std::string w = what;
  for (size_t p; (p = w.find("*/")) != std::string::npos;) w.replace(p, 2, "* /");
  return "/* " + w +
         ", written by `cairn emit cuda`.\n"
         " * Build: nvcc -O2 -std=c++17 --fmad=false -o prog THIS.cu (a GPU), or\n"
         " *        c++ -O1 -std=c++20 -pthread -x c++ -o prog THIS.cu (the CPU, gpu/cuda_emu.h).\n"
         " * Run with --help for its options. */\n\n"
         "#if !defined(__cplusplus)\n#error \"this is CUDA C++: compile it with nvcc or a C++ compiler\"\n#endif\n"
         "#define _Noreturn __attribute__((noreturn))\n#define restrict __restrict__\n"
         "#ifdef __CUDACC__ /* unused helpers and locals of the runtime and the kernels */\n"
         "#pragma nv_diag_suppress 177, 550\n#endif\n\n" +
         std::string(kCudaEmuText) + "\n" + std::string(cRuntimeText()) + "\n" + std::string(kCudaRuntimeText) + "\n";
}

}  // namespace

std::string emitCuda(const Graph &g, const Facts &facts, const Schedule &s, const CudaEmitOptions &opts) {
  std::string out = header("The .uir program " + opts.sourceName);
  EmitOptions b = baseOptions(opts);
  cemit::CudaWriter(g, facts, s, b, opts, out).run();
  if (opts.withMain) out += cemit::singleMain(opts.prefix);
  return out;
}

std::string emitCudaBatch(const std::vector<EmitUnit> &units, const CudaEmitOptions &opts) {
  std::string out = header(std::to_string(units.size()) + " .uir programs");
  for (size_t k = 0; k < units.size(); ++k) {
    const EmitUnit &u = units[k];
    CAIRN_CHECK(u.graph && u.facts && u.schedule, "emitCudaBatch: unit " << k << " has no graph");
    CudaEmitOptions o = opts;
    o.prefix = "cairn_p" + std::to_string(k);
    o.sourceName = u.sourceName;
    EmitOptions b = baseOptions(o);
    cemit::CudaWriter(*u.graph, *u.facts, *u.schedule, b, o, out).run();
  }
  out += cemit::batchTable(units.size(), opts.withMain);
  return out;
}

}  // namespace cairn
