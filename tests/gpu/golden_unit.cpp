// cuda_golden_unit OUT.cu FILE...: every runnable flat golden graph among
// FILEs (`# test: run`, accepted by the oracle) emitted as CUDA into one
// batch unit (gpu/emit_cuda.hpp emitCudaBatch), so that one nvcc run per
// architecture checks that the emitter writes CUDA nvcc accepts for every
// golden program (ctest gpu/nvcc_golden_*). Prints how many it emitted;
// exit 1 when it emitted none or cannot write OUT.
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

#include "exec/schedule.hpp"
#include "gpu/emit_cuda.hpp"
#include "ir/parser.hpp"
#include "oracle/oracle.hpp"

int main(int argc, char **argv) {
  using namespace cairn;
  if (argc < 3) {
    std::cerr << "usage: cuda_golden_unit OUT.cu FILE...\n";
    return 2;
  }
  struct Prog {
    Graph g;
    Facts f;
    Schedule s;
    std::string name;
  };
  std::vector<std::unique_ptr<Prog>> progs;
  for (int i = 2; i < argc; ++i) {
    std::ifstream in(argv[i], std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    const std::string text = ss.str();
    if (text.find("# test: run") == std::string::npos) continue;
    auto p = std::make_unique<Prog>();
    Diags d;
    if (!parseUir(text, p->g, d) || !validate(p->g, p->f, d)) continue;
    p->s = schedule(p->g, p->f);
    p->name = argv[i];
    progs.push_back(std::move(p));
  }
  std::vector<EmitUnit> units;
  for (const auto &p : progs) units.push_back({&p->g, &p->f, &p->s, p->name});
  std::ofstream out(argv[1], std::ios::binary | std::ios::trunc);
  out << emitCudaBatch(units);
  out.close();
  std::cout << "cuda_golden_unit: " << units.size() << " programs in " << argv[1] << "\n";
  return out && !units.empty() ? 0 : 1;
}
