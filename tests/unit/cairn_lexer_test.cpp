// Tests of the CAIRN lexer's fast paths (lower/lexer.cpp): keywords are told
// from names by a packed 8-byte compare, whether or not 8 bytes remain in
// the source; decimal literals of up to 19 digits skip the overflow test;
// tokens are staged in blocks before they reach the list.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "lower/lexer.hpp"

namespace {

using cairn::Diags;
using cairn::lex::Lexed;
using cairn::lex::Tok;

std::vector<cairn::lex::Token> lexOk(const std::string &src) {
  Lexed lx;
  Diags d;
  EXPECT_TRUE(cairn::lex::lexCairn(src, lx, d)) << src;
  return lx.tokens;
}

// Every keyword, spelt as tokName gives it ("`fn`" -> "fn").
std::vector<std::pair<std::string, Tok>> keywords() {
  std::vector<std::pair<std::string, Tok>> out;
  for (int k = int(Tok::KwFn); k <= int(Tok::KwTry); ++k) {
    std::string_view name = cairn::lex::tokName(Tok(k));
    out.emplace_back(std::string(name.substr(1, name.size() - 2)), Tok(k));
  }
  return out;
}

TEST(CairnLexerKeywords, KeywordsAndNearMissesAnywhereInTheSource) {
  const std::string pad(12, ' ');  // so that 8 bytes can be loaded past the word
  for (const auto &[word, kind] : keywords()) {
    for (const std::string &tail : {std::string(), std::string(";"), pad}) {
      auto toks = lexOk(word + tail);
      EXPECT_EQ(toks[0].kind, kind) << word << "|" << tail;
      EXPECT_EQ(toks[0].len, word.size());
      // Longer, shorter and differently cased words are names.
      for (const std::string &other : {word + "x", word + "_", word + "0", word.substr(0, word.size() - 1),
                                       std::string(1, char(word[0] - 'a' + 'A')) + word.substr(1)}) {
        bool isKeyword = false;
        for (const auto &kw : keywords()) isKeyword |= kw.first == other;
        if (isKeyword || other.empty()) continue;
        EXPECT_EQ(lexOk(other + tail)[0].kind, Tok::Ident) << other << "|" << tail;
        EXPECT_EQ(lexOk("a " + other + tail)[1].kind, Tok::Ident) << other << "|" << tail;
      }
    }
  }
}

TEST(CairnLexerNumbers, DecodeIntAtTheBoundaries) {
  struct Case {
    const char *text;
    bool ok;
    uint64_t value;
  };
  const Case cases[] = {
      {"0", true, 0},
      {"9999999999999999999", true, 9999999999999999999ull},  // 19 digits: the fast path
      {"18446744073709551615", true, UINT64_MAX},
      {"18446744073709551616", false, 0},
      {"99999999999999999999", false, 0},
      {"0000000000000000000000001", true, 1},  // long but small: the checked path
      {"1_000_000", true, 1000000},
      {"1__2", true, 12},
      {"1_8446_7440_7370_9551_615", true, UINT64_MAX},  // 25 characters with the separators
      {"0xFFFF_FFFF_FFFF_FFFF", true, UINT64_MAX},
      {"0x1_0000_0000_0000_0000", false, 0},
      {"0b101", true, 5},
      {"12a", false, 0},
  };
  for (const Case &c : cases) {
    uint64_t v = 0;
    EXPECT_EQ(cairn::lex::decodeInt(c.text, v), c.ok) << c.text;
    if (c.ok) {
      EXPECT_EQ(v, c.value) << c.text;
    }
  }
}

TEST(CairnLexerTokens, EveryTokenKeptAcrossStagingBlocks) {
  for (size_t n : {1u, 31u, 32u, 33u, 63u, 64u, 65u, 1000u}) {
    std::string src;
    for (size_t i = 0; i < n; ++i) src += i % 2 ? "x " : "(";
    auto toks = lexOk(src);
    ASSERT_EQ(toks.size(), n + 1) << n;  // and Eof
    size_t off = 0;
    for (size_t i = 0; i < n; ++i) {
      EXPECT_EQ(toks[i].kind, i % 2 ? Tok::Ident : Tok::LParen) << i;
      EXPECT_EQ(toks[i].off, off) << i;
      EXPECT_EQ(toks[i].col, off + 1) << i;
      off += i % 2 ? 2 : 1;
    }
    EXPECT_EQ(toks[n].kind, Tok::Eof);
    EXPECT_EQ(toks[n].off, src.size());
  }
}

}  // namespace
