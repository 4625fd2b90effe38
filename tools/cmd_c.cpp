// `cairn emit c`, `cairn emit cuda`, `cairn run --backend c` and `cairn run
// --backend cuda [--emulate]` (see tools/commands.hpp).
//
// Both take a program the oracle accepted (tools/cairn.cpp validated it),
// schedule it with the interpreter's priority, and emit C with
// exec/emit_c.hpp. `run --backend c` compiles that C with the system
// compiler in a private temporary folder (exec/c_toolchain.hpp), passes the
// --slot values through a file in that folder, runs the executable with
// this process's stdout and stderr, and returns its exit status (a crash of
// the compiled program is reported as an internal error, exit 70: see
// exec/c_toolchain.hpp runCompiledProgram). The folder
// is removed on every path (TempDir's destructor); nothing is written
// outside it. A compiler that fails or cannot be run is a usage error
// (exit 2) with its message: there is no silent fallback to the interpreter.
// `--backend cuda` is the same with gpu/emit_cuda.hpp and nvcc (or, with
// --emulate, the host C++ compiler and gpu/cuda_emu.h); without --emulate
// it first asks the CUDA driver for a device, and exits 2 with "no CUDA
// device" when there is none.
#include <cstring>
#include <fstream>
#include <iostream>

#include <CLI/CLI.hpp>

#include "exec/c_toolchain.hpp"
#include "exec/emit_c.hpp"
#include "exec/schedule.hpp"
#include "gpu/cuda_toolchain.hpp"
#include "gpu/emit_cuda.hpp"
#include "tools/commands.hpp"

