// Diagnostics against expectations: every error of the run must be expected
// (`error[CODE]: TEXT` on its line), every error and note expectation met,
// and a `spec:` sentence held by some error. Errors are matched to
// expectations one to one, so the order of expectations on a line does not
// matter. An error or note in another file (a std module a CAIRN program
// imports) is never expected.
#include <algorithm>

#include "tests/filetest/filetest.hpp"

namespace cairn::filetest {

bool contains(std::string_view msg, std::string_view text) {
  static constexpr std::string_view kGap = " ... ";
  size_t at = 0;
  for (;;) {
    size_t gap = text.find(kGap);
    std::string_view part = text.substr(0, gap);
    size_t found = msg.find(part, at);
    if (found == std::string_view::npos) return false;
    if (gap == std::string_view::npos) return true;
    at = found + part.size();
    text.remove_prefix(gap + kGap.size());
  }
}

namespace {

// Whether a diagnostic's file is the test file (the front end names it or leaves it empty).
bool here(const TestFile &tf, const std::string &file) { return file.empty() || file == tf.path; }

bool errorMatches(const TestFile &tf, const Expect &e, const Diagnostic &d) {
  return here(tf, d.file) && d.loc.line == e.line && contains(d.message, e.text) && (e.rule.empty() || e.rule == d.rule);
}

std::string diagText(const Diagnostic &d) { return quoted(d.message) + " [" + d.rule + "]"; }

// Assigns expectations to diagnostics one to one (augmenting paths).
void match(const TestFile &tf, const std::vector<const Expect *> &errs, const std::vector<Diagnostic> &list, std::vector<int> &diagOf,
           std::vector<int> &expOf) {
  diagOf.assign(errs.size(), -1);
  expOf.assign(list.size(), -1);
  for (size_t e = 0; e < errs.size(); ++e) {
    std::vector<char> seen(list.size(), 0);
    auto tryAssign = [&](auto &self, size_t ei) -> bool {
      for (size_t d = 0; d < list.size(); ++d) {
        if (seen[d] || !errorMatches(tf, *errs[ei], list[d])) continue;
        seen[d] = 1;
        if (expOf[d] < 0 || self(self, static_cast<size_t>(expOf[d]))) {
          expOf[d] = static_cast<int>(ei);
          diagOf[ei] = static_cast<int>(d);
          return true;
        }
      }
      return false;
    };
    tryAssign(tryAssign, e);
  }
}

void reportMissed(const TestFile &tf, const Expect &x, const std::vector<Diagnostic> &list, Reporter &rep) {
  std::string what = x.rule.empty() ? "" : "[" + x.rule + "] ";
  std::ostream &os = rep.at(x.line);
  os << "expected error " << what << (x.text.empty() ? "" : "containing " + quoted(x.text) + " ") << "but got ";
  std::vector<std::string> onLine;
  std::vector<uint32_t> elsewhere;
  for (const auto &d : list) {
    if (here(tf, d.file) && d.loc.line == x.line) onLine.push_back(diagText(d));
    else if (here(tf, d.file)) elsewhere.push_back(d.loc.line);
  }
  if (onLine.empty()) {
    os << "no error on this line";
    if (list.empty()) os << " (the program is valid)";
    else if (!elsewhere.empty()) {
      os << " (errors are on line(s)";
      for (uint32_t l : elsewhere) os << ' ' << l;
      os << ')';
    }
  }
  for (size_t k = 0; k < onLine.size(); ++k) os << (k ? ", " : "") << onLine[k];
  os << '\n';
}

void checkNotes(const TestFile &tf, const std::vector<Diagnostic> &list, Reporter &rep) {
  for (const auto &e : tf.expects) {
    if (e.kind != Kind::Note) continue;
    bool found = false;
    std::vector<std::string> onLine;
    for (const auto &d : list)
      for (const auto &n : d.notes) {
        if (!here(tf, n.file) || n.loc.line != e.line) continue;
        onLine.push_back(quoted(n.message));
        if (contains(n.message, e.text)) found = true;
      }
    if (found) continue;
    std::ostream &os = rep.at(e.line);
    os << "expected a note containing " << quoted(e.text) << " but got ";
    if (onLine.empty()) os << "no note on this line";
    for (size_t k = 0; k < onLine.size(); ++k) os << (k ? ", " : "") << onLine[k];
    os << '\n';
  }
}

std::string digitsAsN(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] >= '0' && s[i] <= '9') {
      out += 'N';
      while (i + 1 < s.size() && s[i + 1] >= '0' && s[i + 1] <= '9') ++i;
    } else {
      out += s[i];
    }
  }
  return out;
}

}  // namespace

void checkDiagnostics(const TestFile &tf, const Diags &diags, Reporter &rep) {
  const auto &list = diags.list();
  std::vector<const Expect *> errs;
  for (const auto &e : tf.expects)
    if (e.kind == Kind::Error) errs.push_back(&e);
  std::vector<int> diagOf, expOf;
  match(tf, errs, list, diagOf, expOf);
  std::vector<uint32_t> shownLines;  // lines whose errors a failed expectation printed
  for (size_t e = 0; e < errs.size(); ++e) {
    if (diagOf[e] >= 0) continue;
    shownLines.push_back(errs[e]->line);
    reportMissed(tf, *errs[e], list, rep);
  }
  for (size_t d = 0; d < list.size(); ++d) {
    const Diagnostic &x = list[d];
    if (expOf[d] >= 0) continue;
    bool local = here(tf, x.file);
    if (local && std::find(shownLines.begin(), shownLines.end(), x.loc.line) != shownLines.end()) continue;
    if (!local) rep.file() << x.file << ':' << x.loc.line << ':' << x.loc.col << ": ";
    else rep.at(x.loc.line, x.loc.col);
    rep.out() << "unexpected error: " << diagText(x) << '\n';
    for (const auto &n : x.notes)
      rep.out() << (here(tf, n.file) ? tf.path : n.file) << ':' << n.loc.line << ':' << n.loc.col
                << ": note: " << n.message << '\n';
  }
  checkNotes(tf, list, rep);
  if (diags.truncated()) rep.file() << "more than " << Diags::kLimit << " errors; the rest were not checked\n";
}

void checkSpec(const TestFile &tf, const Diags &diags, Reporter &rep) {
  if (tf.spec.empty() || tf.spec.front() == '(') return;  // a parenthesis: a comment, not the page's sentence
  std::string want = digitsAsN(tf.spec);
  std::vector<std::string> got;
  for (const auto &d : diags.list()) {
    if (digitsAsN(d.message).find(want) != std::string::npos) return;
    got.push_back(diagText(d));
  }
  std::ostream &os = rep.at(tf.specLine);
  os << "expected an error holding the page's sentence (numbers aside) but got ";
  if (got.empty()) os << "no error";
  for (size_t k = 0; k < got.size(); ++k) os << (k ? ", " : "") << got[k];
  os << '\n';
}

}  // namespace cairn::filetest
