// Small shared pieces of the oracle's layers.
#pragma once
#include <cstdint>
#include <string>

#include "ir/graph.hpp"

namespace cairn {

// Loops nest at most this deep (like a compiler's bracket-depth limit), which
// bounds every walk up the region tree the oracle makes.
constexpr uint32_t kMaxLoopDepth = 256;

inline std::string pct(const Graph &g, NodeId n) { return "%" + std::string(g.name(n)); }

}  // namespace cairn
