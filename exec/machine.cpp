// The machine's slow paths shared by flat graphs and modules: --slot data,
// buffer allocation under the element limit, step and time limits, trap
// messages and locations, results and --trace (the module-only ones, frames
// and the heap, are in heap.cpp).
//
// None of this runs per instruction on the fast path: allocation runs once
// per buffer, limits once per ~64K steps (or when the step limit is near),
// traps once, and tracing only in the traced instantiation of the loop.
#include "exec/machine.hpp"

#include <algorithm>
#include <cstdio>
#include <iostream>

#include "exec/alu.hpp"
#include "exec/trap_text.hpp"
#include "ir/printer.hpp"

namespace cairn::exec {

namespace {

constexpr uint64_t kTimeCheckEvery = 65536;  // steps between clock reads

Bits readElem(DType t, const uint8_t *p, uint64_t i) {
  switch (t) {
#define CAIRN_C(P, D) \
  case DType::D: return loadElem<DType::D>(p, i);
    CAIRN_EXEC_DT(CAIRN_C, _)
#undef CAIRN_C
    default: return 0;
  }
}

void writeElem(DType t, uint8_t *p, uint64_t i, Bits v) {
  switch (t) {
#define CAIRN_C(P, D)                  \
  case DType::D:                       \
    storeElem<DType::D>(p, i, v);      \
    return;
    CAIRN_EXEC_DT(CAIRN_C, _)
#undef CAIRN_C
    default: return;
  }
}

std::string name(const Graph &g, NodeId n) {
  std::string s = "%";  // appended: GCC 12 warns falsely on "%" + std::string
  s += g.name(n);
  return s;
}

std::string secondsText(double s) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%g", s);
  return buf;
}

std::string stepLimitText(uint64_t maxSteps) { return formatTrap(kStepLimit.format, ull(maxSteps)); }

}  // namespace

Machine::Machine(const Program &prog, const RunOptions &opts, RunResult &res)
    : p(prog), cur(&prog), o(opts), r(res), regs(prog.nregs, 0), bt(prog.bufs.size()), mem_(prog.bufs.size()),
      slotVals_(prog.bufs.size()), hasSlotVals_(prog.bufs.size(), 0), start_(std::chrono::steady_clock::now()) {
  for (const auto &[reg, v] : prog.initSet) regs[reg] = v;
}

Machine::Machine(const std::vector<Program> &fns, int mainIdx, const ModuleRunOptions &mo, const RunOptions &opts,
                 RunResult &res, Externs &ext)
    : p(fns[static_cast<size_t>(mainIdx)]), cur(&p), o(opts), r(res), start_(std::chrono::steady_clock::now()),
      fns_(&fns), ext_(&ext), out_(mo.out ? mo.out : &std::cout), maxCallDepth_(mo.maxCallDepth) {}

void Machine::trapAt(NodeId n, std::string msg) {
  r.status = RunResult::Status::Trap;
  r.message = std::move(msg);
  r.loc = n.valid() ? cur->g->loc(n) : Loc{};
}

// A module's trap at instruction `at` of the running function.
void Machine::moduleFail(size_t at, std::string msg, RunResult::Status s) {
  moduleFailAt(at < cur->nodeOf.size() ? cur->nodeOf[at] : NodeId::none(), std::move(msg), s);
}

// A module's trap at node n of the running function (none: the function).
void Machine::moduleFailAt(NodeId n, std::string msg, RunResult::Status s) {
  const Program &f = *cur;
  r.status = s;
  r.message = std::move(msg);
  r.function = f.fn->name;
  if (!n.valid()) r.where = Origin{0, f.fn->loc};
  else if (n.v < f.fn->origin.size()) r.where = f.fn->origin[n.v];
  else r.where = Origin{0, f.fn->body.loc(n)};
}

