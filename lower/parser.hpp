// The CAIRN parser: tokens (lower/lexer.hpp) to the syntax tree
// (lower/ast.hpp), by recursive descent with one token of lookahead (a few
// more in the places noted in the code).
//
// Robustness. Every recursive rule passes through a depth guard: nesting of
// expressions, types and blocks deeper than kMaxDepth is one "E-PARSE"
// error and the construct is skipped, so no input can overflow the native
// stack, and the tree the walkers recurse over is never taller than that.
// Left-associative operator chains are built by loops and are bounded by
// the same limit on tree height. A syntax error skips to the next `;` or
// the `}` that closes the current block (or the next item keyword at top
// level) and parsing goes on; it stops adding errors at Diags::kLimit.
// Every loop consumes a token per iteration or exits, so parsing is linear.
//
// `Inst` versus `Index`. `NAME[...]` in an expression is generic arguments
// (`Inst`) when NAME is a builtin generic (Buf Array Dyn Atomic Mutex Ticket
// mmio_read mmio_write), a scalar type name, a name this file declares with
// generic parameters (`fn f[T]`, `struct S[T]`, `enum E[T]`, `trait`), or a
// name an `import a.b (X, Y)` brings in; for a dotted name the last segment
// decides. Otherwise it is indexing (`Index`, or `Part` for `a[lo..hi]`).
#pragma once
#include <cstdint>
#include <string_view>

#include "ir/diag.hpp"
#include "lower/ast.hpp"

namespace cairn {

inline constexpr uint32_t kMaxDepth = 256;

// Parses one file into `out` (cleared first; out.file = fileIndex). Returns
// true when no diagnostic was added. The tree is usable either way: a part
// that failed holds Error nodes.
bool parseCairn(std::string_view text, uint32_t fileIndex, ast::Module &out, Diags &diags);

}  // namespace cairn
