// Random valid .uir modules (docs/uir.md, "Modules") for differential
// fuzzing of the module engines (`cairn fuzz --gen module`).
//
// generateModule writes a module that validateModule accepts by
// construction and that terminates within a bounded number of steps:
// several functions (each may call only those written before it, and
// itself with a decreasing depth argument), scalar, `ro` and `rw` view
// arguments with their `call_write`s, nested serial loops with `carry`,
// `if` as a 0/1-count range, `until` loops, parallel loops with
// reductions, guards, the heap (`alloc`, `deref`, owned columns, `free`),
// `checked_*` arithmetic, `checked_cast`, `checked_shrink` and `part` on
// views of run-time length, `print` of scalars of every dtype and of u8
// views. With `traps`, some of those checks are given operands that may
// fail (a trap is a valid outcome both engines must agree on).
// Every object the module allocates is freed on every path that does not
// trap, so a run that ends normally leaks nothing.
#pragma once
#include <cstdint>
#include <string>

namespace cairn {

struct ModuleGenOptions {
  int funcs = 4;       // functions besides main
  int steps = 10;      // statements per body (loops count their bodies too)
  int maxDepth = 3;    // recursion depth a caller passes, at most
  bool traps = true;   // checks that may fail (one or two per module)
  bool transcendentals = true;  // sin, exp2, log2 (libm need not round them exactly)
};

// The options of module `seed` of a campaign (drawn from the seed).
ModuleGenOptions moduleGenOptions(uint64_t seed);

std::string generateModule(uint64_t seed, const ModuleGenOptions &opts = {});

}  // namespace cairn
