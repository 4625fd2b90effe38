// The program generators are functions of their seed alone, whatever the
// compiler: `cairn fuzz --seed S --count 1` must rebuild a failure found by
// another build (CI's release lane is g++, its sanitizer lane clang++).
// C++ leaves unspecified the order in which the operands of `+` and the
// arguments of a call are evaluated, so one expression that draws from the
// random stream twice (`newBuffer(anyDtype(), 1 + pick(6))`) gives g++ one
// program and clang++ another. This test pins a checksum of the first
// programs of every generator; both CI lanes run it, so a double draw fails
// one of them. Changing a generator on purpose changes the sums: print the
// new ones with CAIRN_PRINT_GEN_SUMS=1 and update kSums.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "tools/progen.hpp"
#include "tools/progen_module.hpp"

using namespace cairn;

namespace {

uint64_t fnv1a(uint64_t h, const std::string &s) {
  for (unsigned char c : s) h = (h ^ c) * 0x100000001b3ull;
  return h;
}

template <class F> uint64_t sumOf(F gen) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (uint64_t seed = 1; seed <= 200; ++seed) h = fnv1a(h, gen(seed));
  return h;
}

}  // namespace

TEST(ProgenStable, EveryGeneratorIsAFunctionOfItsSeedAlone) {
  struct Gen {
    const char *name;
    uint64_t sum;
    uint64_t (*compute)();
  };
  const Gen kSums[] = {
      {"valid", 0x831d240d81272317ull, [] { return sumOf([](uint64_t s) { return generateValid(s).text; }); }},
      {"broken", 0x90fc3540c490cc08ull, [] { return sumOf([](uint64_t s) { return breakProgram(generateValid(s).text, Breakage(s % kNumBreakages), s); }); }},
      {"arbitrary", 0x8ea8c4ec674628f0ull, [] { return sumOf([](uint64_t s) { return generateArbitrary(s); }); }},
      {"wrap", 0x57c8fcd943eeae98ull, [] { return sumOf([](uint64_t s) { return generateWrapIndices(s); }); }},
      {"module", 0xf2144de78ed2a7b8ull, [] { return sumOf([](uint64_t s) { return generateModule(s, moduleGenOptions(s)); }); }},
      {"nest", 0x407ddd32a730112eull, [] { return sumOf([](uint64_t s) { return generateNested(s); }); }},
  };
  bool print = std::getenv("CAIRN_PRINT_GEN_SUMS") != nullptr;
  for (const Gen &g : kSums) {
    uint64_t got = g.compute();
    if (print) std::printf("      {\"%s\", 0x%016llxull, ...},\n", g.name, static_cast<unsigned long long>(got));
    EXPECT_EQ(got, g.sum) << g.name << ": the programs of seeds 1..200 changed. If the generator changed on purpose, "
                          << "update kSums (CAIRN_PRINT_GEN_SUMS=1 prints them); if only the compiler did, an expression "
                          << "draws twice from the random stream in an unspecified order: give each draw its own statement";
  }
}