void Machine::trap(const Ins *ip, uint64_t steps, std::string msg, RunResult::Status s, uint32_t back) {
  if (!cur->fn) return trapAt(ip, std::move(msg));
  // Steps were added up to the last counting instruction; ip's own step is
  // in the stretch that ends at the next one (Program::stepEnd).
  const Program &f = *cur;
  size_t k = static_cast<size_t>(ip - f.code.data());
  uint64_t exact = steps;
  if (!countsSteps(ip->op) || trapsBeforeCounting(ip->op)) {
    size_t j = k;
    while (!countsSteps(f.code[j].op)) ++j;  // a body ends with kRet
    size_t first = f.stepEnd[j] - f.code[j].w;
    exact = steps + (f.stepEnd[k] - back - first);
    const uint64_t maxSteps = o.limits.maxSteps;
    if (maxSteps != 0 && exact > maxSteps) {
      moduleFailAt(f.stepNodes[first + static_cast<size_t>(maxSteps - steps)], stepLimitText(maxSteps),
                   RunResult::Status::Trap);
      stepsSet_ = true;
      stepsAt_ = maxSteps + 1;
      return;
    }
  }
  moduleFailAt(f.stepNodes[f.stepEnd[k] - 1 - back], std::move(msg), s);
  stepsSet_ = true;
  stepsAt_ = exact;
}

bool Machine::prepare() {
  auto usage = [&](std::string m) {
    r.status = RunResult::Status::UsageError;
    r.message = std::move(m);
    return false;
  };
  for (const auto &entry : o.slotData) {
    const int64_t slot = entry.first;  // not a structured binding: clang 14 cannot capture those
    const auto &lits = entry.second;
    auto it = std::find_if(p.bufs.begin(), p.bufs.end(), [&](const BufDesc &b) { return b.slot == slot; });
    if (it == p.bufs.end()) return usage("--slot " + std::to_string(slot) + ": the program has no buffer with slot=" + std::to_string(slot));
    size_t bi = static_cast<size_t>(it - p.bufs.begin());
    if (!it->dynamic && lits.size() != it->size)
      return usage("slot " + std::to_string(slot) + " has " + std::to_string(it->size) + " elements, --slot gave " +
                   std::to_string(lits.size()));
    std::vector<Bits> vals;
    vals.reserve(lits.size());
    for (size_t k = 0; k < lits.size(); ++k) {
      auto v = literalBits(lits[k], it->type);
      if (!v)
        return usage("slot " + std::to_string(slot) + ": value " + std::to_string(k) + " (" + literalText(lits[k]) +
                     ") does not fit " + std::string(dtypeName(it->type)));
      vals.push_back(*v);
    }
    slotVals_[bi] = std::move(vals);
    hasSlotVals_[bi] = 1;
  }
  // Static buffers exist from the start, in source order; dynamic ones when
  // their `buffer` runs.
  for (uint32_t bi = 0; bi < p.bufs.size(); ++bi) {
    const BufDesc &b = p.bufs[bi];
    if (b.dynamic) continue;
    if (b.negative) {
      trapAt(b.node, kNegativeLiteralSize.format);
      return false;
    }
    if (!allocate(bi, b.size, b.node)) return false;
  }
  return true;
}

bool Machine::allocate(uint32_t bi, uint64_t count, NodeId at) {
  const uint64_t limit = o.limits.maxElements;
  total_ -= bt[bi].n;  // a buffer that runs again replaces its storage
  if (count > limit || total_ > limit - count) {
    trapAt(at, count <= limit ? formatTrap(kBufferLimitWith.format, ull(count), ull(limit), ull(total_))
                              : formatTrap(kBufferLimit.format, ull(count), ull(limit)));
    return false;
  }
  const BufDesc &b = p.bufs[bi];
  size_t bytes = dtypeBytes(b.type);
  if (count > (SIZE_MAX - 8) / bytes) {
    trapAt(at, kOutOfMemory.format);
    return false;
  }
  mem_[bi].reset();  // before the new one, so the two never count together
  mem_[bi].reset(static_cast<uint64_t *>(zeroedAlloc(std::max<uint64_t>(1, (count * bytes + 7) / 8) * 8)));
  if (!mem_[bi]) {
    bt[bi] = BufRT{};
    trapAt(at, kOutOfMemory.format);
    return false;
  }
  bt[bi] = BufRT{reinterpret_cast<uint8_t *>(mem_[bi].get()), count};
  total_ += count;
  if (hasSlotVals_[bi]) {
    if (slotVals_[bi].size() != count) {
      r.status = RunResult::Status::UsageError;
      r.message = "slot " + std::to_string(b.slot) + " has " + std::to_string(count) + " elements, --slot gave " +
                  std::to_string(slotVals_[bi].size());
      return false;
    }
    fill(bi, slotVals_[bi]);
  } else if (!b.init.empty()) {
    fill(bi, b.init);
  }
  return true;
}

void Machine::fill(uint32_t bi, const std::vector<Bits> &vals) {
  DType t = p.bufs[bi].type;
  for (size_t i = 0; i < vals.size(); ++i) writeElem(t, bt[bi].p, i, vals[i]);
}

