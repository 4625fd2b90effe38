// The reporter every benchmark here ends its run with: Google Benchmark's
// console output as usual, and each benchmark's median (its only run when
// not repeated) handed to keep(), from which the program prints its table
// of medians and ratios after the run.
#pragma once
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <vector>

namespace cairn::bench {

class MedianReporter : public benchmark::ConsoleReporter {
 public:
  // Colour only on a terminal (--benchmark_color applies to the default
  // reporter, not to this one).
  MedianReporter() : ConsoleReporter(isatty(1) ? OO_ColorTabular : OO_Tabular) {}
  void ReportRuns(const std::vector<Run> &runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const Run &r : runs) {
      seen(r);
      bool median = r.run_type == Run::RT_Aggregate && r.aggregate_name == "median";
      if (median || (r.run_type == Run::RT_Iteration && r.repetitions <= 1)) keep(r);
    }
  }

 protected:
  virtual void keep(const Run &r) = 0;
  virtual void seen(const Run &) {}  // every run, aggregates included
};

}  // namespace cairn::bench
