// Graphviz DOT export of a .uir graph, for looking at a program's shape.
//
// Each node is labelled with its line (as `cairn fmt` prints it) and line
// number. Data edges are solid; the edge from an event to the `after` that
// sequences it is drawn bold red; every version, view and store of one
// buffer shares that buffer's colour; loop bodies are clusters. The output
// depends only on the graph, so it is byte-for-byte deterministic. Works on
// any graph the reader accepts (the oracle need not have passed it).
//
// DotOptions adds two highlights (off by default, so the plain picture is
// unchanged): the versions of one buffer, one colour per version, and a red
// outline on the nodes of given lines (the grader's --explain).
#pragma once
#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "ir/graph.hpp"

namespace cairn {

struct DotOptions {
  // A buffer's name (without `%`). Each version of that buffer (its
  // `buffer`, `after` and `carry` nodes) gets its own colour, in source
  // order; views of a version share its colour; a store takes the colour of
  // the version its `after` makes; both edges into each `after` of the
  // buffer are drawn bold in the new version's colour. Empty: off.
  std::string versionsOf;
  // Nodes on these source lines get a thick red outline.
  std::vector<uint32_t> highlightLines;
};

void printDot(const Graph &g, std::ostream &os);
std::string printDot(const Graph &g);
void printDot(const Graph &g, std::ostream &os, const DotOptions &opts);
std::string printDot(const Graph &g, const DotOptions &opts);
// The `buffer` node named `name` (without `%`), or none.
NodeId findBuffer(const Graph &g, std::string_view name);

}  // namespace cairn
