// Internal to `cairn fuzz` (tools/fuzz_diff.cpp, tools/fuzz_interp.cpp,
// tools/fuzz_module.cpp).
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "exec/c_toolchain.hpp"
#include "exec/interp.hpp"
#include "tools/fuzz_diff.hpp"

namespace cairn::fuzzimpl {

// A run's slots as `cairn run` prints them.
std::string slotText(const RunResult &r);
// Each line of text as a `#   ` comment.
std::string commentLines(const std::string &text);

// Reduces a failure, writes it and records it in the report.
using FailFn = std::function<void(FuzzFailure, const BatchPredicate &, const TextFilter &,
                                   const std::function<std::string(const std::string &)> &)>;

// One C unit of `programs` emitted programs (a batch whose driver takes
// `--all` and `--program K`), compiled and run: each program's exit status
// (-1: it crashed or hung, and `note` says how), its stdout and stderr in
// order (tools/fuzz_unit.cpp).
struct UnitOutcome {
  int status = -1;
  std::string text;
  std::string note;
};
struct UnitRun {
  bool compiled = false;
  std::string error;  // the compiler's complaint, or why nothing ran
  std::vector<UnitOutcome> outs;
};
UnitRun compileAndRunUnit(const std::string &src, size_t programs, const CCompiler &cc, double timeout);

// The interp backend's campaign (tools/fuzz_interp.cpp).
void interpCampaign(const FuzzOptions &o, FuzzReport &rep, const FailFn &fail, const std::function<void(uint64_t)> &progress);

// The module campaigns, both backends (tools/fuzz_module.cpp).
void moduleCampaign(const FuzzOptions &o, FuzzReport &rep, const FailFn &fail, const std::function<void(uint64_t)> &progress);

}  // namespace cairn::fuzzimpl
