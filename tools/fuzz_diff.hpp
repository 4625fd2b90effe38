// Differential fuzzing: `cairn fuzz` (tools/cmd_fuzz.cpp) and its ctest.
//
// Program k of a campaign with --seed S is generated from seed S + k alone
// (tools/progen, with options drawn from that seed too), so any program is
// reproduced by `cairn fuzz --seed S+k --count 1`.
//
// Backend `interp`: each program is checked by the oracle, the referee
// (tools/referee.hpp) and the interpreter -- generated valid programs must
// be valid for both deciders and give the same result under two different
// schedules; valid programs broken in one way must break that rule for
// both; arbitrary programs must get the same verdict from both (up to the
// oracle's documented conservatism in bounds and lanes). With gen "wrap",
// every program is an arbitrary one from generateWrapIndices (index paths
// through wrapping casts, unsigned sizes at 0, negative coefficients; see
// progen.hpp). Disagreements are counted both ways: an unsound accept (the
// oracle accepts, the referee finds a real violation) is a failure of kind
// "unsound-accept", listed first; a conservative refusal (the oracle
// reports bounds or lane, the referee finds no violation) is allowed and
// counted by rule, apart for programs the referee proves valid, those it
// could only sample and those broken otherwise. A rule the oracle misses in
// a program it refuses for another reason is a failure of kind
// "missed-rule".
//
// Backend `c`: each generated valid program runs in the interpreter and as
// C (exec/emit_c.hpp), many programs per translation unit, with guard zones
// around every buffer so an out-of-bounds write is caught. Outputs must be
// equal byte for byte as `cairn run` prints them -- integers exactly,
// floats in shortest round-trip text, which is the same bits (NaNs all
// print `nan`: IEEE 754 does not fix which NaN payload an operation
// returns, and .uir does not either). Only in programs that use `sin`,
// `exp2` or `log2` may a float differ, by at most kTranscendentalUlps units
// in the last place (libm need not round those correctly). A trap must be
// the same trap, at the same line.
//
// With gen "module" (either backend; tools/fuzz_module.cpp), every program
// is a module from generateModule (tools/progen_module.hpp): the oracle
// must accept it, it must print as a fixed point and run in the module
// interpreter without an internal error, a leak or the step limit; with
// backend `c` it is also compiled (exec/emit_module_c.hpp, many modules per
// unit) and its stdout, trap line and exit status must be the
// interpreter's. Failures are reduced with reduceModule.
//
// A failure is reduced (tools/fuzz_reduce.cpp) to a small program that is
// still valid and still fails the same way, and written as
// OUTDIR/fuzz-fail-SEED.uir with the commands that reproduce it.
#pragma once
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <map>
#include <string>
#include <vector>

#include "tools/progen.hpp"

namespace cairn {

constexpr int kTranscendentalUlps = 2;

struct FuzzOptions {
  uint64_t seed = 1;
  uint64_t count = 1000;
  std::string backend = "c";   // "interp", "c" or "cuda" (gpu/emit_cuda.hpp; flat graphs)
  bool emulate = false;        // cuda: run the emitted CUDA on the CPU (gpu/cuda_emu.h)
  unsigned batch = 100;        // programs per C translation unit
  unsigned jobs = 2;           // C compilations in flight at once
  std::string outDir = ".";    // where fuzz-fail-SEED.uir files go
  bool reduce = true;
  unsigned maxFailures = 3;    // stop the campaign after this many (keepGoing: reduce and write only these)
  bool keepGoing = false;      // run every program; failures past maxFailures are counted and listed, not reduced
  std::string gen = "std";     // interp: "std" (valid, broken, arbitrary) or "wrap" (generateWrapIndices);
                               // both backends: "module" (generateModule, tools/fuzz_module.cpp);
                               // c and cuda: "nest" (generateNested, tools/progen_nest.cpp)
  unsigned refusals = 0;       // interp: write the first this many proven conservative refusals (fuzz-refusal-SEED.uir)
  std::ostream *log = nullptr; // findings and progress, when set
  double runTimeout = 120;     // seconds per compiled batch run
};

struct FuzzFailure {
  uint64_t seed = 0;
  std::string kind;     // e.g. "value", "trap", "guard", "compile", "crash", "oracle", "unsound-accept",
                        // "missed-rule", "referee", "schedule"
  std::string detail;   // what each side said
  std::string program;  // as generated
  std::string reduced;  // after reduction (== program when not reduced)
  std::string file;     // where it was written ("" when it could not be)
};

struct FuzzReport {
  uint64_t programs = 0;
  double seconds = 0;
  uint64_t valid = 0, invalid = 0, conservative = 0, traps = 0, batches = 0;
  // interp: programs of each failure kind (recorded or not); unsound accepts are kind "unsound-accept"
  std::map<std::string, uint64_t> failureKinds;
  std::map<std::string, uint64_t> unsoundByRule;  // interp: unsound accepts, programs per rule the oracle misses
  // interp: conservative refusals (the oracle reports bounds/lane, the referee finds no violation of it),
  // programs per rule: of programs the referee proves valid / could not decide / finds broken otherwise
  std::map<std::string, uint64_t> refusedProven, refusedUnproven, refusedBroken;
  std::vector<FuzzFailure> failures;                        // unsound accepts first
  std::vector<std::pair<uint64_t, std::string>> unrecorded;  // keepGoing: (seed, kind) past maxFailures
  std::vector<std::pair<uint64_t, std::string>> refusalSeeds;  // (seed, rule) of each refusal of a proven-valid program
  std::vector<std::string> refusalFiles;                      // those written (FuzzOptions::refusals)
  std::string setupError;  // the campaign could not run (no C compiler, no temp folder)
};

// The generator options and program of the C backend's program `seed`.
GenOptions fuzzGenOptions(uint64_t seed);
std::string fuzzProgram(uint64_t seed, const std::string &gen = "std");

FuzzReport runFuzz(const FuzzOptions &o);

// Delta reduction (tools/fuzz_reduce.cpp). `stillFails` judges a batch of
// candidate texts at once (the C backend compiles them in one unit) and
// returns, for each, whether it is valid and fails the same way. Deletes
// chunks of lines (halving the chunk size down to single lines), then
// replaces operands by literals and `data` by zeros; keeps the first
// candidate that still fails, until none does or `rounds` run out. Names
// are never renamed: a candidate that leaves one undefined does not parse
// and is dropped before `stillFails` sees it.
// `admit` filters candidates before that (by default: the oracle accepts
// them; a failure about the oracle itself needs another filter).
using BatchPredicate = std::function<std::vector<bool>(const std::vector<std::string> &)>;
using TextFilter = std::function<bool(const std::string &)>;
std::string reduceProgram(const std::string &text, const BatchPredicate &stillFails, const TextFilter &admit = {},
                          int rounds = 200);

// Delta reduction of a module (tools/fuzz_reduce.cpp): whole functions
// but main first (each with the lines that call it), then reduceProgram's
// deletions and simplifications over the whole text, and again while
// either makes progress. `admit` as for reduceProgram (required: the flat
// oracle would refuse every module).
std::string reduceModule(const std::string &text, const BatchPredicate &stillFails, const TextFilter &admit, int rounds = 200);

// Whether text parses and the oracle accepts it.
bool oracleAccepts(const std::string &text);

}  // namespace cairn
