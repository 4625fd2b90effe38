// Commands of the `cairn` CLI that live outside tools/cairn.cpp.
//
// tools/cairn.cpp reads, parses and validates the program (its shared input
// pipeline) and hands the validated graph to these:
//   tools/cmd_c.cpp   `cairn emit c` and `cairn run --backend c`
//   tools/cmd_fuzz.cpp `cairn fuzz` (differential fuzzing, tools/fuzz_diff.hpp)
//   tools/cmd_grade.cpp `cairn grade` and `cairn lesson check`
//   tools/cmd_cairn.cpp `cairn check`, `cairn lower`, `cairn run` of CAIRN
//                      source and of .uir modules
//   tools/cmd_rules.cpp `cairn rules` (the diagnostic codes, lower/check/rules.hpp)
// Exit statuses are the CLI's: 0 ok; 1 invalid program or trap; 2 usage or
// I/O error (including a C compiler that fails or cannot be run); `run
// --backend c` adds 3 (--guard-zones: an access out of bounds); 70 an
// internal error, from any command: tools/main.cpp turns a failed
// CAIRN_CHECK (ir/check.hpp) or any other exception into it, and a compiled
// program that crashed is one too.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "ir/dtype.hpp"
#include "ir/graph.hpp"
#include "oracle/oracle.hpp"

namespace CLI {
class App;
}

namespace cairn {

// The whole command line (tools/cairn.cpp): parses argv and runs the
// command; returns its exit status. Internal errors propagate to main.
int cli(int argc, char **argv);

// ---- cairn emit c FILE [-o OUT] [--guard-zones] [--check-accesses] ----
struct EmitCArgs {
  std::string file, out;
  bool guardZones = false, checkAccesses = false;
};
// Adds `emit` (with its one subcommand `c`) to the app; returns `c`, which
// is parsed when the user asked for it.
CLI::App *addEmitCommand(CLI::App &app, EmitCArgs &args);
// Writes the C of a validated program; `shown` is the input's name as
// diagnostics print it (it becomes FILE in the program's trap messages).
int emitCCommand(const Graph &g, const Facts &facts, const std::string &shown, const EmitCArgs &args);

// The help texts of --guard-zones and --check-accesses (emit c, run).
extern const char *const kGuardZonesHelp;
extern const char *const kExactFloatReduceHelp;

// `cairn emit cuda` (tools/cmd_c.cpp): flat graphs as CUDA C++ (gpu/emit_cuda.hpp).
struct EmitCudaArgs {
  std::string file, out;
  bool exactFloatReduce = false;
};
CLI::App *addEmitCudaCommand(CLI::App &emit, EmitCudaArgs &args);
int emitCudaCommand(const Graph &g, const Facts &facts, const std::string &shown, const EmitCudaArgs &args);
extern const char *const kCheckAccessesHelp;

// ---- cairn run --backend c ----
struct CRunArgs {
  std::map<int64_t, std::vector<Literal>> slotData;  // checked --slot values
  bool json = false, trace = false;
  uint64_t maxElements = uint64_t{1} << 28;
  uint64_t maxSteps = 0;
  double timeout = 0;
  bool guardZones = false, checkAccesses = false;  // EmitOptions
};
// Emits, compiles (CC, CFLAGS) in a private temporary folder, runs the
// program and forwards its output and exit status (3: --guard-zones caught
// an access out of bounds); a crash of the compiled program is an internal
// error, 70 (exec/c_toolchain.hpp runCompiledProgram). Removes the folder.
int runCBackend(const Graph &g, const Facts &facts, const std::string &shown, const CRunArgs &args);
// `cairn run --backend cuda`: the same through nvcc on a GPU, or with
// `emulate` through the host C++ compiler (gpu/cuda_toolchain.hpp); exit 2
// "no CUDA device" without a GPU unless `emulate`.
int runCudaBackend(const Graph &g, const Facts &facts, const std::string &shown, const CRunArgs &args, bool emulate,
                   bool exactFloatReduce);

// ---- cairn fuzz --seed S --count N --backend interp|c [--gen std|wrap] (tools/cmd_fuzz.cpp) ----
struct FuzzArgs {
  uint64_t seed = 1, count = 1000;
  std::string backend = "c", out = ".", gen = "std";
  unsigned batch = 100, jobs = 2, maxFailures = 3, refusals = 0;
  bool noReduce = false, quiet = false, keepGoing = false, emulate = false;
};
CLI::App *addFuzzCommand(CLI::App &app, FuzzArgs &args);
// Runs the campaign; 0 no failure, 1 failures (written as fuzz-fail-SEED.uir),
// 2 it could not run (no C compiler, bad option).
int fuzzCommand(const FuzzArgs &args);

// ---- CAIRN source and .uir modules (tools/cmd_cairn.cpp) ----
// A trap of `cairn run prog.cairn` (or of a .uir module) exits with this.
constexpr int kTrapStatus = 101;
struct ModuleRunLimits {
  uint64_t maxElements = uint64_t{1} << 28;
  uint64_t maxSteps = 0;
  double timeout = 0;
  bool checkLeaks = true;  // a heap object left at exit is an internal error (70)
  std::string backend = "interp";  // or "c": emitted C (exec/emit_module_c.hpp), compiled and run
  bool checkAccesses = false;      // --backend c: every element access checked
};
int cairnCheck(const std::string &shown, const std::string &text, bool json, const std::string &receiptPath = {});
// `cairn doc FILE.cairn`: Markdown, each function's signature with its effect row.
int cairnDoc(const std::string &shown, const std::string &text, std::string &out);
// Lowers and validates; on success `out` holds the module's .uir text.
int cairnLower(const std::string &shown, const std::string &text, std::string &out);
int cairnRun(const std::string &shown, const std::string &text, const ModuleRunLimits &lim);
int moduleOracle(const std::string &shown, const std::string &text, bool json);
// `cairn emit c` of CAIRN source (cairnSource) or a .uir module: the C in `out`.
int moduleEmitC(const std::string &shown, const std::string &text, bool cairnSource, bool checkAccesses, std::string &out);
int moduleRun(const std::string &shown, const std::string &text, const ModuleRunLimits &lim);

// ---- cairn rules [CODE] [--json] (tools/cmd_rules.cpp) ----
struct RulesArgs {
  std::string code;  // empty: list every code
  bool json = false;
};
CLI::App *addRulesCommand(CLI::App &app, RulesArgs &args);
// 0, or 2 for an unknown code (the nearest codes named on stderr).
int rulesCommand(const RulesArgs &args);

}  // namespace cairn
