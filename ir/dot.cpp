// Graphviz DOT export; see dot.hpp for what the picture shows.
//
// One pass in node order: loop regions are contiguous runs of lines
// (`range` ... `end`), so clusters open and close as the walk enters and
// leaves them, tracked with an explicit stack (no recursion, whatever the
// nesting depth). A node's buffer is found from its first operand, which is
// always an earlier node, so one forward pass suffices; on graphs the oracle
// would reject this is best effort, never a crash.
#include "ir/dot.hpp"

#include <ostream>
#include <sstream>
#include <vector>

#include "ir/printer.hpp"

namespace cairn {

namespace {

// Fill colours for buffers, in order of their `buffer` lines (ColorBrewer
// Set3, light enough for black text).
constexpr const char *kPalette[] = {"#8dd3c7", "#ffffb3", "#bebada", "#fb8072", "#80b1d3", "#fdb462",
                                    "#b3de69", "#fccde5", "#d9d9d9", "#bc80bd", "#ccebc5", "#ffed6f"};
constexpr size_t kPaletteSize = sizeof kPalette / sizeof kPalette[0];
constexpr size_t kMaxLabel = 80;  // longer lines (big data=[...]) are cut

std::string escape(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

std::string label(const Graph &g, NodeId n) {
  std::string text = nodeText(g, n);
  if (text.size() > kMaxLabel) text = text.substr(0, kMaxLabel - 3) + "...";
  return escape(text) + "\\nline " + std::to_string(g.loc(n).line);
}

// The `buffer` node whose storage node `n` names or writes, if any.
std::vector<NodeId> buffersOf(const Graph &g) {
  std::vector<NodeId> buf(g.size(), NodeId::none());
  for (uint32_t i = 0; i < g.size(); ++i) {
    NodeId n{i};
    switch (g.op(n)) {
      case Op::Buffer: buf[i] = n; break;
      case Op::Shrink: case Op::CShrink: case Op::Store: case Op::After: case Op::Carry: {
        auto ops = g.operands(n);
        if (!ops.empty() && !ops[0].isLit() && ops[0].node().v < i) buf[i] = buf[ops[0].node().v];
        break;
      }
      default: break;
    }
  }
  return buf;
}

const char *shapeOf(Op op) {
  switch (opInfo(op).result) {
    case ResultKind::Version: return "box";
    case ResultKind::View: return "box";
    case ResultKind::Event: return op == Op::End ? "invhouse" : "diamond";
    case ResultKind::Index: return "house";
    case ResultKind::Scalar: return "ellipse";
  }
  return "ellipse";
}

}  // namespace

void printDot(const Graph &g, std::ostream &os) {
  std::vector<NodeId> buf = buffersOf(g);
  std::vector<int> colour(g.size(), -1);  // buffer node -> palette index
  int buffers = 0;
  for (uint32_t i = 0; i < g.size(); ++i)
    if (g.op(NodeId{i}) == Op::Buffer) colour[i] = buffers++ % static_cast<int>(kPaletteSize);

  os << "digraph uir {\n"
        "  rankdir=TB;\n"
        "  node [fontname=\"monospace\", fontsize=10];\n"
        "  edge [arrowsize=0.7];\n";
  std::vector<NodeId> open;  // clusters (ranges) currently open, innermost last
  auto indent = [&] { return std::string(2 * (open.size() + 1), ' '); };
  for (uint32_t i = 0; i < g.size(); ++i) {
    NodeId n{i};
    Op op = g.op(n);
    // The cluster this node is drawn in: a range opens its own (inside its
    // parent's); an end stays inside the loop it closes.
    NodeId container = g.parent(n);
    if (op == Op::End) {
      auto ops = g.operands(n);
      if (!ops.empty() && !ops[0].isLit() && !open.empty() && ops[0].node() == open.back()) container = open.back();
    }
    while (!open.empty() && open.back() != container) {
      open.pop_back();
      os << indent() << "}\n";
    }
    if (op == Op::Range) {
      os << indent() << "subgraph cluster_" << i << " {\n";
      open.push_back(n);
      os << indent() << "label=\"loop %" << escape(g.name(n)) << (g.parallel(n) ? " (parallel)" : " (serial)")
         << "\"; style=rounded; color=gray40; fontname=\"monospace\";\n";
    }
    os << indent() << 'n' << i << " [label=\"" << label(g, n) << "\", shape=" << shapeOf(op);
    if (opInfo(op).result == ResultKind::View) os << ", style=\"rounded,filled\"";
    else if (buf[i].valid()) os << ", style=filled";
    if (buf[i].valid()) os << ", fillcolor=\"" << kPalette[colour[buf[i].v]] << '"';
    os << "];\n";
  }
  while (!open.empty()) {
    open.pop_back();
    os << indent() << "}\n";
  }
  for (uint32_t i = 0; i < g.size(); ++i) {
    NodeId n{i};
    auto ops = g.operands(n);
    for (size_t k = 0; k < ops.size(); ++k) {
      if (ops[k].isLit() || !ops[k].node().valid() || ops[k].node().v >= g.size()) continue;
      os << "  n" << ops[k].node().v << " -> n" << i;
      if (g.op(n) == Op::After && k == 1) os << " [color=\"#d62728\", penwidth=2.5, tooltip=\"sequenced by after\"]";
      os << ";\n";
    }
  }
  os << "}\n";
}

std::string printDot(const Graph &g) {
  std::ostringstream os;
  printDot(g, os);
  return os.str();
}

}  // namespace cairn
