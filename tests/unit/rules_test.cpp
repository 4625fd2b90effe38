// The table of diagnostic codes (lower/check/rules.hpp) held to the source,
// the docs and the checker:
//   - the table is sorted, unique and complete in every field;
//   - docs/cairn.md's "Diagnostic codes" table lists exactly its codes and
//     titles;
//   - every "E-..." literal under lower/ (outside lower/check/) is a row;
//   - every enforced row's refused program is refused with that code only,
//     and its accepted program is accepted (lowerCairn, checkAll);
//   - the look-ups: find in any case, nearest codes for a typo.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "lower/check/rules.hpp"
#include "lower/lower.hpp"

namespace cairn {
namespace {

namespace fs = std::filesystem;

std::string slurp(const fs::path &p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string printed(const Diags &d) {
  std::ostringstream os;
  d.print(os, "rule.cairn");
  return os.str();
}

TEST(Rules, SortedUniqueComplete) {
  auto rows = rules::all();
  ASSERT_GE(rows.size(), 50u);
  for (size_t i = 0; i < rows.size(); ++i) {
    const rules::Rule &r = rows[i];
    SCOPED_TRACE(std::string(r.code));
    if (i > 0) EXPECT_LT(rows[i - 1].code, r.code) << "the table is sorted by code, each code once";
    EXPECT_TRUE(std::regex_match(std::string(r.code), std::regex("E-[A-Z]+(-[A-Z]+)*")));
    EXPECT_FALSE(r.title.empty());
    EXPECT_EQ(r.title.find('|'), std::string_view::npos) << "a title goes into a Markdown table";
    EXPECT_FALSE(r.rule.empty());
    EXPECT_FALSE(r.why.empty());
    EXPECT_FALSE(r.fix.empty());
    EXPECT_NE(r.accepted.find("fn main() -> i32"), std::string_view::npos);
    if (r.code != "E-MAIN" && !r.refused.empty())
      EXPECT_NE(r.refused.find("fn main() -> i32"), std::string_view::npos);
    if (r.refused.empty()) EXPECT_FALSE(r.enforced) << "an enforced rule has a refused program";
  }
}

// The rows of the Markdown table under "## Diagnostic codes": `| `CODE` | title |`.
std::map<std::string, std::string> docTable() {
  std::string text = slurp(fs::path(CAIRN_SOURCE_DIR) / "docs" / "cairn.md");
  size_t at = text.find("\n## Diagnostic codes\n");
  if (at == std::string::npos) return {};
  size_t end = text.find("\n## ", at + 1);
  std::istringstream in(text.substr(at, end == std::string::npos ? std::string::npos : end - at));
  std::map<std::string, std::string> rows;
  std::regex row(R"(^\| `(E-[A-Z-]+)` \| (.*) \|$)");
  std::string line;
  std::smatch m;
  while (std::getline(in, line))
    if (std::regex_match(line, m, row)) rows[m[1]] = m[2];
  return rows;
}

TEST(Rules, DocsListEveryCode) {
  std::map<std::string, std::string> doc = docTable();
  ASSERT_FALSE(doc.empty()) << "docs/cairn.md has no \"## Diagnostic codes\" table";
  std::map<std::string, std::string> table;
  for (const auto &r : rules::all()) table[std::string(r.code)] = std::string(r.title);
  for (const auto &[code, title] : table) {
    auto it = doc.find(code);
    if (it == doc.end()) {
      ADD_FAILURE() << "docs/cairn.md lacks the row: | `" << code << "` | " << title << " |";
      continue;
    }
    EXPECT_EQ(it->second, title) << code << ": docs/cairn.md's title differs from lower/check/rules_table.cpp";
  }
  for (const auto &[code, title] : doc)
    EXPECT_TRUE(table.count(code)) << "docs/cairn.md lists " << code << ", which the table has not";
}

TEST(Rules, EveryCodeInTheFrontEndIsARow) {
  fs::path lower = fs::path(CAIRN_SOURCE_DIR) / "lower";
  std::regex lit("\"(E-[A-Z][A-Z-]*)\"");
  std::set<std::string> used;
  for (const auto &e : fs::recursive_directory_iterator(lower)) {
    if (!e.is_regular_file()) continue;
    std::string ext = e.path().extension().string();
    if (ext != ".cpp" && ext != ".hpp") continue;
    if (e.path().parent_path().filename() == "check") continue;  // the table itself
    std::string text = slurp(e.path());
    for (std::sregex_iterator it(text.begin(), text.end(), lit), endIt; it != endIt; ++it) used.insert((*it)[1]);
  }
  ASSERT_GE(used.size(), 20u) << "the scan found too few codes under " << lower;
  for (const std::string &code : used) EXPECT_NE(rules::find(code), nullptr) << code << " is used under lower/ but has no row";
}

TEST(Rules, EnforcedExamplesAreRefusedAndAccepted) {
  LowerOptions opts{.checkAll = true};
  size_t enforced = 0;
  for (const auto &r : rules::all()) {
    if (!r.enforced) continue;
    ++enforced;
    SCOPED_TRACE(std::string(r.code));
    {
      Module m;
      Diags d;
      EXPECT_FALSE(lowerCairn("rule.cairn", r.refused, m, d, opts)) << "the refused program is accepted";
      EXPECT_FALSE(d.empty());
      for (const auto &diag : d.list())
        EXPECT_EQ(diag.rule, r.code) << "the refused program is refused for another reason:\n" << printed(d);
    }
    {
      Module m;
      Diags d;
      EXPECT_TRUE(lowerCairn("rule.cairn", r.accepted, m, d, opts)) << "the accepted program is refused:\n" << printed(d);
    }
  }
  EXPECT_GE(enforced, 30u);
}

// Not a failure: a row marked `enforced = false` whose program is now
// refused with its code is printed, so its flag can be set.
TEST(Rules, ReportRowsThatCouldBeEnforced) {
  LowerOptions opts{.checkAll = true};
  for (const auto &r : rules::all()) {
    if (r.enforced || r.refused.empty()) continue;
    Module m;
    Diags d;
    lowerCairn("rule.cairn", r.refused, m, d, opts);
    bool all = !d.empty();
    for (const auto &diag : d.list()) all = all && diag.rule == r.code;
    Module m2;
    Diags d2;
    if (all && lowerCairn("rule.cairn", r.accepted, m2, d2, opts))
      std::cout << "note: " << r.code << " is now enforced by the checker; set its row's enforced to true\n";
  }
}

TEST(Rules, FindAndNearest) {
  ASSERT_NE(rules::find("E-MOVED"), nullptr);
  EXPECT_EQ(rules::find("e-moved"), rules::find("E-MOVED"));
  EXPECT_EQ(rules::find("E-NOPE"), nullptr);
  auto near = rules::nearest("E-MOVD");
  ASSERT_FALSE(near.empty());
  EXPECT_EQ(near[0], "E-MOVED");
  near = rules::nearest("layout");
  ASSERT_FALSE(near.empty());
  EXPECT_EQ(near[0], "E-LAYOUT");
  EXPECT_EQ(rules::nearest("E-X", 2).size(), 2u);
}

}  // namespace
}  // namespace cairn
