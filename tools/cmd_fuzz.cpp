// `cairn fuzz`: a differential fuzzing campaign (tools/fuzz_diff.hpp).
//
//   cairn fuzz --seed S --count N --backend c       interpreter vs compiled C
//   cairn fuzz --seed S --count N --backend interp  oracle vs referee, and the
//                                                   interpreter under two schedules
//   cairn fuzz ... --backend interp --gen wrap      oracle vs referee on index paths
//                                                   through wrap-around
//   cairn fuzz ... --backend interp --gen module    generated modules: oracle, printer
//                                                   and module interpreter
//   cairn fuzz ... --backend c --gen module         module interpreter vs module C
//   cairn fuzz ... --backend cuda [--emulate]       interpreter vs emitted CUDA (a GPU,
//                                                   or the CPU: gpu/cuda_emu.h)
//
// The interp summary counts disagreements both ways: unsound accepts (a
// failure, listed first) and conservative refusals (allowed; by rule).
// Prints the throughput and every failure; each failure is reduced and
// written as OUT/fuzz-fail-SEED.uir, whose header says how to reproduce it.
// Exit status: 0 no failure; 1 failures; 2 the campaign could not run (no
// C compiler for --backend c, no CUDA device for --backend cuda without
// --emulate, bad option).
#include <cstdio>
#include <iostream>
#include <map>
#include <string>

#include <CLI/CLI.hpp>

#include "tools/commands.hpp"
#include "tools/fuzz_diff.hpp"

