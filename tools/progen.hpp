// Random .uir programs for property tests and fuzzing.
//
// `generateValid` writes a program that is valid by construction: its lines
// are emitted in an order that is itself a correct execution (a load of a
// version is written only while no store has overwritten it, or, when it
// comes later, only from values that do not depend on that store), every
// store gets its `after`, and every dynamic index is masked into range with
// `max` + `mod` as the lesson does. `breakProgram` appends a fragment that
// breaks exactly one rule, and says which.
#pragma once
#include <cstdint>
#include <random>
#include <string>

namespace cairn {

struct GenOptions {
  int buffers = 3;     // slot buffers
  int steps = 24;      // top-level actions (loads, stores, ALU ops, loops)
  bool loops = true;   // serial and parallel loops, reductions
  bool floats = true;  // f32/f64 buffers too
};

struct GeneratedProgram {
  std::string text;
  int stores = 0, loads = 0;
};

GeneratedProgram generateValid(uint64_t seed, const GenOptions &opts = {});

enum class Breakage {
  SecondStore,     // one-store-per-version
  DroppedAfter,    // store-sequenced
  WrongAfter,      // after-version
  OldVersionCycle, // old-version-order
  Unbounded,       // bounds
};
constexpr int kNumBreakages = 5;
const char *breakageRule(Breakage b);  // the diagnostic rule expected

// Appends a fragment to a valid program (as produced by generateValid) so
// that it breaks exactly the rule of `b`.
std::string breakProgram(const std::string &valid, Breakage b, uint64_t seed);

}  // namespace cairn