namespace cairn {

namespace {

enum Exit : int { kOk = 0, kInvalid = 1, kUsage = 2 };

int usage(const std::string &msg) {
  std::cerr << "cairn: error: " << msg << '\n';
  return kUsage;
}

const char *kEmitFooter =
    "The C is one self-contained C11 file (the runtime, runtime/cairn_rt.h, is pasted in). Build it with\n"
    "`cc -O2 -std=c11 prog.c -lm`; the executable prints what `cairn run` prints and takes\n"
    "--slot K=V,..., --slot-file FILE (one K=V,... per line), --max-elements N and --json, and exits\n"
    "0 ok, 1 on a trap, 2 on a usage error, 3 (--guard-zones) on a load or store out of bounds.\n"
    "A module's (or CAIRN program's) executable takes --max-elements N, prints what `cairn run` prints and exits\n"
    "with main's value, 101 on a trap, 70 on an internal error.\n"
    "Exit status of cairn: 0 written; 1 the program is invalid; 2 usage or I/O error.";

// The checked --slot values, one `K=V,V,...` line per slot, in canonical
// literal text (which the runtime reads back to the same bits).
std::string slotFileText(const CRunArgs &a) {
  std::string slotText;
  for (const auto &[slot, lits] : a.slotData) {
    slotText += std::to_string(slot) + "=";
    for (size_t k = 0; k < lits.size(); ++k) slotText += (k ? "," : "") + literalText(lits[k]);
    slotText += '\n';
  }
  return slotText;
}

// Runs a built program with the run's options, this process's streams: its
// exit status (0 ok, 1 trap, 2 usage error, as `cairn run`; 3 with
// --guard-zones: an access out of bounds), or cairn's report of a timeout
// (1) or a crash (70: an internal error, exec/c_toolchain.hpp).
int runBuilt(const std::string &exe, const std::string &slots, const CRunArgs &a, const std::string &shown) {
  std::vector<std::string> argv = {exe, "--max-elements", std::to_string(a.maxElements), "--slot-file", slots};
  if (a.json) argv.emplace_back("--json");
  std::cout.flush();
  std::cerr.flush();
  int rc = runCompiledProgram(argv, ProcessIO{}, a.timeout, shown, std::cerr);
  std::cerr.flush();
  return rc;
}

int writeText(const std::string &out, const std::string &text) {
  if (out.empty() || out == "-") {
    std::cout << text;
    std::cout.flush();
    return std::cout ? kOk : kUsage;
  }
  std::ofstream f(out, std::ios::binary | std::ios::trunc);
  f << text;
  f.close();
  if (!f) return usage(out + ": cannot write: " + std::strerror(errno));
  return kOk;
}

const char *kEmitCudaFooter =
    "The CUDA C++ is one self-contained file (gpu/cuda_emu.h, runtime/cairn_rt.h and gpu/cairn_cu.h are pasted\n"
    "in). Build it with `nvcc -O2 -std=c++17 --fmad=false prog.cu` for a GPU, or run its kernels on the CPU:\n"
    "`c++ -O1 -std=c++20 -pthread -x c++ prog.cu`. The executable takes the options of an emitted C program\n"
    "(--slot, --slot-file, --max-elements, --json), prints what `cairn run` prints, exits 0 ok, 1 on a trap,\n"
    "2 on a usage error or with no CUDA device, 70 on an internal error (a CUDA error).\n"
    "Flat .uir graphs only. Exit status of cairn: 0 written; 1 the program is invalid; 2 usage or I/O error.";

}  // namespace

CLI::App *addEmitCudaCommand(CLI::App &emit, EmitCudaArgs &a) {
  auto *c = emit.add_subcommand("cuda", "Validate a flat .uir graph and write it as one self-contained CUDA C++ file.");
  c->add_option("FILE", a.file, "the program: a flat .uir graph, or its JSON form when the name ends in .json; `-` reads "
                                "standard input")
      ->required();
  c->add_option("-o,--output", a.out, "write to this file instead of stdout");
  c->add_flag("--exact-float-reduce", a.exactFloatReduce, kExactFloatReduceHelp);
  c->footer(kEmitCudaFooter);
  return c;
}

const char *const kExactFloatReduceHelp =
    "float add and mul reductions over a kernel's range in index order, bit-equal to the interpreter (slower: one "
    "thread combines every lane's value); by default they are tree reductions, equal up to rounding (docs/uir.md, "
    "\"Emitted CUDA\")";

int emitCudaCommand(const Graph &g, const Facts &facts, const std::string &shown, const EmitCudaArgs &a) {
  CudaEmitOptions o;
  o.sourceName = shown;
  o.exactFloatReduce = a.exactFloatReduce;
  return writeText(a.out, emitCuda(g, facts, schedule(g, facts), o));
}

int runCudaBackend(const Graph &g, const Facts &facts, const std::string &shown, const CRunArgs &a, bool emulate,
                   bool exactFloatReduce) {
  if (a.trace) return usage("--trace needs --backend interp (the compiled program has no step trace)");
  if (a.maxSteps != 0) return usage("--max-steps needs --backend interp (use --timeout with --backend cuda)");
  std::string why;
  if (!emulate && cudaDeviceCount(why) == 0)
    return usage("no CUDA device (" + why + "); --emulate runs the emitted kernels on the CPU");
  CudaToolchain tc = cudaToolchainFromEnv(emulate);
  CudaEmitOptions o;
  o.sourceName = shown;
  o.exactFloatReduce = exactFloatReduce;
  const std::string text = emitCuda(g, facts, schedule(g, facts), o);
  TempDir dir;
  if (!dir.ok()) return usage(dir.error());
  const std::string src = dir.file("prog.cu"), exe = dir.file("prog"), slots = dir.file("slots.txt");
  if (!writeFileText(src, text)) return usage(src + ": cannot write");
  if (!writeFileText(slots, slotFileText(a))) return usage(slots + ": cannot write");
  std::string error;
  if (!compileCuda(tc, dir.path(), src, exe, error)) return usage(error);
  return runBuilt(exe, slots, a, shown);
}

const char *const kGuardZonesHelp =
    "check each load and store offset against its buffer before the access, and canary bytes around every buffer "
    "after the run: an access out of bounds (a bug in cairn) stops the program with `out-of-bounds write: ...` "
    "(or `read`) at the buffer's line, exit 3";
const char *const kCheckAccessesHelp =
    "check each load and store offset as the interpreter does: out of bounds traps at the access (exit 1; a module's "
    "trap exits 101); decides over --guard-zones";

CLI::App *addEmitCommand(CLI::App &app, EmitCArgs &a) {
  auto *emit = app.add_subcommand("emit", "Translate a program for a back end (`cairn emit c FILE`).");
  emit->require_subcommand(1);
  auto *c = emit->add_subcommand("c", "Validate a program and write it as one self-contained C11 file.");
  c->add_option("FILE", a.file,
                "the program: .uir text (a flat graph or a module), its JSON form when the name ends in .json, or a CAIRN "
                "program (FILE.cairn, lowered first); `-` reads standard input")
      ->required();
  c->add_option("-o,--output", a.out, "write to this file instead of stdout");
  c->add_flag("--guard-zones", a.guardZones, kGuardZonesHelp);
  c->add_flag("--check-accesses", a.checkAccesses, kCheckAccessesHelp);
  c->footer(kEmitFooter);
  return c;
}

int emitCCommand(const Graph &g, const Facts &facts, const std::string &shown, const EmitCArgs &a) {
  EmitOptions o;
  o.sourceName = shown;
  o.guardZones = a.guardZones;
  o.checkAccesses = a.checkAccesses;
  return writeText(a.out, emitC(g, facts, schedule(g, facts), o));  // a graph it cannot emit is an internal error
}

int runCBackend(const Graph &g, const Facts &facts, const std::string &shown, const CRunArgs &a) {
  if (a.trace) return usage("--trace needs --backend interp (the compiled program has no step trace)");
  if (a.maxSteps != 0) return usage("--max-steps needs --backend interp (use --timeout with --backend c)");
  EmitOptions o;
  o.sourceName = shown;
  o.guardZones = a.guardZones;
  o.checkAccesses = a.checkAccesses;
  const std::string text = emitC(g, facts, schedule(g, facts), o);

  TempDir dir;
  if (!dir.ok()) return usage(dir.error());
  const std::string src = dir.file("prog.c"), exe = dir.file("prog"), slots = dir.file("slots.txt");
  if (!writeFileText(src, text)) return usage(src + ": cannot write");
  if (!writeFileText(slots, slotFileText(a))) return usage(slots + ": cannot write");

  CCompiler cc = compilerFromEnv();
  std::string error;
  if (!compileC(cc, dir.path(), src, exe, error)) return usage(error);

  return runBuilt(exe, slots, a, shown);
}

}  // namespace cairn
