// libFuzzer entry point for CAIRN source: the front end on arbitrary bytes.
//
// Findings (aborts): a crash or sanitizer report anywhere; a program the
// front end accepts whose lowered module the oracle refuses (a lowering
// bug); a lowered module whose printed text does not parse back, or whose
// print is not a fixed point; a run that ends normally with heap objects
// never released. Check errors and traps are expected. Programs that
// declare externs are not run (they could call anything in the C library).
//
// Build: cmake -DCAIRN_FUZZ=ON -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_C_COMPILER=clang
// Run:   ./cairn_fuzz_src -max_total_time=60 -max_len=4096 CORPUS_DIR tests/cairn/run
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string_view>

#include "exec/module_interp.hpp"
#include "ir/module.hpp"
#include "lower/lower.hpp"
#include "oracle/module.hpp"

namespace {

[[noreturn]] void broken(const char *what, const std::string &detail) {
  std::fprintf(stderr, "invariant broken: %s\n%s\n", what, detail.c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  using namespace cairn;
  std::string_view text(reinterpret_cast<const char *>(data), size);
  Module m;
  Diags d;
  if (!lowerCairn("fuzz.cairn", text, m, d)) {
    if (d.empty()) broken("the front end refused the program without a diagnostic", std::string(text));
    return 0;
  }
  ModuleFacts facts;
  Diags od;
  if (!validateModule(m, facts, od)) {
    std::ostringstream os;
    od.print(os, "lowered");
    broken("the oracle refuses a lowered module", os.str() + "\n--- module:\n" + printModule(m));
  }
  std::string printed = printModule(m);
  Module m2;
  Diags pd;
  if (!parseModule(printed, m2, pd)) {
    std::ostringstream os;
    pd.print(os, "printed");
    broken("the printed module does not parse", os.str() + "\n--- module:\n" + printed);
  }
  if (printModule(m2) != printed) broken("printing a module is not a fixed point", printed);
  for (const Function &f : m.funcs)
    if (f.external) return 0;
  ModuleRunOptions opts;
  opts.limits.maxElements = 100000;
  opts.limits.maxSteps = 1000000;
  opts.limits.maxSeconds = 2;
  std::ostringstream out;
  opts.out = &out;
  ModuleRunResult r = runModule(m, facts, opts);
  if (r.status == ModuleRunResult::Status::Ok && r.leaked != 0)
    broken("heap objects were never released", printed);
  if (r.status == ModuleRunResult::Status::Error) broken(("the module could not run: " + r.message).c_str(), printed);
  return 0;
}
