// The .uir text reader.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

#include "ir/diag.hpp"
#include "ir/graph.hpp"

namespace cairn {

// Parses `text` into `g` (which must be empty). Every syntax error is added
// to `diags` with its line and column, what was expected and what was found;
// the reader recovers at the next line, so one run reports them all. Loop
// regions are built too (see buildRegions). Returns true when no error was
// added. Never throws on any input. `firstLine` is the line number of the
// text's first line (a function body inside a module starts further down).
bool parseUir(std::string_view text, Graph &g, Diags &diags, uint32_t firstLine = 1);

// Text as editors write it: true when `text` starts with a UTF-8 byte order
// mark or holds a "\r"; `plainText` is then the same text without the mark
// and with every "\r\n" and lone "\r" written "\n" (line numbers and
// columns unchanged). parseUir reads such text directly; readers that split
// lines themselves (modules) read plainText.
bool needsPlainText(std::string_view text);
std::string plainText(std::string_view text);

// The count of "\n" in `text`, a word at a time (the reader's first pass
// over a large text).
size_t countNewlines(std::string_view text);

// Sets each node's parent (its innermost enclosing `range`) from the textual
// nesting of `range` ... `end` and reports unbalanced or crossed loops.
void buildRegions(Graph &g, Diags &diags);

// The ops written with `dtype=T` (required but for `call`, whose is
// optional); the JSON form uses the same set.
bool takesDType(Op op);

}  // namespace cairn
