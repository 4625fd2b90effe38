// The CAIRN lexer: source bytes to a vector of tokens with line/column.
//
// One pass over the bytes, linear in their number. Identifiers are ASCII;
// keywords are told apart by `Tok` kind (contextual words such as `pure`,
// `effects`, `packed`, `stack` stay identifiers and the parser reads their
// text). Comments are `//` to the end of the line and non-nesting `/* */`;
// they may hold UTF-8. Integer literals are decimal, `0x` hex or `0b`
// binary with `_` separators; a float has a point followed by a digit or an
// exponent (so `0..n` is `0`, `..`, `n`). String and char literals take the
// escapes `\n \t \r \0 \\ \" \' \xHH`; strings are decoded into
// `Lexed::strings`, a char literal is one byte and lexes as `CharLit`.
//
// Bad input never stops the lexer: a stray byte (a run of them is reported
// once), a NUL, invalid UTF-8, an unterminated string or comment, a bad
// escape or an overlong token each give one "E-LEX" diagnostic and lexing
// goes on past it. The vector always ends with one `Eof` token.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ir/diag.hpp"

namespace cairn::lex {

enum class Tok : uint8_t {
  Eof,
  Ident, IntLit, FloatLit, StrLit, CharLit,
  // keywords
  KwFn, KwStruct, KwEnum, KwLet, KwIf, KwElse, KwWhile, KwFor, KwIn, KwReturn, KwBreak, KwContinue,
  KwMatch, KwConst, KwImport, KwModule, KwPub, KwExtern, KwTrue, KwFalse, KwTrait, KwImpl, KwUnsafe,
  KwDefer, KwZeroed, KwTry,
  // punctuation
  LParen, RParen, LBrace, RBrace, LBracket, RBracket, Comma, Semi, Colon, Dot, DotDot, FatArrow, Arrow, At,
  Assign, Eq, Ne, Lt, Le, Gt, Ge, Plus, Minus, Star, Slash, Percent, Amp, Pipe, Caret, Tilde, Bang,
  AndAnd, OrOr, Shl, Shr,
  PlusEq, MinusEq, StarEq, SlashEq, PercentEq, AmpEq, PipeEq, CaretEq, ShlEq, ShrEq,
};

// How the parser names a token kind in "expected X, found Y" messages.
std::string_view tokName(Tok t);

struct Token {
  Tok kind = Tok::Eof;
  uint32_t off = 0, len = 0;         // the bytes of the token in the source
  uint32_t line = 0, col = 0;        // first byte, 1-based
  uint32_t endLine = 0, endCol = 0;  // just past the last byte
  uint32_t aux = 0;                  // StrLit: index into Lexed::strings; CharLit: the byte
};

struct Lexed {
  std::vector<Token> tokens;         // ends with Eof
  std::vector<std::string> strings;  // decoded string literals
};

// Token texts longer than these are refused (E-LEX) so that no later stage
// has to think about huge names or numerals.
inline constexpr size_t kMaxIdentLen = 1024;
inline constexpr size_t kMaxNumberLen = 1024;
inline constexpr size_t kMaxStringLen = size_t(1) << 24;

// Source longer than 4 GiB cannot be addressed by 32-bit offsets: refused.
bool lexCairn(std::string_view src, Lexed &out, Diags &diags);

// Decodes an integer literal's text (as lexed: decimal, 0x, 0b, with `_`).
// Returns false when it does not fit in 64 bits.
bool decodeInt(std::string_view text, uint64_t &value);

}  // namespace cairn::lex
