// The CUDA back end: a validated flat graph, through its Schedule, as one
// self-contained CUDA C++ file (docs/uir.md, "Emitted CUDA").
//
// The file is gpu/cuda_emu.h (the CPU stand-in, inert under nvcc),
// runtime/cairn_rt.h (host runtime and driver) and gpu/cairn_cu.h (device
// traps, the spill, host glue), then per program its kernels and
// `PREFIX_entry`, which the C runtime's driver calls: the executable takes
// the options of an emitted C program (--slot, --slot-file, --max-elements,
// --json) and prints, traps and exits exactly as `cairn run` does.
//
// Where each part of the schedule runs is one table, in gpu/emit_cuda.cpp
// (kPlacement). Integer results equal the interpreter's exactly. Float add
// and mul reductions over a kernel's range are tree reductions (per thread,
// per block, then the blocks in order): their result may differ from the
// interpreter's index-order sum by the rounding of a different order, within
// the bound docs/uir.md gives; with exactFloatReduce each lane's value is
// kept and one thread combines them in index order, bit-equal to the
// interpreter. Transcendental ops (sin, exp2, log2) use the device's libm on
// a GPU (a few ulps apart from the host's) and the host's under emulation.
//
// Only graphs the oracle accepted may be emitted; anything the emitter does
// not expect is an internal error (ir/check.hpp). Modules are not emitted
// (a later issue: CAIRN device code); the caller refuses them.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "exec/emit_c.hpp"
#include "exec/schedule.hpp"

namespace cairn {

struct CudaEmitOptions {
  std::string sourceName = "program.uir";  // FILE in trap messages
  std::string prefix = "cairn";            // of the program's names
  bool exactFloatReduce = false;           // float add/mul reductions in index order (see above)
  bool withMain = true;                    // emit `int main`
};

std::string emitCuda(const Graph &g, const Facts &facts, const Schedule &s, const CudaEmitOptions &opts = {});

// Many programs in one file, as emitCBatch (exec/emit_c.hpp): program K is
// prefixed cairn_pK_ and main is the C runtime's batch driver (--count,
// --program K, --all).
std::string emitCudaBatch(const std::vector<EmitUnit> &units, const CudaEmitOptions &opts = {});

// What the emitted file pastes in: gpu/cuda_emu.h and gpu/cairn_cu.h.
std::string_view cudaEmuText();
std::string_view cudaRuntimeText();

}  // namespace cairn