bool Machine::bufferDyn(const Ins *ip) {
  Bits n = regs[ip->a];
  NodeId at = nodeAt(ip);
  if (ip->c && static_cast<int64_t>(n) < 0) {
    trapAt(at, formatTrap(kNegativeSize.format, ll(static_cast<int64_t>(n))));
    return false;
  }
  return allocate(ip->b, n, at);
}

uint64_t Machine::firstCheckpoint() const {
  uint64_t c = UINT64_MAX;
  if (o.limits.maxSteps != 0 && o.limits.maxSteps != UINT64_MAX) c = o.limits.maxSteps + 1;
  if (o.limits.maxSeconds > 0) c = std::min(c, kTimeCheckEvery);
  return c;
}

uint64_t Machine::limits(const Ins *ip, uint64_t steps) {
  const uint64_t maxSteps = o.limits.maxSteps;
  if (maxSteps != 0 && steps > maxSteps) {
    // Find the instruction that went over: ip's stretch is the `w`
    // instructions before it (including it, except for kHalt).
    const Program &f = *cur;
    size_t k = static_cast<size_t>(ip - f.code.data());
    uint64_t w = ip->w, before = steps - w;
    size_t last = ip->op == kHalt && k > 0 ? k - 1 : k;
    size_t over = last;
    if (w > 0 && before <= maxSteps && maxSteps - before < w)
      over = last + 1 - static_cast<size_t>(w) + static_cast<size_t>(maxSteps - before);
    if (f.fn) {  // a module: the step's own node, and the steps exact
      size_t end = f.stepEnd[k], at = end - 1;
      if (w > 0 && before <= maxSteps && maxSteps - before < w) at = end - w + static_cast<size_t>(maxSteps - before);
      moduleFailAt(f.stepNodes[at], stepLimitText(maxSteps), RunResult::Status::Trap);
      stepsSet_ = true;
      stepsAt_ = maxSteps + 1;
      return 0;
    }
    NodeId at;
    for (size_t j = over + 1; j-- > 0 && !at.valid();) at = f.nodeOf[j];
    trapAt(at, stepLimitText(maxSteps));
    return 0;
  }
  uint64_t next = maxSteps != 0 && maxSteps != UINT64_MAX ? maxSteps + 1 : UINT64_MAX;
  if (o.limits.maxSeconds > 0) {
    double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    if (el > o.limits.maxSeconds) {
      std::string msg = formatTrap(kTimeLimit.format, secondsText(o.limits.maxSeconds).c_str());
      if (cur->fn) {
        moduleFail(static_cast<size_t>(ip - cur->code.data()), std::move(msg), RunResult::Status::Trap);
        return 0;
      }
      NodeId at = nodeAt(ip);
      if (!at.valid() && ip != p.code.data()) at = nodeAt(ip - 1);
      trapAt(at, std::move(msg));
      return 0;
    }
    next = std::min(next, steps + kTimeCheckEvery);
  }
  return next;
}

void Machine::cshrinkTrap(const Ins *ip, Bits off, uint64_t parentElems) {
  const CheckDesc &c = p.checks[ip->c];
  std::string at = bitsText(off, c.offType);
  if (c.size == 1) trapAt(ip, formatTrap(kViewIndex.format, at.c_str(), ull(parentElems)));
  else trapAt(ip, formatTrap(kViewRange.format, ull(c.size), at.c_str(), ull(parentElems)));
}

void Machine::oobTrap(const Ins *ip, uint64_t off) {
  const BufDesc &b = p.bufs[ip->b];
  trapAt(ip, formatTrap(kBufferIndex.format, ll(static_cast<int64_t>(off)), name(*p.g, b.node).c_str(), ull(bt[ip->b].n)));
}

void Machine::collect() {
  for (uint32_t bi : p.slotOrder) {
    const BufDesc &b = p.bufs[bi];
    SlotResult s{b.slot, b.type, {}};
    s.values.reserve(bt[bi].n);
    for (uint64_t i = 0; i < bt[bi].n; ++i) s.values.push_back(readElem(b.type, bt[bi].p, i));
    r.slots.push_back(std::move(s));
  }
}

// ---- --trace --------------------------------------------------------------

std::string Tracer::head(NodeId n) const {
  return "line " + std::to_string(m_.p.g->loc(n).line) + ": ";
}

