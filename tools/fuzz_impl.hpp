// Internal to `cairn fuzz` (tools/fuzz_diff.cpp, tools/fuzz_interp.cpp,
// tools/fuzz_module.cpp).
#pragma once
#include <functional>
#include <string>
#include <utility>
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
// The same with any compiler: compile(dir, source, exe, error); `file` is
// the source's name in the private folder (batch.c, batch.cu).
using UnitCompile = std::function<bool(const std::string &, const std::string &, const std::string &, std::string &)>;
UnitRun compileAndRunUnit(const std::string &src, size_t programs, const std::string &file, const UnitCompile &compile,
                          double timeout);

// Each case's (mismatch kind, detail) appended to `out` ("" kind: none),
// from batch b of those cases (b = run(cs)); a batch that does not compile
// is bisected, rerun half by half, down to the one case that breaks it
// (kind "compile", the compiler's complaint).
template <class Case, class Run, class Mismatch>
void judgeUnit(const std::vector<const Case *> &cs, const UnitRun &b, const Run &run, const Mismatch &mismatch,
               std::vector<std::pair<std::string, std::string>> &out) {
  if (cs.empty()) return;
  if (b.compiled) {
    for (size_t k = 0; k < cs.size(); ++k) {
      std::string d, kind = mismatch(*cs[k], b.outs[k], d);
      out.emplace_back(kind, d);
    }
    return;
  }
  if (cs.size() == 1) {
    out.emplace_back("compile", b.error);
    return;
  }
  const auto mid = cs.begin() + static_cast<long>(cs.size() / 2);
  std::vector<const Case *> lo(cs.begin(), mid), hi(mid, cs.end());
  judgeUnit(lo, run(lo), run, mismatch, out);
  judgeUnit(hi, run(hi), run, mismatch, out);
}

// The interp backend's campaign (tools/fuzz_interp.cpp).
void interpCampaign(const FuzzOptions &o, FuzzReport &rep, const FailFn &fail, const std::function<void(uint64_t)> &progress);

// The module campaigns, both backends (tools/fuzz_module.cpp).
void moduleCampaign(const FuzzOptions &o, FuzzReport &rep, const FailFn &fail, const std::function<void(uint64_t)> &progress);

}  // namespace cairn::fuzzimpl
