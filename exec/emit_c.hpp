// The C back end: a validated graph, through its Schedule, as one
// self-contained C11 translation unit.
//
// The unit is the runtime (runtime/cairn_rt.h, pasted in: the .c includes
// only standard headers), then per program
//
//   static void PREFIX_kernel(cairn_rt *restrict rt, T *restrict b0, ...)
//       the schedule as straight-line C: every slot buffer of static size is
//       a restrict parameter (distinct buffers never alias); other buffers
//       are allocated inside (dynamic sizes when their node runs); scalars
//       are `const` locals; loops are plain `for` loops with the body's
//       values local to the body, a reduce an accumulator before the loop;
//   a buffer table, and `PREFIX_prog` describing them for the runtime's
//   driver;
//
// and, when asked, a `main` that runs it like `cairn run`: options
// `--slot K=V,...`, `--slot-file FILE` (one K=V,... per line),
// `--max-elements N`, `--json`; output `slot K = [...]` lines or the JSON
// object, byte for byte what `cairn run --backend interp` prints; a trap
// prints `FILE:LINE:COL: error: trap: MESSAGE` on stderr and exits 1; a
// --slot error `cairn: error: ...`, exit 2; with EmitOptions::guardZones, a
// load or store out of bounds or an overwritten guard zone
// `FILE:LINE:COL: error: out-of-bounds write: ...` (or `read`) at the
// buffer's line, exit 3. Compile with `cc -O2 -std=c11 x.c -lm`.
//
// Only graphs the oracle accepted may be emitted; anything the emitter does
// not expect is a bug in cairn, an internal error (ir/check.hpp: an
// InternalError, or an abort in the sanitizer and fuzz builds).
//
// Many programs in one unit (to pay the C compiler's start-up once, e.g.
// for differential fuzzing): emitCBatch. Program k's functions are prefixed
// `cairn_pK_`, the runtime appears once, and main (runtime/cairn_rt.h,
// cairn_rt_batch_main) takes `--count`, `--program K [OPTIONS]` (runs
// program K like a single executable) or `--all [OPTIONS]` (runs each with
// its own data, printing `=== program K`, its output and diagnostics, then
// `=== exit STATUS`, all on stdout).
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "exec/schedule.hpp"
#include "ir/graph.hpp"
#include "oracle/oracle.hpp"

namespace cairn {

struct EmitOptions {
  // FILE in trap messages (`FILE:LINE:COL: error: trap: ...`): the name the
  // CLI shows for the input.
  std::string sourceName = "program.uir";
  // Prefix of the program's C names (PREFIX_kernel, PREFIX_prog). emitCBatch
  // overrides it per program.
  std::string prefix = "cairn";
  // Defense in depth against a wrong bounds proof, for testing and fuzzing:
  // every load and store checks its element offset against its buffer
  // before the access (`(uint64_t)off >= n`: no access out of bounds
  // touches memory, however far off), and the first that fails stops the
  // run at once, like a trap, with exit 3 and `FILE:LINE:COL: error:
  // out-of-bounds write: offset OFF is outside buffer %b of N elements` (or
  // `read`) at the buffer's line, then a note at the access. Also canary
  // bytes around every buffer, checked after the run (also after a trap):
  // an overwritten one is reported the same way, exit 3.
  bool guardZones = false;
  unsigned guardBytes = 64;  // on each side; rounded up to a multiple of 16
  // Check every load and store offset against its buffer, as the
  // interpreter does (its trap message, exit 1, at the access). The oracle
  // proves them in bounds, so this only catches a wrong proof; it slows
  // loops down. With guardZones too, this check is the one that runs.
  bool checkAccesses = false;
  // Emit `int main(int, char**)`. Off: the unit defines only static
  // functions and PREFIX_prog (call cairn_rt_run(&PREFIX_prog, ...)).
  bool withMain = true;
};

// The C text of one program.
std::string emitC(const Graph &g, const Facts &facts, const Schedule &s, const EmitOptions &opts = {});

// One program of a batch.
struct EmitUnit {
  const Graph *graph = nullptr;
  const Facts *facts = nullptr;
  const Schedule *schedule = nullptr;
  std::string sourceName = "program.uir";
};

// Many programs in one unit (see above). opts.prefix and opts.sourceName
// are ignored; each unit brings its own source name (and its graph, facts
// and schedule: a null one is an internal error).
std::string emitCBatch(const std::vector<EmitUnit> &units, const EmitOptions &opts = {});

// The runtime's text (runtime/cairn_rt.h, embedded at build time).
std::string_view cRuntimeText();

}  // namespace cairn
