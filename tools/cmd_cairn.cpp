// `cairn check`, `cairn lower` and `cairn run` for CAIRN source, and the
// module forms of `cairn oracle` / `cairn run` for .uir modules.
//
// The pipeline of `cairn run prog.cairn`, top to bottom:
//   lowerCairn (parse, check, lower; lower/lower.hpp)
//   -> validateModule (the oracle; a refusal here is a bug in the lowering)
//   -> runModule (the module interpreter) -> exit with main's value.
// Exit statuses: 1 a check error (or an invalid .uir module); kTrapStatus
// (101) a run-time trap; 70 an internal error (the lowering built a graph
// the oracle refuses, or the run leaked heap objects); 2 usage or I/O.
#include <fstream>
#include <iostream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "exec/c_toolchain.hpp"
#include "exec/emit_module_c.hpp"
#include "exec/module_interp.hpp"
#include "ir/module.hpp"
#include "ir/source_map.hpp"
#include "lower/lower.hpp"
#include "oracle/module.hpp"
#include "tools/commands.hpp"

namespace cairn {

namespace {
constexpr int kInternal = 70;

// Sorts and prints diagnostics on stderr, each error and note with its
// source line and caret: `text` is `shown`'s, and a diagnostic in another
// file (a std module: Diagnostic::file is its path) is quoted from disk.
void printDiags(Diags &d, const std::string &shown, const std::string &text) {
  d.sort();
  SourceMap src;
  src.add(shown, text);
  src.readFromDisk(true);
  d.print(std::cerr, shown, src);
}

// Lowers and validates; false (with the diagnostics printed) when either
// fails. lineComments: LowerOptions's, for a module that will be printed.
bool lowerAndValidate(const std::string &shown, const std::string &text, Module &m, ModuleFacts &facts, int &status,
                      bool lineComments = false) {
  Diags d;
  LowerOptions opts;
  opts.lineComments = lineComments;
  if (!lowerCairn(shown, text, m, d, opts)) {
    printDiags(d, shown, text);
    status = 1;
    return false;
  }
  Diags od;
  if (!validateModule(m, facts, od)) {
    std::cerr << shown << ": error: internal error: the oracle refuses the lowered graph (a bug in the lowering; "
              << "`cairn lower` shows it)\n";
    od.sort();
    od.print(std::cerr, shown + " (lowered)");
    status = kInternal;
    return false;
  }
  return true;
}

// `cairn run --backend c` of a module: the same refusals as the
// interpreter's (main, externs), then emit, compile in a private folder and
// run with this process's streams; the compiled program exits as `cairn
// run` does (exec/emit_module_c.hpp), a crash is an internal error (70)
// unless the module calls externs (then cairn dies of the same signal, as
// the interpreter would). It links the shared objects that provide the
// externs here (externLibraries).
int runCompiled(const Module &m, const ModuleFacts &facts, const std::string &shown, const ModuleRunLimits &lim) {
  if (lim.maxSteps != 0) {
    std::cerr << "cairn: error: --max-steps needs --backend interp (use --timeout with --backend c)\n";
    return 2;
  }
  std::string why = moduleEntryError(m);
  if (why.empty()) {
    std::string missing = missingExtern(m);
    if (!missing.empty()) why = "extern symbol `" + missing + "` not found";
  }
  if (!why.empty()) {
    std::cerr << shown << ": error: " << why << '\n';
    return 1;
  }
  ModuleEmitOptions o;
  o.sourceName = shown;
  o.checkAccesses = lim.checkAccesses;
  std::string text, error;
  if (!emitModuleC(m, facts, o, text, error)) {
    std::cerr << shown << ": error: internal error: cannot emit C: " << error << '\n';
    return kInternal;
  }
  TempDir dir;
  if (!dir.ok()) {
    std::cerr << "cairn: error: " << dir.error() << '\n';
    return 2;
  }
  const std::string src = dir.file("prog.c"), exe = dir.file("prog");
  if (!writeFileText(src, text)) {
    std::cerr << "cairn: error: " << src << ": cannot write\n";
    return 2;
  }
  if (!compileC(compilerFromEnv(), dir.path(), src, exe, error, externLibraries(m))) {
    std::cerr << "cairn: error: " << error << '\n';
    return 2;
  }
  std::cout.flush();
  std::cerr.flush();
  const bool externs = std::any_of(m.funcs.begin(), m.funcs.end(), [](const Function &f) { return f.external; });
  int rc = runCompiledProgram({exe, "--max-elements", std::to_string(lim.maxElements)}, ProcessIO{}, lim.timeout, shown,
                              std::cerr, externs);
  std::cerr.flush();
  return rc;
}

int runLowered(const Module &m, const ModuleFacts &facts, const std::string &shown, const ModuleRunLimits &lim) {
  if (lim.backend == "c") return runCompiled(m, facts, shown, lim);
  ModuleRunOptions opts;
  opts.limits.maxElements = lim.maxElements;
  opts.limits.maxSteps = lim.maxSteps;
  opts.limits.maxSeconds = lim.timeout;
  ModuleRunResult r = runModule(m, facts, opts);
  std::cout.flush();
  switch (r.status) {
    case ModuleRunResult::Status::Ok:
      if (r.leaked > 0 && lim.checkLeaks) {
        std::cerr << shown << ": error: internal error: " << r.leaked
                  << " heap object(s) were never released (a bug in the lowering)\n";
        return kInternal;
      }
      return r.value;
    case ModuleRunResult::Status::Trap: {
      std::string file = r.where.file < m.files.size() && !m.files[r.where.file].empty() ? m.files[r.where.file] : shown;
      std::cerr << file << ':' << r.where.loc.line << ':' << r.where.loc.col << ": error: trap: " << r.message;
      if (!r.function.empty()) std::cerr << " (in " << r.function << ")";
      std::cerr << '\n';
      return kTrapStatus;
    }
    case ModuleRunResult::Status::Error:
      if (r.internal) {
        std::cerr << shown << ": error: internal error: " << r.message << '\n';
        return kInternal;
      }
      std::cerr << shown << ": error: " << r.message << '\n';
      return 1;
  }
  return kInternal;
}
}  // namespace

int cairnCheck(const std::string &shown, const std::string &text, bool json, const std::string &receiptPath) {
  Module m;
  Diags d;
  LowerOptions opts;
  opts.checkAll = true;
  opts.lineComments = false;  // the module is not printed
  std::string receipt, receiptError;
  if (!receiptPath.empty()) {
    opts.receipt = &receipt;
    opts.receiptError = &receiptError;
  }
  bool ok = lowerCairn(shown, text, m, d, opts);
  if (ok && !receiptError.empty()) {
    std::cerr << "cairn: error: " << receiptPath << ": cannot make the receipt: " << receiptError << "\n";
    return 2;
  }
  if (ok && !receiptPath.empty()) {
    std::ofstream f(receiptPath, std::ios::binary | std::ios::trunc);
    f << receipt;
    f.close();
    if (!f) {
      std::cerr << "cairn: error: " << receiptPath << ": cannot write the receipt\n";
      return 2;
    }
  }
  d.sort();
  if (json)
    std::cout << "{\"valid\": " << (ok ? "true" : "false") << ", \"diagnostics\": "
              << d.toJson().dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "}\n";
  else if (ok)
    std::cout << "ok: " << m.funcs.size() << " function(s)\n";
  if (!ok) printDiags(d, shown, text);
  return ok ? 0 : 1;
}

int cairnDoc(const std::string &shown, const std::string &text, std::string &out) {
  Module m;
  Diags d;
  LowerOptions opts;
  opts.checkAll = true;
  opts.lineComments = false;  // the module is not printed
  opts.doc = &out;
  if (lowerCairn(shown, text, m, d, opts)) return 0;
  printDiags(d, shown, text);
  return 1;
}

int cairnLower(const std::string &shown, const std::string &text, std::string &out) {
  Module m;
  ModuleFacts facts;
  int status = 0;
  if (!lowerAndValidate(shown, text, m, facts, status, true)) return status;
  out = printModule(m);
  return 0;
}

int cairnRun(const std::string &shown, const std::string &text, const ModuleRunLimits &lim) {
  Module m;
  ModuleFacts facts;
  int status = 0;
  if (!lowerAndValidate(shown, text, m, facts, status)) return status;
  return runLowered(m, facts, shown, lim);
}

int moduleEmitC(const std::string &shown, const std::string &text, bool cairnSource, bool checkAccesses, std::string &out) {
  Module m;
  ModuleFacts facts;
  int status = 0;
  if (cairnSource) {
    if (!lowerAndValidate(shown, text, m, facts, status)) return status;
  } else {
    Diags d;
    if (!parseModule(text, m, d) || !validateModule(m, facts, d)) {
      printDiags(d, shown, text);
      return 1;
    }
  }
  if (std::string why = moduleEntryError(m); !why.empty()) {  // the program's fault, as `cairn run` says
    std::cerr << shown << ": error: " << why << '\n';
    return 1;
  }
  ModuleEmitOptions o;
  o.sourceName = shown;
  o.checkAccesses = checkAccesses;
  std::string error;
  if (!emitModuleC(m, facts, o, out, error)) {  // a validated module the emitter cannot take: a bug
    std::cerr << shown << ": error: internal error: cannot emit C: " << error << '\n';
    return kInternal;
  }
  return 0;
}

int moduleOracle(const std::string &shown, const std::string &text, bool json) {
  Module m;
  Diags d;
  ModuleFacts facts;
  bool ok = parseModule(text, m, d) && validateModule(m, facts, d);
  d.sort();
  if (json)
    std::cout << "{\"valid\": " << (ok ? "true" : "false") << ", \"diagnostics\": "
              << d.toJson().dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "}\n";
  else if (ok)
    std::cout << "ok: module of " << m.funcs.size() << " function(s)\n";
  if (!ok) printDiags(d, shown, text);
  return ok ? 0 : 1;
}

int moduleRun(const std::string &shown, const std::string &text, const ModuleRunLimits &lim) {
  Module m;
  Diags d;
  ModuleFacts facts;
  if (!parseModule(text, m, d) || !validateModule(m, facts, d)) {
    printDiags(d, shown, text);
    return 1;
  }
  return runLowered(m, facts, shown, lim);
}

}  // namespace cairn
