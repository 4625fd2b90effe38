// The CUDA emitter's placement and its refusals (gpu/emit_cuda.hpp): where
// each part of a schedule goes, read off the emitted text, and an internal
// error for facts that do not belong to the graph. Running the emitted CUDA
// is the golden runner's job (its cuda-emulated engine) and the fuzzers'.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "exec/schedule.hpp"
#include "gpu/emit_cuda.hpp"
#include "ir/check.hpp"
#include "ir/parser.hpp"
#include "oracle/oracle.hpp"

namespace cairn {
namespace {

struct Prog {
  Graph g;
  Facts f;
  Schedule s;
};

std::unique_ptr<Prog> load(const std::string &text) {
  auto p = std::make_unique<Prog>();
  Diags d;
  EXPECT_TRUE(parseUir(text, p->g, d) && validate(p->g, p->f, d)) << text;
  p->s = schedule(p->g, p->f);
  return p;
}

size_t count(const std::string &s, const std::string &what) {
  size_t n = 0;
  for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}

// The program's own part (after the pasted runtime).
std::string programOf(const std::string &text) { return text.substr(text.find("/* ---- the program")); }

TEST(EmitCuda, SerialCodeIsOneThreadKernelAndAParallelLoopAGridStrideKernel) {
  auto p = load(
      "%a = buffer 8 dtype=i32 slot=0 data=[1 2 3 4 5 6 7 8]\n"
      "%q = shrink %a 0 shape=[]\n%x = load %q\n%y = add %x 1\n%s = store %q %y\n%a1 = after %a %s\n"
      "%i = range 8 parallel\n  %p = shrink %a1 %i shape=[]\n  %v = load %p\n  %w = mul %v 2\n  %t = store %p %w\n"
      "%e = end %i %t\n%a2 = after %a1 %e\n");
  std::string c = programOf(emitCuda(p->g, p->f, p->s));
  EXPECT_EQ(count(c, "static __global__ void cairn_s"), 1u) << c;
  EXPECT_EQ(count(c, "static __global__ void cairn_k"), 1u) << c;
  EXPECT_NE(c.find("lane += (cairn_cu_u64)gridDim.x * blockDim.x"), std::string::npos);
  EXPECT_NE(c.find("CAIRN_LAUNCH(cairn_s"), std::string::npos);
  EXPECT_NE(c.find("cairn_cu_copy_back(&H, 0u"), std::string::npos);
}

TEST(EmitCuda, ASerialLoopAroundAParallelOneRunsOnTheHost) {
  auto p = load(
      "%a = buffer 4 dtype=i64 slot=0\n%j = range 3\n  %ac = carry %a\n  %i = range 4 parallel\n"
      "    %p = shrink %ac %i shape=[]\n    %x = load %p\n    %y = add %x %j\n    %s = store %p %y\n"
      "  %e = end %i %s\n  %an = after %ac %e\n%ee = end %j %an\n%a1 = after %a %ee\n%r = reduce add %ee %j\n");
  std::string c = programOf(emitCuda(p->g, p->f, p->s));
  // The host counts %j and passes it to the kernel; the reduce over %j is a
  // spill cell set on the host and combined by a one-thread kernel.
  EXPECT_NE(c.find("for (int64_t v1 = 0; v1 < INT64_C(3); ++v1) {"), std::string::npos) << c;
  EXPECT_NE(c.find("cairn_cu_u64 seq, cairn_cu_u64 n, int64_t v1)"), std::string::npos) << c;
  EXPECT_NE(c.find("cairn_cu_write<int64_t>(&H"), std::string::npos) << c;
  EXPECT_EQ(count(c, "static __global__ void cairn_c"), 1u) << c;
}

TEST(EmitCuda, AKernelReduceIsABlockTreeThenOneBlock) {
  auto p = load(
      "%a = buffer 4 dtype=f32 slot=0 data=[1 2 3 4]\n%o = buffer 1 dtype=f32 slot=1\n%i = range 4 parallel\n"
      "  %p = shrink %a %i shape=[]\n  %x = load %p\n%e = end %i\n%t = reduce add %e %x\n"
      "%q = shrink %o 0 shape=[]\n%s = store %q %t\n%o1 = after %o %s\n");
  std::string tree = programOf(emitCuda(p->g, p->f, p->s));
  EXPECT_EQ(count(tree, "__shared__"), 2u) << tree;  // the kernel's blocks, then the finishing block
  EXPECT_NE(tree.find("1, CAIRN_CU_BLOCK, d, H.seq"), std::string::npos) << tree;
  CudaEmitOptions o;
  o.exactFloatReduce = true;
  std::string exact = programOf(emitCuda(p->g, p->f, p->s, o));
  EXPECT_EQ(count(exact, "__shared__"), 0u) << exact;  // every lane's value, combined in index order
  EXPECT_NE(exact.find("[lane] = "), std::string::npos) << exact;
}

TEST(EmitCuda, AnUnvalidatedGraphIsAnInternalError) {
  if (kCheckAborts) GTEST_SKIP() << "built with CAIRN_CHECK_ABORTS: a failed check aborts";
  auto p = load("%b = buffer 1 dtype=i32 slot=0\n");
  Facts empty;
  EXPECT_THROW((void)emitCuda(p->g, empty, p->s), InternalError);
  EXPECT_THROW(emitCudaBatch({{nullptr, nullptr, nullptr, "none.uir"}}), InternalError);
}

}  // namespace
}  // namespace cairn
