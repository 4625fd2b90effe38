// Grader benchmarks (Google Benchmark): the cost of grading one submission
// (reader + oracle + compile + every case of every test) and the throughput
// of batch mode.
//
//   grade_one/<kind>   one submission of lessons/w2l2/swap: the reference
//                      (every test passes), the starter (tests fail, so the
//                      loads are described too), an invalid one (the oracle
//                      rejects it; no test runs). Target: <= 5 ms CPU each.
//   grade_batch/N      N submissions (a mix of the three, as files in a
//                      temporary folder) through gradeBatch on 2 threads,
//                      result files and summary.csv included; the counter
//                      `subs/s` is wall-clock throughput.
// After the run a table gives the median CPU time of each grade_one kind
// against the 5 ms target (median/target) and the batch's subs/s.
// Assumes CAIRN_SOURCE_DIR is the repository root (set by bench/CMakeLists.txt).
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <map>
#include <fstream>
#include <sstream>

#include "bench/median_reporter.hpp"
#include "grade/batch.hpp"
#include "grade/grader.hpp"

namespace fs = std::filesystem;
using namespace cairn::grade;

namespace {

const std::string kRoot = CAIRN_SOURCE_DIR;

std::string slurp(const std::string &p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

const Exercise &swapExercise() {
  static Exercise ex = [] {
    Exercise e;
    std::vector<std::string> errs;
    if (!loadExercise(kRoot + "/lessons/w2l2/swap", e, errs)) std::abort();
    return e;
  }();
  return ex;
}

std::string submission(int kind) {
  switch (kind) {
    case 0: return slurp(kRoot + "/lessons/w2l2/swap/reference.uir");
    case 1: return slurp(kRoot + "/lessons/w2l2/swap/starter.uir");
    default: return slurp(kRoot + "/tests/grade/submissions/swap_two_stores_one_version.uir");
  }
}

void gradeOne(benchmark::State &state) {
  const Exercise &ex = swapExercise();
  std::string text = submission(static_cast<int>(state.range(0)));
  size_t cases = 0;
  for (const Test &t : ex.tests) cases += t.cases.size();
  for (auto _ : state) {
    GradeResult r = gradeSource(ex, "sub.uir", text, false, ex.limits);
    benchmark::DoNotOptimize(r.score);
  }
  state.counters["cases"] = static_cast<double>(cases);
  state.SetLabel(state.range(0) == 0 ? "reference" : state.range(0) == 1 ? "starter" : "invalid");
}
BENCHMARK(gradeOne)->Name("grade_one")->Arg(0)->Arg(1)->Arg(2)->Unit(benchmark::kMicrosecond);

void gradeBatchBench(benchmark::State &state) {
  const Exercise &ex = swapExercise();
  fs::path dir = fs::temp_directory_path() / ("cairn-bench-grade-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "in");
  const int n = static_cast<int>(state.range(0));
  std::string kinds[3] = {submission(0), submission(1), submission(2)};
  for (int i = 0; i < n; ++i) std::ofstream(dir / "in" / ("s" + std::to_string(i) + ".uir")) << kinds[i % 3];
  size_t total = 0;
  for (auto _ : state) {
    BatchOptions o{(dir / "in").string(), (dir / "out").string(), 2, false};
    BatchSummary sum;
    std::string why;
    if (!gradeBatch(ex, ex.limits, o, sum, why)) state.SkipWithError(why.c_str());
    total += sum.total;
  }
  state.counters["subs/s"] = benchmark::Counter(static_cast<double>(total), benchmark::Counter::kIsRate);
  fs::remove_all(dir);
}
BENCHMARK(gradeBatchBench)->Name("grade_batch")->Arg(10000)->Iterations(1)->UseRealTime()->Unit(benchmark::kMillisecond);

// The console output, then the table (medians when repeated).
class Table : public cairn::bench::MedianReporter {
 public:
  void keep(const Run &r) override {
    Row &row = rows_[r.run_name.str()];
    row.label = r.report_label;
    row.us = r.GetAdjustedCPUTime() * (r.time_unit == benchmark::kMillisecond ? 1000.0 : 1.0);
    auto it = r.counters.find("subs/s");
    if (it != r.counters.end()) row.rate = it->second.value;
  }
  void print() const {
    std::printf("\n%-16s %-10s %12s %14s %10s\n", "benchmark", "kind", "median us", "median/5ms", "subs/s");
    for (const auto &[name, row] : rows_) {
      char ratio[32] = "-", rate[32] = "-";
      if (row.rate > 0) std::snprintf(rate, sizeof rate, "%.0f", row.rate);
      else std::snprintf(ratio, sizeof ratio, "%.3f", row.us / 5000.0);
      std::printf("%-16s %-10s %12.1f %14s %10s\n", name.c_str(), row.label.c_str(), row.us, ratio, rate);
    }
  }

 private:
  struct Row {
    std::string label;
    double us = 0, rate = 0;
  };
  std::map<std::string, Row> rows_;
};

}  // namespace

int main(int argc, char **argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  Table table;
  benchmark::RunSpecifiedBenchmarks(&table);
  table.print();
  benchmark::Shutdown();
  return 0;
}
