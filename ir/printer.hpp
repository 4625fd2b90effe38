// The canonical .uir printer. Deterministic: the same graph always prints the
// same bytes, and parse(print(g)) is structurally equal to g.
#pragma once
#include <iosfwd>
#include <string>

#include "ir/graph.hpp"

namespace cairn {

// Loop bodies are indented two spaces per level; comments are kept.
void printUir(const Graph &g, std::ostream &os);
std::string printUir(const Graph &g);
// One node's line without indentation or comments (used in diagnostics).
std::string nodeText(const Graph &g, NodeId n);

}  // namespace cairn
