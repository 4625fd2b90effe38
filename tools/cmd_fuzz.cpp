// `cairn fuzz`: a differential fuzzing campaign (tools/fuzz_diff.hpp).
//
//   cairn fuzz --seed S --count N --backend c       interpreter vs compiled C
//   cairn fuzz --seed S --count N --backend interp  oracle vs referee, and the
//                                                   interpreter under two schedules
//
// Prints the throughput and every failure; each failure is reduced and
// written as OUT/fuzz-fail-SEED.uir, whose header says how to reproduce it.
// Exit status: 0 no failure; 1 failures; 2 the campaign could not run (no
// C compiler for --backend c, bad option).
#include <cstdio>
#include <iostream>

#include <CLI/CLI.hpp>

#include "tools/commands.hpp"
#include "tools/fuzz_diff.hpp"

namespace cairn {

CLI::App *addFuzzCommand(CLI::App &app, FuzzArgs &a) {
  auto *f = app.add_subcommand("fuzz", "Differential fuzzing: random programs through two engines that must agree.");
  f->add_option("--seed", a.seed, "program k of the campaign is generated from seed S + k alone")->capture_default_str();
  f->add_option("--count", a.count, "programs to generate")->capture_default_str();
  f->add_option("--backend", a.backend,
                "c: the interpreter against compiled C (CC, CFLAGS; many programs per unit, guard zones); interp: "
                "the oracle against the brute-force referee, and the interpreter under two schedules")
      ->check(CLI::IsMember({"interp", "c"}))
      ->capture_default_str();
  f->add_option("--batch", a.batch, "programs per C translation unit")->check(CLI::Range(1u, 100000u))->capture_default_str();
  f->add_option("-j,--jobs", a.jobs, "C compilations at once")->check(CLI::Range(1u, 256u))->capture_default_str();
  f->add_option("--out", a.out, "folder for fuzz-fail-SEED.uir files")->capture_default_str();
  f->add_option("--max-failures", a.maxFailures, "stop after this many failures")->check(CLI::Range(1u, 1000000u))->capture_default_str();
  f->add_flag("--no-reduce", a.noReduce, "write failing programs as generated, without delta reduction");
  f->add_flag("-q,--quiet", a.quiet, "no progress lines; only the summary");
  f->footer(
      "Output: `fuzz: N programs in T s (R programs/s)`, then each failure and the file it was written to.\n"
      "Reproduce program k alone with --seed S+k --count 1.\n\n"
      "Exit status:\n  0  no failure\n  1  failures found\n  2  the campaign could not run (no C compiler, bad option)");
  return f;
}

int fuzzCommand(const FuzzArgs &a) {
  FuzzOptions o;
  o.seed = a.seed;
  o.count = a.count;
  o.backend = a.backend;
  o.batch = a.batch;
  o.jobs = a.jobs;
  o.outDir = a.out;
  o.reduce = !a.noReduce;
  o.maxFailures = a.maxFailures;
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
  std::cout << "fuzz: backend " << a.backend << ", seeds " << a.seed << ".." << a.seed + (r.programs ? r.programs - 1 : 0) << ": "
            << r.programs << " programs in " << secs << " s (" << rate << " programs/s)\n";
  if (a.backend == "c")
    std::cout << "fuzz: " << r.valid << " run in both engines (" << r.traps << " trapping), " << r.batches << " compiled units\n";
  else
    std::cout << "fuzz: " << r.valid << " valid, " << r.invalid << " invalid, " << r.conservative
              << " where the oracle's bounds/lane analysis was more conservative than the referee\n";
  if (r.failures.empty()) {
    std::cout << "fuzz: no failures\n";
    return 0;
  }
  std::cout << "fuzz: " << r.failures.size() << " failure(s):\n";
  for (const auto &f : r.failures)
    std::cout << "  seed " << f.seed << " (" << f.kind << "): " << (f.file.empty() ? "(not written)" : f.file) << '\n';
  return 1;
}

}  // namespace cairn
