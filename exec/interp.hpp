// The host interpreter.
//
// `compile` lowers a validated graph once, through a Schedule, to a compact
// linear program: instructions over a register file of 64-bit scalars, with
// loops as backward jumps; `execute` runs it with a tight dispatch loop.
// Every version of a buffer is the same storage, written in place.
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
};

struct SlotResult {
  int64_t slot;
  DType type;
  std::vector<Bits> values;
};

struct RunResult {
  enum class Status { Ok, Trap, UsageError } status = Status::Ok;
  std::string message;  // trap or usage error text, without location
  Loc loc;              // the op that trapped
  std::vector<SlotResult> slots;  // in slot order
  uint64_t steps = 0;
};

class Program;  // the compiled form
struct ProgramDeleter {
  void operator()(Program *p) const;
};
using ProgramPtr = std::unique_ptr<Program, ProgramDeleter>;

ProgramPtr compile(const Graph &g, const Facts &facts, SchedulePriority prio = SchedulePriority::SourceOrder);
RunResult execute(const Program &p, const RunOptions &opts);

// compile + execute.
RunResult run(const Graph &g, const Facts &facts, const RunOptions &opts = {});

}  // namespace cairn
