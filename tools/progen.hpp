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
  // Off by default, so existing seeds still give the same programs:
  bool dynamic = false;  // dynamic buffer sizes and loop bounds (const scalars of several dtypes)
  bool allOps = false;   // every ALU op on every dtype: comparisons, where, bool, casts to every
                         // dtype, shifts by edge amounts, MIN idiv -1, NaN and infinities; and
                         // now and then a checked_shrink of an unmasked index or a divisor
                         // that may be 0 (valid programs that may trap when they run)
  bool scratch = false;  // now and then a buffer without a slot, filled by a parallel loop before
                         // anything reads it (all of it: the C back end leaves such a buffer
                         // unzeroed, exec/first_write.hpp; or all but its last element)
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

// Arbitrary small programs (tools/progen_arbitrary.cpp): structurally sound
// (dtypes, kinds, loop scoping), but their loads, stores, afters, indices
// and loops are drawn without regard to the ordering and bounds rules, so
// they are valid or not by chance. For checking the oracle against the
// referee (tools/referee.hpp).
struct ArbitraryOptions {
  int buffers = 3;      // at most this many buffers
  int steps = 10;       // actions
  int maxMemOps = 8;    // stop once this many loads and stores are written
  bool dynamic = true;  // dynamic buffer sizes and loop bounds too
  bool floats = true;   // f32 buffers too
  // Off by default, so existing seeds still give the same programs. On, the
  // program comes from generateWrapIndices instead (buffers, steps and
  // maxMemOps still apply; dynamic and floats do not).
  bool wrapIndices = false;
};
std::string generateArbitrary(uint64_t seed, const ArbitraryOptions &opts = {});

// Arbitrary programs whose offsets, sizes and loop bounds run through
// wrap-around (tools/progen_wrap.cpp): casts to every integer dtype
// (narrowing, widening, sign changes, casts of casts), unsigned sizes and
// bounds that can be 0 or `0 - 1`, `sub C x` and `neg` (negative
// coefficients), `mul` by constants up to 65536, `idiv`/`shr`/`shl` by
// constants, `mod`, `and`, `min`/`max`, `where`, second scalars of other
// dtypes, dynamic sizes from consts and from u8/u16/u32 slot values, loop
// counts up to 70000, and parallel loops that store and load one buffer at
// different index expressions (through windows, nested loops too). Also
// the known hard cases (lanes colliding through a cast, a load of another
// lane's element, an unsigned `0 - 1` bound, negative coefficients) with
// their parameters varied. Valid or not by chance; the referee decides.
std::string generateWrapIndices(uint64_t seed, const ArbitraryOptions &opts = {});

// Valid flat graphs of loop nests (tools/progen_nest.cpp): parallel maps
// and reduces over literal and loaded counts, serial loops around parallel
// ones, loops inside parallel lanes, straight-line code; for the compiled
// back ends' campaigns (`cairn fuzz --gen nest`).
std::string generateNested(uint64_t seed);

}  // namespace cairn
