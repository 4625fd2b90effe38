// Compiling emitted CUDA (gpu/emit_cuda.hpp) and finding a GPU.
//
// Two toolchains compile the same .cu:
//   a GPU        ${CUDACXX:-nvcc} ${NVCCFLAGS:--O2 -arch=native} -std=c++17
//                --fmad=false -x cu -o EXE SRC (nvcc: the one CMake's
//                CUDAToolkit found when cairn was built, else nvcc in PATH);
//                --fmad=false keeps a*b+c two roundings, as the interpreter
//                computes it;
//   the CPU      ${CXX:-c++} ${CXXFLAGS:--O1} -std=c++20 -pthread -x c++ -o EXE
//   (--emulate)  SRC -x none -lm: gpu/cuda_emu.h runs each kernel's blocks
//                on real threads.
// Both run in a private folder (exec/c_toolchain.hpp TempDir, runCompiler).
#pragma once
#include <string>
#include <vector>

namespace cairn {

struct CudaToolchain {
  bool emulate = false;
  std::vector<std::string> cc, flags;
};

CudaToolchain cudaToolchainFromEnv(bool emulate);
bool cudaToolchainAvailable(const CudaToolchain &t);
bool compileCuda(const CudaToolchain &t, const std::string &dir, const std::string &source, const std::string &exe,
                 std::string &error);

// The number of CUDA devices the driver (libcuda.so.1, loaded at run time)
// reports; 0 with `why` when there is no driver or no device.
int cudaDeviceCount(std::string &why);

}  // namespace cairn
