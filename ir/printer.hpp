// The canonical .uir printer. Deterministic: the same graph always prints the
// same bytes, and parse(print(g)) is structurally equal to g.
#pragma once
#include <iosfwd>
#include <string>
#include <string_view>

#include "ir/graph.hpp"

namespace cairn {

// Loop bodies are indented two spaces per level; comments are kept.
void printUir(const Graph &g, std::ostream &os);
std::string printUir(const Graph &g);
// One node's line without indentation or comments (used in diagnostics).
std::string nodeText(const Graph &g, NodeId n);
// A guard's message as written between the quotes of `msg="..."`: `"` and
// `\` escaped, bytes outside printable ASCII as \xNN (so it is ASCII).
std::string escapeMsg(std::string_view text);
// Its inverse (false on an escape other than \" \\ \xNN, or a lone `\`).
bool unescapeMsg(std::string_view escaped, std::string &text);

}  // namespace cairn
