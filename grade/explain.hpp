// Pictures for feedback (`cairn grade --explain`).
//
// For an old-version-order error the oracle lists the cycle arrow by arrow
// in its notes (`arrow k/N: %a (line A) must come before %b (line B): ...`);
// cycleDot draws exactly those arrows, one cluster per cycle, the load ->
// store arrow that closes the cycle in red. For other oracle errors the
// whole program is drawn with the versions of the buffer involved coloured
// and the offending lines outlined (ir/dot.hpp). `renderSvg` runs Graphviz's
// `dot` on the DOT file we wrote (never anything of the submission's), and
// reports cleanly when it is not installed.
#pragma once
#include <string>

#include "ir/diag.hpp"
#include "ir/graph.hpp"

namespace cairn::grade {

// DOT of the cycles among `d`'s old-version-order errors; "" when none.
std::string cycleDot(const Graph &g, const Diags &d);

// DOT of the whole program with the lines of `d`'s errors outlined and the
// versions of the first buffer they involve coloured.
std::string errorDot(const Graph &g, const Diags &d);

// Runs `dot -Tsvg DOT -o SVG` (at most `seconds`); false with `why` when
// Graphviz is missing or fails.
bool renderSvg(const std::string &dotPath, const std::string &svgPath, std::string &why, double seconds = 20);

}  // namespace cairn::grade
