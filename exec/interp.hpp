// The host interpreter: its limits, options and result, and the flat-graph
// entry points.
//
// `compile` lowers a validated graph once, through a Schedule, to a compact
// linear program: instructions over a register file of 64-bit scalars, with
// loops as backward jumps; `execute` runs it with a tight dispatch loop.
// Every version of a buffer is the same storage, written in place. Modules
// run on the same compiler and machine (exec/module_interp.hpp, runModule);
// RunLimits and RunResult serve both.
#pragma once
#include <chrono>
#include <cstdint>
#include <iosfwd>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "exec/schedule.hpp"
#include "ir/dtype.hpp"
#include "ir/graph.hpp"
#include "ir/module.hpp"
#include "oracle/oracle.hpp"

namespace cairn {

struct RunLimits {
  uint64_t maxElements = uint64_t{1} << 28;  // all buffers together, elements
  uint64_t maxSteps = 0;                     // executed instructions; 0 = no limit
  double maxSeconds = 0;                     // wall time; 0 = no limit
};

struct RunOptions {
  RunLimits limits;
  SchedulePriority priority = SchedulePriority::SourceOrder;
  std::ostream *trace = nullptr;  // when set, one line per executed step
  // Replaces the initial data of the buffer bound to each slot.
  std::map<int64_t, std::vector<Literal>> slotData;
  // Flat graphs: the lanes of a parallel loop the lane-block tier
  // (exec/block.hpp) runs at a time, at most 256; 0 runs every loop one lane
  // at a time. Results, steps and traps are the same at every value (tests
  // compare them); only the speed differs.
  uint32_t laneBlock = 256;
};

struct SlotResult {
  int64_t slot;
  DType type;
  std::vector<Bits> values;
};

// The result of a run, of a flat graph or of a module (ModuleRunResult).
struct RunResult {
  // Error is UsageError by another name: a module that cannot run.
  enum class Status { Ok, Trap, UsageError, Error = UsageError } status = Status::Ok;
  std::string message;  // trap or usage error text, without location
  Loc loc;              // the op that trapped (flat graphs)
  std::vector<SlotResult> slots;  // in slot order (flat graphs)
  uint64_t steps = 0;   // instructions executed

  // ---- modules ----
  int32_t value = 0;     // main's return value
  // A trap: where the node came from (Function::origin when the function has
  // one, else {0, the node's .uir location}).
  Origin where;
  std::string function;  // the function that trapped
  uint64_t leaked = 0;   // heap objects still live when the run ended
  // Status::Error from a bug in whatever built the module (a double free, a
  // released or mistyped object): `cairn run` reports it as an internal
  // error, exit 70. Otherwise the module cannot run (no suitable main, an
  // extern not found): exit 1.
  bool internal = false;
};

class Program;  // the compiled form
struct ProgramDeleter {
  void operator()(Program *p) const;
};
using ProgramPtr = std::unique_ptr<Program, ProgramDeleter>;

// traceable: keep what --trace prints besides the code (each node's
// register, the nodes without an instruction), 8 bytes and more a node;
// run() compiles without it when it does not trace, and execute() refuses
// to trace a program compiled without it (an internal error).
ProgramPtr compile(const Graph &g, const Facts &facts, SchedulePriority prio = SchedulePriority::SourceOrder,
                   bool traceable = true);
RunResult execute(const Program &p, const RunOptions &opts);

// compile + execute.
RunResult run(const Graph &g, const Facts &facts, const RunOptions &opts = {});

}  // namespace cairn
