// The one table of the CAIRN front end's diagnostic codes (`E-MOVED`, ...):
// for each, a one-line title and a card (the rule, why it exists, how to fix
// it, one refused and one accepted program). `cairn rules` prints it, the
// "Diagnostic codes" table of docs/cairn.md is generated from it, and the
// unit tests hold the three together (tests/unit/rules_test.cpp).
//
// Invariants: the table is sorted by code, codes are unique, and every
// `"E-..."` literal under lower/ is a row. A row with `enforced` set is
// refused by today's checker: its refused program is refused with exactly
// that code and its accepted program is accepted (the tests run both). A
// row without it states the rule of the spec page
// (shared/spec/cairn-memory-ownership-effects.md) ahead of the checker.
// Every example program has `fn main() -> i32` (E-MAIN's refused one
// aside), so each also checks as a whole program.
#pragma once
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace cairn::rules {

struct Rule {
  std::string_view code;      // "E-MOVED"
  std::string_view title;     // one line, no final period
  std::string_view rule;      // what is refused
  std::string_view why;       // why the language has the rule
  std::string_view fix;       // what to write instead
  std::string_view refused;   // a program refused with `code` (empty: none can be written)
  std::string_view accepted;  // the same program, fixed
  bool enforced;              // today's checker refuses `refused` with `code`
};

// Every row, sorted by code.
std::span<const Rule> all();
// The row of `code` (exact, or with the letters in any case), or nullptr.
const Rule *find(std::string_view code);
// Up to `max` codes nearest to `code`: by edit distance, ties by order,
// and any code that contains it or that it contains first.
std::vector<std::string_view> nearest(std::string_view code, size_t max = 3);

}  // namespace cairn::rules
