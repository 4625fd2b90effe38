// The run-time state of one execution, and the slow paths of the dispatch
// loop (buffer allocation, limits, traps, tracing).
//
// Internal to exec/. The dispatch loop (interp.cpp) keeps the hot state in
// locals (instruction pointer, register file, buffer table, step count) and
// calls into Machine only off the fast path, through non-inlined functions,
// so the loop's registers are not spilled around them.
#pragma once
#include <chrono>
#include <ostream>
#include <string>
#include <vector>

#include "exec/program.hpp"

namespace cairn::exec {

// A buffer at run time: its storage and element count. The table is sized
// once before the run, so the loop may hold a pointer to it.
struct BufRT {
  uint8_t *p = nullptr;
  uint64_t n = 0;
};

class Machine {
 public:
  Machine(const Program &p, const RunOptions &o, RunResult &r);

  // Checks --slot data and allocates the static buffers. False: the result
  // already holds the usage error or trap.
  bool prepare();
  // After a successful run: the slot buffers' contents, in slot order.
  void collect();

  bool failed() const { return r.status != RunResult::Status::Ok; }
  void trapAt(NodeId n, std::string msg);
  void trapAt(const Ins *ip, std::string msg) { trapAt(nodeAt(ip), std::move(msg)); }
  NodeId nodeAt(const Ins *ip) const { return p.nodeOf[static_cast<size_t>(ip - p.code.data())]; }

  // Slow paths; each returns normally, having set a trap when it failed.
  bool bufferDyn(const Ins *ip);
  // Called when steps reached the checkpoint: traps past a limit, else
  // returns the next checkpoint.
  uint64_t limits(const Ins *ip, uint64_t steps);
  void cshrinkTrap(const Ins *ip, Bits off, uint64_t parentElems);
  void oobTrap(const Ins *ip, uint64_t off);

  uint64_t firstCheckpoint() const;

  const Program &p;
  const RunOptions &o;
  RunResult &r;
  std::vector<Bits> regs;
  std::vector<BufRT> bt;

 private:
  bool allocate(uint32_t bi, uint64_t count, NodeId at);
  void fill(uint32_t bi, const std::vector<Bits> &vals);

  std::vector<std::vector<uint64_t>> mem_;   // 8-byte aligned, zeroed storage
  std::vector<std::vector<Bits>> slotVals_;  // --slot data per buffer, converted
  std::vector<uint8_t> hasSlotVals_;
  uint64_t total_ = 0;                       // elements of all live buffers
  std::chrono::steady_clock::time_point start_;
};

// One line per executed step for --trace. step() is called as each
// instruction is dispatched: it finishes the line of the previous one (now
// executed, so its result is in its register) and prints the nodes without
// instructions that the schedule placed before the new one.
class Tracer {
 public:
  Tracer(const Machine &m, std::ostream *os) : m_(m), os_(os) {}
  void step(const Ins *ip);
  void end();  // after a normal halt

 private:
  void finish(const Ins *ins, const Ins *next);
  void printNode(NodeId n);
  Bits regValue(NodeId n) const;
  std::string where(NodeId view) const;  // `%b[3]` or `%b[2..6)`
  std::string head(NodeId n) const;      // `line L: `

  const Machine &m_;
  std::ostream *os_;
  const Ins *prev_ = nullptr;
  std::string line_;
};

}  // namespace cairn::exec
