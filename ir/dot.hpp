// Graphviz DOT export of a .uir graph, for looking at a program's shape.
//
// Each node is labelled with its line (as `cairn fmt` prints it) and line
// number. Data edges are solid; the edge from an event to the `after` that
// sequences it is drawn bold red; every version, view and store of one
// buffer shares that buffer's colour; loop bodies are clusters. The output
// depends only on the graph, so it is byte-for-byte deterministic. Works on
// any graph the reader accepts (the oracle need not have passed it).
#pragma once
#include <iosfwd>
#include <string>

#include "ir/graph.hpp"

namespace cairn {

void printDot(const Graph &g, std::ostream &os);
std::string printDot(const Graph &g);

}  // namespace cairn