namespace cairn {

CLI::App *addFuzzCommand(CLI::App &app, FuzzArgs &a) {
  auto *f = app.add_subcommand("fuzz", "Differential fuzzing: random programs through two engines that must agree.");
  f->add_option("--seed", a.seed, "program k of the campaign is generated from seed S + k alone")->capture_default_str();
  f->add_option("--count", a.count, "programs to generate")->capture_default_str();
  f->add_option("--backend", a.backend,
                "c: the interpreter against compiled C (CC, CFLAGS; many programs per unit, guard zones); cuda: the "
                "interpreter against the emitted CUDA with exact float reductions (nvcc on a GPU, or --emulate); interp: "
                "the oracle against the brute-force referee, and the interpreter under two schedules")
      ->check(CLI::IsMember({"interp", "c", "cuda"}))
      ->capture_default_str();
  f->add_flag("--emulate", a.emulate,
              "--backend cuda: compile the CUDA with the host C++ compiler (CXX, CXXFLAGS, default -O1) and run its kernels "
              "on the CPU (gpu/cuda_emu.h)");
  f->add_option("--batch", a.batch, "programs per C translation unit")->check(CLI::Range(1u, 100000u))->capture_default_str();
  f->add_option("-j,--jobs", a.jobs, "C compilations at once")->check(CLI::Range(1u, 256u))->capture_default_str();
  f->add_option("--out", a.out, "folder for fuzz-fail-SEED.uir files")->capture_default_str();
  f->add_option("--gen", a.gen,
                "programs for --backend interp: std (generated valid ones, broken ones, arbitrary ones) or wrap (arbitrary "
                "ones whose offsets, sizes and loop bounds run through wrapping casts, unsigned 0 - 1, negative "
                "coefficients, mixed dtypes: tools/progen_wrap.cpp); for either backend, module (valid modules of "
                "functions, calls, loops, the heap and checked arithmetic, tools/progen_module.cpp: with interp, each "
                "must be accepted by the oracle, print as a fixed point and run in the interpreter without an internal "
                "error, a leak or the step limit; with c, the interpreter against the module C back end, many modules "
                "per unit); for c and cuda, nest (valid graphs of loop nests: parallel maps and reduces over literal and "
                "loaded counts, serial loops around parallel ones, loops inside parallel lanes: tools/progen_nest.cpp)")
      ->check(CLI::IsMember({"std", "wrap", "module", "nest"}))
      ->capture_default_str();
  f->add_option("--max-failures", a.maxFailures, "stop after this many failures (with --keep-going: reduce and write only this many)")
      ->check(CLI::Range(1u, 1000000u))
      ->capture_default_str();
  f->add_flag("--keep-going", a.keepGoing,
              "--backend interp: run all N programs; failures past --max-failures are counted and listed, not reduced");
  f->add_option("--refusals", a.refusals,
                "--backend interp: also reduce and write the first K conservative refusals the referee proves valid, as "
                "OUT/fuzz-refusal-SEED.uir (they are not failures)")
      ->check(CLI::Range(0u, 1000000u))
      ->capture_default_str();
  f->add_flag("--no-reduce", a.noReduce, "write failing programs as generated, without delta reduction");
  f->add_flag("-q,--quiet", a.quiet, "no progress lines; only the summary");
  f->footer(
      "Output: `fuzz: N programs in T s (R programs/s)`, then (interp) the unsound accepts -- the oracle accepts a\n"
      "program the referee finds broken -- and the conservative refusals -- the oracle reports bounds or lane, the\n"
      "referee finds no violation -- by rule, then each failure (unsound accepts first) and the file it was written to.\n"
      "With --gen module: `N valid, M refused by the oracle; T trapping` (a refusal is a failure, as are a print/parse\n"
      "mismatch, an internal error, a leak, the step limit and, with c, any difference from the compiled module).\n"
      "Reproduce program k alone with --seed S+k --count 1 (and the same --gen).\n\n"
      "Exit status:\n  0  no failure (conservative refusals are not failures)\n  1  failures found (any unsound accept is one)\n"
      "  2  the campaign could not run (no C compiler, bad option)");
  return f;
}

namespace {

std::string byRule(const std::map<std::string, uint64_t> &m) {
  std::string s;
  for (const auto &[rule, n] : m) s += (s.empty() ? "" : ", ") + rule + " " + std::to_string(n);
  return s.empty() ? "none" : s;
}

void interpSummary(const FuzzReport &r) {
  std::cout << "fuzz: " << r.valid << " valid, " << r.invalid << " invalid (by the oracle)\n";
  auto it = r.failureKinds.find("unsound-accept");
  uint64_t unsound = it == r.failureKinds.end() ? 0 : it->second;
  std::cout << "fuzz: " << unsound << " unsound accept(s): the oracle accepts, the referee finds a violation"
            << (unsound ? " of: " + byRule(r.unsoundByRule) : std::string()) << "\n";
  uint64_t other = 0;
  std::string kinds;
  for (const auto &[k, n] : r.failureKinds)
    if (k != "unsound-accept") other += n, kinds += (kinds.empty() ? " (" : ", ") + k + " " + std::to_string(n);
  if (other) std::cout << "fuzz: " << other << " other disagreement(s)" << kinds << ")\n";
  std::cout << "fuzz: " << r.conservative << " conservative refusal(s): the oracle reports bounds/lane, the referee finds no violation\n"
            << "fuzz:   in programs the referee proves valid:      " << byRule(r.refusedProven) << "\n"
            << "fuzz:   in programs it could not decide (sampled): " << byRule(r.refusedUnproven) << "\n"
            << "fuzz:   in programs broken otherwise (both agree): " << byRule(r.refusedBroken) << "\n";
  std::map<std::string, std::string> eg;  // a few proven ones per rule, to look at with --seed S --count 1 --refusals 1
  std::map<std::string, int> shown;
  for (const auto &[seed, rule] : r.refusalSeeds)
    if (shown[rule]++ < 5) eg[rule] += " " + std::to_string(seed);
  for (const auto &[rule, seeds] : eg) std::cout << "fuzz:   valid programs refused for " << rule << ", e.g. seeds" << seeds << "\n";
  for (const auto &f : r.refusalFiles) std::cout << "fuzz:   refusal written: " << f << "\n";
}

}  // namespace

int fuzzCommand(const FuzzArgs &a) {
  FuzzOptions o;
  o.seed = a.seed;
  o.count = a.count;
  o.backend = a.backend;
  o.emulate = a.emulate;
  o.batch = a.batch;
  o.jobs = a.jobs;
  o.outDir = a.out;
  o.reduce = !a.noReduce;
  o.maxFailures = a.maxFailures;
  o.keepGoing = a.keepGoing;
  o.gen = a.gen;
  o.refusals = a.refusals;
  o.log = a.quiet ? nullptr : &std::cerr;
  FuzzReport r = runFuzz(o);
  if (!r.setupError.empty()) {
    std::cerr << "cairn: error: " << r.setupError << '\n';
    return 2;
  }
  char rate[64];
  std::snprintf(rate, sizeof rate, "%.1f", r.seconds > 0 ? static_cast<double>(r.programs) / r.seconds : 0.0);
  char secs[64];
  std::snprintf(secs, sizeof secs, "%.2f", r.seconds);
  std::cout << "fuzz: backend " << a.backend << (a.gen == "std" ? "" : ", programs " + a.gen) << ", seeds " << a.seed << ".." << a.seed + (r.programs ? r.programs - 1 : 0) << ": "
            << r.programs << " programs in " << secs << " s (" << rate << " programs/s)\n";
  if (a.gen == "module")
    std::cout << "fuzz: " << r.valid << " valid, " << r.invalid << " refused by the oracle; " << r.traps << " trapping"
              << (a.backend == "c" ? ", " + std::to_string(r.batches) + " compiled units" : std::string()) << "\n";
  else if (a.backend != "interp")
    std::cout << "fuzz: " << r.valid << " run in both engines (" << r.traps << " trapping), " << r.batches << " compiled units\n";
  else
    interpSummary(r);
  if (r.failures.empty()) {
    std::cout << "fuzz: no failures\n";
    return 0;
  }
  std::cout << "fuzz: " << r.failures.size() + r.unrecorded.size() << " failure(s):\n";
  size_t shown = 0, left = 0;
  for (bool unsound : {true, false}) {  // unsound accepts first
    for (const auto &f : r.failures)
      if ((f.kind == "unsound-accept") == unsound)
        std::cout << "  seed " << f.seed << " (" << f.kind << "): " << (f.file.empty() ? "(not written)" : f.file) << '\n';
    for (const auto &[seed, kind] : r.unrecorded) {
      if ((kind == "unsound-accept") != unsound) continue;
      if (shown++ < 20) std::cout << "  seed " << seed << " (" << kind << "): not reduced (past --max-failures)\n";
      else ++left;
    }
  }
  if (left) std::cout << "  ... and " << left << " more\n";
  return 1;
}

}  // namespace cairn
