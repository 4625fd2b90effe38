// See gpu/cuda_toolchain.hpp.
#include "gpu/cuda_toolchain.hpp"

#include <dlfcn.h>

#include <cstdlib>

#include "exec/c_toolchain.hpp"

#ifndef CAIRN_NVCC
#define CAIRN_NVCC "nvcc"
#endif

namespace cairn {

CudaToolchain cudaToolchainFromEnv(bool emulate) {
  CudaToolchain t;
  t.emulate = emulate;
  auto env = [](const char *name) -> const char * {
    const char *v = std::getenv(name);
    return v && *v ? v : nullptr;
  };
  if (emulate) {
    t.cc = splitWords(env("CXX") ? env("CXX") : "c++");
    const char *f = std::getenv("CXXFLAGS");
    t.flags = splitWords(f ? f : "-O1");
  } else {
    t.cc = splitWords(env("CUDACXX") ? env("CUDACXX") : CAIRN_NVCC);
    const char *f = std::getenv("NVCCFLAGS");
    t.flags = splitWords(f ? f : "-O2 -arch=native");
  }
  if (t.cc.empty()) t.cc = {emulate ? "c++" : "nvcc"};
  return t;
}

bool cudaToolchainAvailable(const CudaToolchain &t) {
  CCompiler c;
  c.cc = t.cc;
  return compilerAvailable(c);
}

bool compileCuda(const CudaToolchain &t, const std::string &dir, const std::string &source, const std::string &exe,
                 std::string &error) {
  std::vector<std::string> argv = t.cc;
  argv.insert(argv.end(), t.flags.begin(), t.flags.end());
  if (t.emulate)
    for (const char *a : {"-std=c++20", "-pthread", "-x", "c++", "-o"}) argv.emplace_back(a);
  else
    for (const char *a : {"-std=c++17", "--fmad=false", "-x", "cu", "-o"}) argv.emplace_back(a);
  argv.push_back(exe);
  argv.push_back(source);
  if (t.emulate) argv.insert(argv.end(), {"-x", "none", "-lm"});
  return runCompiler(argv, dir, t.emulate ? "the C++ compiler (--emulate)" : "nvcc",
                     t.emulate ? "set CXX to a C++20 compiler" : "set CUDACXX to nvcc", error);
}

int cudaDeviceCount(std::string &why) {
  void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    why = "no CUDA driver (libcuda.so.1)";
    return 0;
  }
  using Init = int (*)(unsigned);
  using Count = int (*)(int *);
  auto init = reinterpret_cast<Init>(dlsym(lib, "cuInit"));
  auto count = reinterpret_cast<Count>(dlsym(lib, "cuDeviceGetCount"));
  int n = 0;
  if (!init || !count || init(0) != 0 || count(&n) != 0 || n <= 0) {
    why = "the CUDA driver reports no device";
    n = 0;
  }
  dlclose(lib);
  return n;
}

}  // namespace cairn