Bits Tracer::regValue(NodeId n) const {
  uint32_t r = m_.p.regOf[n.v];
  return r == kNoReg ? 0 : m_.regs[r];
}

std::string Tracer::where(NodeId v) const {
  const Facts &f = *m_.p.facts;
  NodeId buf = f.storage[v.v];
  uint64_t off = f.kind[v.v] == ResultKind::Version ? 0 : regValue(v);
  int64_t n = f.elems[v.v];
  std::string s = name(*m_.p.g, buf) + "[" + std::to_string(off);
  if (n != 1) s += ".." + (n < 0 ? std::string("end") : std::to_string(off + static_cast<uint64_t>(n)));
  return s + "]";
}

void Tracer::printNode(NodeId n) {
  const Graph &g = *m_.p.g;
  const Facts &f = *m_.p.facts;
  line_ = head(n) + nodeText(g, n);
  auto ops = g.operands(n);
  switch (g.op(n)) {
    case Op::Buffer: {
      NodeId s = f.storage[n.v];
      uint32_t bi = 0;
      for (; bi < m_.p.bufs.size() && !(m_.p.bufs[bi].node == s); ++bi) {}
      if (bi < m_.bt.size()) line_ += "  -> " + std::to_string(m_.bt[bi].n) + " elements";
      break;
    }
    case Op::After:
    case Op::Carry: line_ += "  -> a version of " + name(g, f.storage[n.v]); break;
    case Op::Shrink:
    case Op::CShrink: line_ += "  -> " + where(n); break;
    case Op::Store: {
      NodeId v = ops[0].node();
      DType t = f.type[v.v];
      Bits val = 0;
      if (ops[1].isLit()) val = literalBits(g.literal(ops[1].lit()), t).value_or(0);
      else val = regValue(ops[1].node());
      line_ += "  -> " + where(v) + " = " + bitsText(val, t);
      NodeId seq = f.link.size() > n.v ? f.sequencer(n) : NodeId::none();
      if (seq.valid() && g.op(seq) == Op::After) line_ += ", makes version " + name(g, seq);
      else if (seq.valid()) line_ += ", sequenced by " + name(g, seq);
      break;
    }
    default:
      if (f.kind[n.v] == ResultKind::Scalar) line_ += "  -> " + bitsText(regValue(n), f.type[n.v]);
      break;
  }
  line_ += '\n';
  os_->write(line_.data(), static_cast<std::streamsize>(line_.size()));
}

void Tracer::finish(const Ins *ins, const Ins *next) {
  const Program &p = m_.p;
  const Ins *code = p.code.data();
  NodeId n = p.nodeOf[static_cast<size_t>(ins - code)];
  if (!n.valid()) return;
  const Graph &g = *p.g;
  const Facts &f = *p.facts;
  switch (ins->op) {
    case kLoopBeginS:
    case kLoopBeginU:
    case kLoopBeginB: {
      DType t = f.type[n.v] == DType::None ? DType::I64 : f.type[n.v];
      line_ = head(n) + nodeText(g, n) + "  -> " + bitsText(m_.regs[ins->a], t) + " iterations\n";
      if (next == ins + 1) line_ += head(n) + name(g, n) + " = 0\n";
      break;
    }
    case kLoopEnd: {
      NodeId range = p.nodeOf[ins->b - 1];
      if (next == code + ins->b) {
        DType t = f.type[range.v] == DType::None ? DType::I64 : f.type[range.v];
        line_ = head(range) + name(g, range) + " = " + bitsText(m_.regs[ins->d], t) + "\n";
      } else {
        line_ = head(n) + nodeText(g, n) + "  -> the loop of " + name(g, range) + " is done\n";
      }
      break;
    }
    case kHalt: return;
    default: return printNode(n);
  }
  os_->write(line_.data(), static_cast<std::streamsize>(line_.size()));
}

void Tracer::step(const Ins *ip) {
  if (!os_) return;
  if (prev_) finish(prev_, ip);
  const Program &p = m_.p;
  size_t k = static_cast<size_t>(ip - p.code.data());
  auto [from, to] = std::equal_range(p.silentAt.begin(), p.silentAt.end(), static_cast<uint32_t>(k));
  for (auto s = from; s != to; ++s) printNode(p.silent[static_cast<size_t>(s - p.silentAt.begin())]);
  prev_ = ip;
}

void Tracer::end() {
  if (os_ && prev_) finish(prev_, nullptr);
  prev_ = nullptr;
  if (os_) os_->flush();
}

}  // namespace cairn::exec
