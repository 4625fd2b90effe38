// Small shared pieces of the oracle's layers.
#pragma once
#include <cstdint>
#include <string>

#include "ir/graph.hpp"

namespace cairn {

// Loops nest at most this deep (like a compiler's bracket-depth limit), which
// bounds every walk up the region tree the oracle makes.
constexpr uint32_t kMaxLoopDepth = 256;
// In a module's functions regions also stand for `if`s and for the statements
// after an early return (docs/cairn.md), so they nest deeper.
constexpr uint32_t kMaxModuleLoopDepth = 4096;

inline std::string pct(const Graph &g, NodeId n) { return "%" + std::string(g.name(n)); }

}  // namespace cairn
