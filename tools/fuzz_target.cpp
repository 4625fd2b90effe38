// libFuzzer entry point: the whole pipeline on arbitrary bytes.
//
// Parse, then (when the text parsed) check two invariants that hold for every
// graph the reader accepts -- print -> parse gives a sameAs graph and the
// print is a fixed point; JSON export -> import gives a sameAs graph -- and
// then validate and, when valid, interpret under small limits so a hostile
// program cannot allocate or loop its way past the fuzzer's timeouts. A
// broken invariant aborts (a finding); diagnostics and traps are expected.
//
// Build: cmake -DCAIRN_FUZZ=ON -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_C_COMPILER=clang
// Run:   ./cairn_fuzz -max_total_time=60 -max_len=4096 CORPUS_DIR tests/fuzz_corpus
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "exec/interp.hpp"
#include "ir/json.hpp"
#include "ir/parser.hpp"
#include "ir/printer.hpp"
#include "oracle/oracle.hpp"

namespace {

[[noreturn]] void broken(const char *what, const std::string &text) {
  std::fprintf(stderr, "invariant broken: %s\n--- printed:\n%s\n", what, text.c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  using namespace cairn;
  std::string_view text(reinterpret_cast<const char *>(data), size);
  Graph g;
  Diags d;
  if (!parseUir(text, g, d)) return 0;

  std::string printed = printUir(g);
  Graph g2;
  Diags d2;
  if (!parseUir(printed, g2, d2)) broken("the printed graph does not parse", printed);
  if (!g2.sameAs(g)) broken("print -> parse is not the same graph", printed);
  if (printUir(g2) != printed) broken("print is not a fixed point", printed);

  Graph g3;
  Diags d3;
  if (!graphFromJson(graphToJson(g), g3, d3) || !g3.sameAs(g)) broken("JSON export -> import is not the same graph", printed);

  Facts facts;
  if (!validate(g, facts, d)) return 0;
  RunOptions opts;
  opts.limits.maxElements = 100000;
  opts.limits.maxSteps = 1000000;
  opts.limits.maxSeconds = 2;
  (void)run(g, facts, opts);
  return 0;
}
