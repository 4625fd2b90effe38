// The golden runner's compiled engines: a golden file's program emitted as C
// (exec/emit_c.hpp, compiled once with the system compiler: CC, CFLAGS) or
// as CUDA run on the CPU (gpu/emit_cuda.hpp with exact float reductions,
// compiled with the host C++ compiler and gpu/cuda_emu.h: CXX, CXXFLAGS,
// default -O0 here, as these programs are small), in a private temporary
// folder, then run once per input, its output read back into the runner's
// terms (output lines, or a trap's line and message, or a usage error's
// message), so it can be compared with the interpreter's.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "exec/c_toolchain.hpp"
#include "ir/graph.hpp"
#include "oracle/oracle.hpp"

namespace cairn::filetest {

struct COutcome {
  bool trapped = false;
  bool usage = true;  // also when the C could not be built or run (the message says why)
  uint32_t line = 0;
  std::string message;
  std::vector<std::string> lines;
};

class CEngine {
 public:
  // `source`: FILE in the program's trap messages.
  enum class Kind { C, CudaEmulated };
  CEngine(std::string source, Kind kind) : source_(std::move(source)), kind_(kind) {}
  // Runs the program with these --slot values; builds it on the first call.
  COutcome run(const Graph &g, const Facts &facts, const std::map<int64_t, std::vector<Literal>> &slotData);

 private:
  bool build(const Graph &g, const Facts &facts);
  std::string source_;
  Kind kind_;
  bool tried_ = false;
  std::unique_ptr<TempDir> dir_;
  std::string exe_, error_;
  int runs_ = 0;
};

}  // namespace cairn::filetest
