// Throughput of the core pipeline on generated programs (Google Benchmark).
//
// Programs, each generated once per size as .uir text (outside the timing):
//   chain  a long version chain: shrink, load, add, store, after per step
//   wide   a wide ALU graph: each value combines the previous one with a
//          pseudo-random earlier one (deterministic), stored at the end
//   loop   a serial loop whose body is 9 ALU ops plus a load and a store,
//          for the interpreter's scalar-op rate
// Phases: Parse, Validate, ParseValidate (the two together), Interpret and
// Pipeline (all three, as `cairn run` does them), and the loop.
// Counters: `nodes/s` (rate), `bytes/node` (peak bytes allocated by the
// measured phase, divided by the node count; counted by the global operator
// new below, so it covers everything the phase allocates and keeps: the
// bytes asked for, the same under any allocator, not the allocator's
// rounding of them, which differs between glibc and mimalloc), and for the
// loop `scalar_ops/s` and `steps/s` (the interpreter's own step count).
// The run ends with a table of nodes/s per phase, kind and size.
#include <benchmark/benchmark.h>

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <map>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <new>
#include <string>

#include "bench/median_reporter.hpp"
#include "exec/interp.hpp"
#include "ir/parser.hpp"
#include "oracle/oracle.hpp"

// ---- allocation accounting ----------------------------------------------------
namespace {
std::atomic<int64_t> gLive{0}, gPeak{0};
// Each block carries its requested size in a header of kHeader bytes (which
// keeps new's 16-byte alignment and is not counted).
constexpr size_t kHeader = 16;
void *track(size_t n) {
  if (n > SIZE_MAX - kHeader) throw std::bad_alloc();
  auto *b = static_cast<unsigned char *>(std::malloc(n + kHeader));
  if (!b) throw std::bad_alloc();
  std::memcpy(b, &n, sizeof n);
  int64_t now = gLive.fetch_add(static_cast<int64_t>(n)) + static_cast<int64_t>(n);
  int64_t peak = gPeak.load();
  while (now > peak && !gPeak.compare_exchange_weak(peak, now)) {
  }
  return b + kHeader;
}
void untrack(void *p) {
  if (p) {
    unsigned char *b = static_cast<unsigned char *>(p) - kHeader;
    size_t n;
    std::memcpy(&n, b, sizeof n);
    gLive.fetch_sub(static_cast<int64_t>(n));
    std::free(b);
  }
}
}  // namespace
void *operator new(size_t n) { return track(n ? n : 1); }
void *operator new[](size_t n) { return track(n ? n : 1); }
void operator delete(void *p) noexcept { untrack(p); }
void operator delete[](void *p) noexcept { untrack(p); }
void operator delete(void *p, size_t) noexcept { untrack(p); }
void operator delete[](void *p, size_t) noexcept { untrack(p); }

