// Graphviz DOT export; see dot.hpp for what the picture shows.
//
// One pass in node order: loop regions are contiguous runs of lines
// (`range` ... `end`), so clusters open and close as the walk enters and
// leaves them, tracked with an explicit stack (no recursion, whatever the
// nesting depth). A node's buffer is found from its first operand, which is
// always an earlier node, so one forward pass suffices; on graphs the oracle
// would reject this is best effort, never a crash. The version highlight
// (DotOptions::versionsOf) is one more forward pass: a view or store names
// the version of its first operand, an `after` or `carry` is a version.
#include "ir/dot.hpp"

#include <algorithm>
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
// Versions of the highlighted buffer: a light fill and a darker edge colour
// each (ColorBrewer Paired, then Dark2 on Pastel2).
// Red comes last: it is the colour of highlighted lines.
constexpr const char *kVersionFill[] = {"#a6cee3", "#b2df8a", "#fdbf6f", "#cab2d6", "#ffff99", "#b3e2cd",
                                        "#fdcdac", "#cbd5e8", "#f4cae4", "#e6f5c9", "#fff2ae", "#fb9a99"};
constexpr const char *kVersionEdge[] = {"#1f78b4", "#33a02c", "#ff7f00", "#6a3d9a", "#b15928", "#1b9e77",
                                        "#d95f02", "#7570b3", "#e7298a", "#66a61e", "#e6ab02", "#e31a1c"};
constexpr size_t kVersionColours = sizeof kVersionFill / sizeof kVersionFill[0];
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

// For the highlighted buffer: each node's version colour (-1: none), and
// its versions in source order.
struct VersionColours {
  std::vector<int> of;
  std::vector<NodeId> versions;  // in colour order
};

NodeId firstNode(const Graph &g, NodeId n) {
  auto ops = g.operands(n);
  return !ops.empty() && !ops[0].isLit() && ops[0].node().v < n.v ? ops[0].node() : NodeId::none();
}

VersionColours versionColours(const Graph &g, const std::vector<NodeId> &buf, NodeId target) {
  VersionColours vc;
  vc.of.assign(g.size(), -1);
  if (!target.valid()) return vc;
  for (uint32_t i = 0; i < g.size(); ++i) {
    NodeId n{i};
    if (buf[i] != target) continue;
    switch (g.op(n)) {
      case Op::Buffer: case Op::After: case Op::Carry:
        vc.of[i] = static_cast<int>(vc.versions.size() % kVersionColours);
        vc.versions.push_back(n);
        break;
      case Op::Shrink: case Op::CShrink: case Op::Store: {
        NodeId p = firstNode(g, n);
        if (p.valid()) vc.of[i] = vc.of[p.v];
        break;
      }
      default: break;
    }
  }
  // A store takes the colour of the version its after makes.
  for (uint32_t i = 0; i < g.size(); ++i) {
    NodeId n{i};
    if (g.op(n) != Op::After || vc.of[i] < 0) continue;
    auto ops = g.operands(n);
    if (ops.size() == 2 && !ops[1].isLit() && ops[1].node().v < i && g.op(ops[1].node()) == Op::Store)
      vc.of[ops[1].node().v] = vc.of[i];
  }
  return vc;
}

}  // namespace

NodeId findBuffer(const Graph &g, std::string_view name) {
  if (!name.empty() && name[0] == '%') name.remove_prefix(1);
  for (uint32_t i = 0; i < g.size(); ++i)
    if (g.op(NodeId{i}) == Op::Buffer && g.name(NodeId{i}) == name) return NodeId{i};
  return NodeId::none();
}

void printDot(const Graph &g, std::ostream &os) { printDot(g, os, DotOptions{}); }

void printDot(const Graph &g, std::ostream &os, const DotOptions &opts) {
  std::vector<NodeId> buf = buffersOf(g);
  VersionColours vc = versionColours(g, buf, opts.versionsOf.empty() ? NodeId::none() : findBuffer(g, opts.versionsOf));
  auto highlighted = [&](NodeId n) {
    return !opts.highlightLines.empty() && std::find(opts.highlightLines.begin(), opts.highlightLines.end(),
                                                     g.loc(n).line) != opts.highlightLines.end();
  };
  std::vector<int> colour(g.size(), -1);  // buffer node -> palette index
  int buffers = 0;
  for (uint32_t i = 0; i < g.size(); ++i)
    if (g.op(NodeId{i}) == Op::Buffer) colour[i] = buffers++ % static_cast<int>(kPaletteSize);

  os << "digraph uir {\n"
        "  rankdir=TB;\n"
        "  node [fontname=\"monospace\", fontsize=10];\n"
        "  edge [arrowsize=0.7];\n";
  if (!vc.versions.empty()) {
    std::string names;
    for (NodeId v : vc.versions) names += (names.empty() ? "%" : ", %") + std::string(g.name(v));
    os << "  label=\"versions of %" << escape(g.name(vc.versions[0])) << ": " << escape(names)
       << "\"; labelloc=t; fontname=\"monospace\";\n";
  }
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
    if (vc.of[i] >= 0) os << ", fillcolor=\"" << kVersionFill[vc.of[i]] << "\", color=\"" << kVersionEdge[vc.of[i]] << '"';
    else if (buf[i].valid()) os << ", fillcolor=\"" << kPalette[colour[buf[i].v]] << '"';
    if (highlighted(n)) os << ", color=\"#d62728\", penwidth=3";
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
      if (g.op(n) == Op::After && vc.of[i] >= 0 && k <= 1)
        os << " [color=\"" << kVersionEdge[vc.of[i]] << "\", penwidth=2.5, tooltip=\""
           << (k == 1 ? "sequenced by after" : "the version it builds on") << "\"]";
      else if (g.op(n) == Op::After && k == 1) os << " [color=\"#d62728\", penwidth=2.5, tooltip=\"sequenced by after\"]";
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

std::string printDot(const Graph &g, const DotOptions &opts) {
  std::ostringstream os;
  printDot(g, os, opts);
  return os.str();
}

}  // namespace cairn