namespace {

using namespace cairn;

// Peak bytes allocated (net of what was live before) while `f` runs.
template <class F>
int64_t peakBytes(F &&f) {
  int64_t base = gLive.load();
  gPeak.store(base);
  f();
  return gPeak.load() - base;
}

// ---- program generators ----------------------------------------------------------

// About `nodes` nodes: 1 + 5 per step. Result: slot 0 = [steps].
std::string chainProgram(int64_t nodes) {
  std::string s = "%b0 = buffer 1 dtype=i64 slot=0\n";
  for (int64_t k = 0; 1 + 5 * (k + 1) <= nodes; ++k) {
    std::string K = std::to_string(k), B = "%b" + K;
    s += "%p" + K + " = shrink " + B + " 0 shape=[]\n";
    s += "%x" + K + " = load %p" + K + "\n";
    s += "%y" + K + " = add %x" + K + " 1\n";
    s += "%s" + K + " = store %p" + K + " %y" + K + "\n";
    s += "%b" + std::to_string(k + 1) + " = after " + B + " %s" + K + "\n";
  }
  return s;
}

// About `nodes` nodes of ALU work between two loads and one store.
std::string wideProgram(int64_t nodes) {
  std::string s =
      "%a = buffer 2 dtype=i64 slot=0 data=[3 5]\n%p0 = shrink %a 0 shape=[]\n%p1 = shrink %a 1 shape=[]\n"
      "%x0 = load %p0\n%x1 = load %p1\n%v0 = add %x0 %x1\n";
  const char *ops[] = {"add", "mul", "xor", "sub", "max", "and", "or", "min"};
  uint64_t rng = 0x9E3779B97F4A7C15ull;
  int64_t k = 1;
  for (; k < nodes - 8; ++k) {
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    int64_t other = static_cast<int64_t>(rng % static_cast<uint64_t>(k));
    s += "%v" + std::to_string(k) + " = " + ops[rng >> 61] + " %v" + std::to_string(k - 1) + " %v" +
         std::to_string(other) + "\n";
  }
  s += "%s = store %p0 %v" + std::to_string(k - 1) + "\n%a1 = after %a %s\n";
  return s;
}

constexpr int kLoopOps = 11;  // per iteration: 9 ALU ops, a load and a store

std::string loopProgram(int64_t iterations) {
  return "%b = buffer 1 dtype=i64 slot=0\n"
         "%i = range " + std::to_string(iterations) + "\n"
         "  %bc = carry %b\n"
         "  %p = shrink %bc 0 shape=[]\n"
         "  %x = load %p\n"
         "  %t1 = mul %x 3\n"
         "  %t2 = add %t1 %i\n"
         "  %t3 = xor %t2 %x\n"
         "  %t4 = and %t3 1023\n"
         "  %t5 = add %t4 %t2\n"
         "  %t6 = shr %t5 1\n"
         "  %t7 = sub %t6 %i\n"
         "  %t8 = max %t7 %x\n"
         "  %y = add %t8 1\n"
         "  %s = store %p %y\n"
         "  %bn = after %bc %s\n"
         "%e = end %i %bn\n"
         "%b1 = after %b %e\n";
}

std::string program(int kind, int64_t n) { return kind == 0 ? chainProgram(n) : wideProgram(n); }
const char *kindName(int kind) { return kind == 0 ? "chain" : "wide"; }

void parseOrDie(const std::string &text, Graph &g) {
  Diags d;
  if (!parseUir(text, g, d)) {
    d.print(std::cerr, "<bench>");
    std::abort();
  }
}

void validateOrDie(const Graph &g, Facts &f) {
  Diags d;
  if (!validate(g, f, d)) {
    d.print(std::cerr, "<bench>");
    std::abort();
  }
}

void setCounters(benchmark::State &state, double nodes, int64_t peak) {
  state.counters["nodes/s"] = benchmark::Counter(nodes * static_cast<double>(state.iterations()),
                                                 benchmark::Counter::kIsRate);
  state.counters["bytes/node"] = static_cast<double>(peak) / nodes;
}

// ---- benchmarks -------------------------------------------------------------------

// state.range(0): 0 chain, 1 wide; state.range(1): nodes.
void BM_Parse(benchmark::State &state) {
  std::string text = program(static_cast<int>(state.range(0)), state.range(1));
  uint32_t nodes = 0;
  int64_t peak = 0;
  for (auto _ : state) {
    peak = peakBytes([&] {
      Graph g;
      parseOrDie(text, g);
      nodes = g.size();
      benchmark::DoNotOptimize(g);
    });
  }
  state.SetLabel(kindName(static_cast<int>(state.range(0))));
  state.SetBytesProcessed(static_cast<int64_t>(text.size()) * state.iterations());
  setCounters(state, nodes, peak);
}

void BM_Validate(benchmark::State &state) {
  Graph g;
  parseOrDie(program(static_cast<int>(state.range(0)), state.range(1)), g);
  int64_t peak = 0;
  for (auto _ : state) {
    peak = peakBytes([&] {
      Facts f;
      validateOrDie(g, f);
      benchmark::DoNotOptimize(f);
    });
  }
  state.SetLabel(kindName(static_cast<int>(state.range(0))));
  setCounters(state, g.size(), peak);
}

// From text to a graph the oracle accepts, then (thenRun) its run: the
// whole of one timed iteration, with its peak bytes.
void fromText(benchmark::State &state, bool thenRun) {
  std::string text = program(static_cast<int>(state.range(0)), state.range(1));
  uint32_t nodes = 0;
  int64_t peak = 0;
  for (auto _ : state) {
    peak = peakBytes([&] {
      Graph g;
      parseOrDie(text, g);
      Facts f;
      validateOrDie(g, f);
      nodes = g.size();
      benchmark::DoNotOptimize(f);
      if (thenRun) {
        RunResult r = run(g, f);
        benchmark::DoNotOptimize(r);
      }
    });
  }
  state.SetLabel(kindName(static_cast<int>(state.range(0))));
  setCounters(state, nodes, peak);
}

// Reading and checking, the "parse + validate".
void BM_ParseValidate(benchmark::State &state) { fromText(state, false); }

void BM_Interpret(benchmark::State &state) {
  Graph g;
  parseOrDie(program(static_cast<int>(state.range(0)), state.range(1)), g);
  Facts f;
  validateOrDie(g, f);
  int64_t peak = 0;
  for (auto _ : state) {
    peak = peakBytes([&] {
      RunResult r = run(g, f);
      if (r.status != RunResult::Status::Ok) state.SkipWithError(r.message.c_str());
      benchmark::DoNotOptimize(r);
    });
  }
  state.SetLabel(kindName(static_cast<int>(state.range(0))));
  setCounters(state, g.size(), peak);
}

// The whole pipeline, as `cairn run` does it.
void BM_Pipeline(benchmark::State &state) { fromText(state, true); }

// state.range(0): iterations of the loop.
void BM_InterpretLoop(benchmark::State &state) {
  Graph g;
  parseOrDie(loopProgram(state.range(0)), g);
  Facts f;
  validateOrDie(g, f);
  uint64_t steps = 0;
  for (auto _ : state) {
    RunResult r = run(g, f);
    if (r.status != RunResult::Status::Ok) state.SkipWithError(r.message.c_str());
    steps = r.steps;
    benchmark::DoNotOptimize(r);
  }
  double it = static_cast<double>(state.iterations());
  state.counters["scalar_ops/s"] =
      benchmark::Counter(static_cast<double>(state.range(0)) * kLoopOps * it, benchmark::Counter::kIsRate);
  state.counters["steps/s"] = benchmark::Counter(static_cast<double>(steps) * it, benchmark::Counter::kIsRate);
}

void sizes(benchmark::internal::Benchmark *b) {
  for (int kind : {0, 1})
    for (int64_t n = 10000; n <= 10000000; n *= 10) b->Args({kind, n});
  b->ArgNames({"kind", "nodes"})->Unit(benchmark::kMillisecond);
}

BENCHMARK(BM_Parse)->Apply(sizes);
BENCHMARK(BM_Validate)->Apply(sizes);
BENCHMARK(BM_ParseValidate)->Apply(sizes);
BENCHMARK(BM_Interpret)->Apply(sizes);
BENCHMARK(BM_Pipeline)->Apply(sizes);
BENCHMARK(BM_InterpretLoop)->RangeMultiplier(10)->Range(10000, 10000000)->ArgName("iterations")->Unit(benchmark::kMillisecond);

// The console output, then a table per phase and kind: nodes/s at each
// size (medians when repeated), largest/smallest (the issue wants the rate
// flat within 1.5x) and the largest peak bytes/node.
class Table : public cairn::bench::MedianReporter {
 public:
  void keep(const Run &r) override {
    std::string name = r.run_name.function_name;  // BM_Parse
    std::string args = r.run_name.args;           // kind:0/nodes:10000
    size_t k = args.find("kind:"), n = args.find("nodes:");
    if (k == std::string::npos || n == std::string::npos) return;
    Row &row = rows_[name + (args[k + 5] == '0' ? " chain" : " wide")];
    auto rate = r.counters.find("nodes/s"), bytes = r.counters.find("bytes/node");
    if (rate != r.counters.end()) row.rate[std::stoll(args.substr(n + 6))] = rate->second.value;
    if (bytes != r.counters.end()) row.bytes = std::max(row.bytes, bytes->second.value);
  }
  void print() const {
    std::printf("\n%-24s %10s %10s %10s %10s %14s %12s\n", "phase", "10^4 Mn/s", "10^5", "10^6", "10^7",
                "smallest/largest", "max B/node");
    for (const auto &[name, row] : rows_) {
      std::printf("%-24s", name.c_str());
      for (int64_t n = 10000; n <= 10000000; n *= 10) {
        auto it = row.rate.find(n);
        if (it == row.rate.end()) std::printf(" %10s", "-");
        else std::printf(" %10.2f", it->second / 1e6);
      }
      double lo = row.rate.empty() ? 0 : row.rate.begin()->second, hi = row.rate.empty() ? 0 : row.rate.rbegin()->second;
      std::printf(" %14.2f %12.1f\n", hi > 0 ? lo / hi : 0.0, row.bytes);
    }
  }

 private:
  struct Row {
    std::map<int64_t, double> rate;  // by node count
    double bytes = 0;
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
