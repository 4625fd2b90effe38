// cairn_filetest: the golden-file test runner.
//
// Each file is a .uir program with its expectations written inline, so the
// file stays valid .uir text (every expectation is a comment):
//
//   # test: oracle            first line: only validate (or `# test: run`)
//   %x = add %a %b            # error: TEXT            an error on THIS line whose
//                             #   message contains TEXT (`error[RULE]: TEXT` also
//                             #   checks the rule); `# note: TEXT` a note on this
//                             #   line; `# trap: TEXT` running traps on this line
//                             #   (`# trap K=V,...: TEXT` with those slot inputs)
//   # run: slot 0 = [1 2 3]   full line: one line of the expected output of the
//   # run 0=5,6;1=7: slot ..  run with the file's own data, or with slot inputs
//
// Several expectations on one line are separated by another `#`; in a TEXT,
// ` ... ` stands for any characters (`range [0, 9] ... 4 elements`). Every
// diagnostic must be expected and every expectation met. Each run is done
// by every engine (the interpreter with each schedule priority, and the C
// back end: the program emitted as C, compiled once per file with CC/CFLAGS
// and run; skipped with a note when no C compiler is found), and all must
// agree. The file's own data is always run.
// `--bless`
// rewrites the `# run...:` lines with the actual output and prints a diff; it
// never touches error, note or trap expectations. Exit 0 when every file
// passes, 1 when one fails, 2 on a usage error.
#include <algorithm>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "exec/c_toolchain.hpp"
#include "exec/interp.hpp"
#include "ir/parser.hpp"
#include "oracle/oracle.hpp"
#include "tests/filetest/c_engine.hpp"

using namespace cairn;

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

std::string quoted(std::string_view s) { return "\"" + std::string(s) + "\""; }

enum class Kind { Error, Note, Trap };

struct Expect {
  Kind kind;
  uint32_t line;
  std::string rule;  // Error only; empty: any rule
  std::string text;
  std::string inputs;  // Trap only: the run it belongs to
};

// One run of the program: the slot inputs and what it should print.
struct RunGroup {
  std::string inputs;  // canonical text, "" for the file's own data
  std::map<int64_t, std::vector<Literal>> slotData;
  std::vector<std::string> lines;  // expected output lines
  std::vector<uint32_t> srcLines;  // 0-based file lines of its `# run` comments
  std::optional<Expect> trap;
};

struct TestFile {
  std::string path;
  std::vector<std::string> lines;  // the file, split (without newlines)
  bool trailingNewline = true;
  enum class Mode { Oracle, Run } mode = Mode::Oracle;
  std::vector<Expect> expects;
  std::vector<RunGroup> groups;
};

// Counts failures and prints them located; a quiet one only counts.
class Reporter {
 public:
  explicit Reporter(std::string path, bool quiet = false) : path_(std::move(path)), quiet_(quiet) {}
  std::ostream &at(uint32_t line, uint32_t col = 0) {
    ++failures_;
    out() << path_ << ':' << line;
    if (col) out() << ':' << col;
    return out() << ": ";
  }
  std::ostream &file() {
    ++failures_;
    return out() << path_ << ": ";
  }
  std::ostream &out() {
    if (!quiet_) return std::cout;
    sink_.str("");
    return sink_;
  }
  int failures() const { return failures_; }

 private:
  std::string path_;
  bool quiet_;
  std::ostringstream sink_;
  int failures_ = 0;
};

// `0=5,6,7;1=3` -> slot data; the canonical text drops blanks.
bool parseInputs(std::string_view s, RunGroup &g, std::string &why) {
  std::string canon;
  size_t pos = 0;
  while (pos <= s.size()) {
    size_t semi = s.find(';', pos);
    if (semi == std::string_view::npos) semi = s.size();
    std::string_view part = trim(s.substr(pos, semi - pos));
    pos = semi + 1;
    if (part.empty()) {
      if (semi == s.size()) break;
      continue;
    }
    size_t eq = part.find('=');
    if (eq == std::string_view::npos) return why = "expected `K=V,V,...` in the run inputs", false;
    std::string_view k = trim(part.substr(0, eq));
    int64_t slot = 0;
    if (k.empty() || k.size() > 9 || k.find_first_not_of("0123456789") != std::string_view::npos)
      return why = "expected a slot number before `=`, found `" + std::string(k) + "`", false;
    slot = std::stoll(std::string(k));
    if (g.slotData.count(slot)) return why = "slot " + std::string(k) + " is given twice", false;
    std::vector<Literal> vals;
    std::string vcanon;
    std::string_view vs = part.substr(eq + 1);
    size_t vp = 0;
    while (vp <= vs.size()) {
      size_t c = vs.find(',', vp);
      if (c == std::string_view::npos) c = vs.size();
      std::string_view v = trim(vs.substr(vp, c - vp));
      vp = c + 1;
      if (v.empty()) {
        if (c == vs.size() && vals.empty()) break;  // `0=`: an empty buffer
        return why = "empty value in the run inputs", false;
      }
      auto lit = parseLiteral(v);
      if (!lit) return why = "bad literal `" + std::string(v) + "` in the run inputs", false;
      vals.push_back(*lit);
      vcanon += (vcanon.empty() ? "" : ",") + std::string(v);
      if (c == vs.size()) break;
    }
    g.slotData[slot] = std::move(vals);
    canon += (canon.empty() ? "" : ";") + std::to_string(slot) + "=" + vcanon;
  }
  g.inputs = canon;
  return true;
}

std::string runName(const RunGroup &g) { return g.inputs.empty() ? "the run" : "the run with " + g.inputs; }

RunGroup &groupFor(TestFile &tf, const RunGroup &proto) {
  for (auto &g : tf.groups)
    if (g.inputs == proto.inputs) return g;
  tf.groups.push_back(proto);
  return tf.groups.back();
}

// One expectation segment of a trailing comment: `error: T`, `error[R]: T`,
// `note: T`, `trap: T`, `trap INPUTS: T`. Returns false when the segment is
// an ordinary comment.
bool parseExpect(std::string_view seg, uint32_t line, TestFile &tf, Reporter &rep) {
  seg = trim(seg);
  auto starts = [&](std::string_view w) {
    return seg.size() > w.size() && seg.substr(0, w.size()) == w &&
           (seg[w.size()] == ':' || seg[w.size()] == '[' || seg[w.size()] == ' ');
  };
  Kind kind;
  if (starts("error")) kind = Kind::Error;
  else if (starts("note")) kind = Kind::Note;
  else if (starts("trap")) kind = Kind::Trap;
  else return false;
  size_t colon = seg.find(':');
  if (colon == std::string_view::npos) return false;
  std::string_view head = trim(seg.substr(0, colon));
  Expect e{kind, line, "", std::string(trim(seg.substr(colon + 1))), ""};
  std::string_view word = kind == Kind::Error ? "error" : kind == Kind::Note ? "note" : "trap";
  std::string_view extra = trim(head.substr(word.size()));
  if (kind == Kind::Error && !extra.empty()) {
    if (extra.front() != '[' || extra.back() != ']') return false;
    e.rule = std::string(extra.substr(1, extra.size() - 2));
  } else if (kind == Kind::Trap) {
    if (!extra.empty() && !(extra.front() >= '0' && extra.front() <= '9')) return false;
    RunGroup proto;
    std::string why;
    if (!parseInputs(extra, proto, why)) {
      rep.at(line) << why << '\n';
      return true;
    }
    e.inputs = proto.inputs;
    RunGroup &g = groupFor(tf, proto);
    if (g.trap) rep.at(line) << "a second trap expectation for the same run\n";
    g.trap = e;
  } else if (!extra.empty()) {
    return false;
  }
  if (e.text.empty() && e.rule.empty()) rep.at(line) << "empty expectation text\n";
  tf.expects.push_back(e);
  return true;
}

bool readTestFile(const std::string &path, TestFile &tf, Reporter &rep) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::cout << path << ": cannot read the file\n";
    return false;
  }
  std::stringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str();
  tf.path = path;
  tf.trailingNewline = text.empty() || text.back() == '\n';
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) nl = text.size();
    tf.lines.push_back(text.substr(pos, nl - pos));
    pos = nl + 1;
  }
  std::string_view first = tf.lines.empty() ? std::string_view{} : trim(tf.lines[0]);
  if (first == "# test: oracle") tf.mode = TestFile::Mode::Oracle;
  else if (first == "# test: run") tf.mode = TestFile::Mode::Run;
  else rep.at(1) << "the first line must be `# test: oracle` or `# test: run`\n";

  for (uint32_t i = 0; i < tf.lines.size(); ++i) {
    std::string_view ln = trim(tf.lines[i]);
    uint32_t line = i + 1;
    if (ln.empty()) continue;
    if (ln.front() == '#') {
      std::string_view body = trim(ln.substr(1));
      if (body.substr(0, 3) == "run" && body.size() > 3 && (body[3] == ':' || body[3] == ' ')) {
        size_t colon = body.find(':');
        if (colon == std::string_view::npos) {
          rep.at(line) << "expected `# run: OUTPUT` or `# run K=V,...: OUTPUT`\n";
          continue;
        }
        RunGroup proto;
        std::string why;
        if (!parseInputs(body.substr(3, colon - 3), proto, why)) {
          rep.at(line) << why << '\n';
          continue;
        }
        RunGroup &g = groupFor(tf, proto);
        std::string_view out = trim(body.substr(colon + 1));
        if (!out.empty()) g.lines.emplace_back(out);
        g.srcLines.push_back(i);
      } else if (body.substr(0, 6) == "error:" || body.substr(0, 6) == "error[" || body.substr(0, 5) == "trap:" ||
                 body.substr(0, 5) == "note:") {
        rep.at(line) << "an error, note or trap expectation must trail the node line it is about\n";
      }
      continue;
    }
    size_t hash = ln.find('#');
    if (hash == std::string_view::npos) continue;
    std::string_view rest = ln.substr(hash + 1);
    for (;;) {
      size_t next = rest.find('#');
      parseExpect(rest.substr(0, next), line, tf, rep);
      if (next == std::string_view::npos) break;
      rest = rest.substr(next + 1);
    }
  }
  for (const auto &g : tf.groups)
    if (g.trap && !g.srcLines.empty())
      rep.at(g.srcLines.front() + 1) << runName(g) << " has both a trap and `# run` output lines\n";
  if (tf.mode == TestFile::Mode::Oracle && !tf.groups.empty())
    rep.file() << "run or trap expectations in a `# test: oracle` file (make it `# test: run`)\n";
  // The file's own data is always run, first (bless adds its lines if missing).
  if (tf.mode == TestFile::Mode::Run) {
    RunGroup def;
    groupFor(tf, def);
    std::stable_partition(tf.groups.begin(), tf.groups.end(), [](const RunGroup &g) { return g.inputs.empty(); });
  }
  return true;
}

// ---- diagnostics against expectations ----

// Whether `msg` contains `text`; ` ... ` in `text` skips any characters, so
// `range [0, 9] ... 4 elements` checks two parts of one message, in order.
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

bool errorMatches(const Expect &e, const Diagnostic &d) {
  return d.loc.line == e.line && contains(d.message, e.text) && (e.rule.empty() || e.rule == d.rule);
}

std::string diagText(const Diagnostic &d) {
  return quoted(d.message) + " [" + d.rule + "]";
}

void checkDiagnostics(const TestFile &tf, const Diags &diags, Reporter &rep) {
  const auto &list = diags.list();
  std::vector<const Expect *> errs;
  for (const auto &e : tf.expects)
    if (e.kind == Kind::Error) errs.push_back(&e);
  // Match expectations to diagnostics one to one (augmenting paths), so the
  // order of expectations on a line does not matter.
  std::vector<int> diagOf(errs.size(), -1), expOf(list.size(), -1);
  for (size_t e = 0; e < errs.size(); ++e) {
    std::vector<char> seen(list.size(), 0);
    auto tryAssign = [&](auto &self, size_t ei) -> bool {
      for (size_t d = 0; d < list.size(); ++d) {
        if (seen[d] || !errorMatches(*errs[ei], list[d])) continue;
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
  std::vector<uint32_t> shownLines;  // lines whose errors a failed expectation printed
  for (size_t e = 0; e < errs.size(); ++e) {
    if (diagOf[e] >= 0) continue;
    const Expect &x = *errs[e];
    shownLines.push_back(x.line);
    std::string what = x.rule.empty() ? "" : "[" + x.rule + "] ";
    std::ostream &os = rep.at(x.line);
    os << "expected error " << what << "containing " << quoted(x.text) << " but got ";
    std::vector<std::string> here;
    for (const auto &d : list)
      if (d.loc.line == x.line) here.push_back(diagText(d));
    if (here.empty()) os << "no error on this line" << (list.empty() ? " (the program is valid)" : " (errors are on line(s)");
    for (const auto &d : list)
      if (here.empty()) os << ' ' << d.loc.line;
    if (here.empty() && !list.empty()) os << ')';
    for (size_t k = 0; k < here.size(); ++k) os << (k ? ", " : "") << here[k];
    os << '\n';
  }
  for (size_t d = 0; d < list.size(); ++d) {
    const Diagnostic &x = list[d];
    if (expOf[d] >= 0 || std::find(shownLines.begin(), shownLines.end(), x.loc.line) != shownLines.end()) continue;
    rep.at(x.loc.line, x.loc.col) << "unexpected error: " << diagText(x) << '\n';
    for (const auto &n : x.notes)
      rep.out() << tf.path << ':' << n.loc.line << ':' << n.loc.col << ": note: " << n.message << '\n';
  }
  for (const auto &e : tf.expects) {
    if (e.kind != Kind::Note) continue;
    bool found = false;
    std::vector<std::string> here;
    for (const auto &d : list)
      for (const auto &n : d.notes) {
        if (n.loc.line != e.line) continue;
        here.push_back(quoted(n.message));
        if (contains(n.message, e.text)) found = true;
      }
    if (found) continue;
    std::ostream &os = rep.at(e.line);
    os << "expected a note containing " << quoted(e.text) << " but got ";
    if (here.empty()) os << "no note on this line";
    for (size_t k = 0; k < here.size(); ++k) os << (k ? ", " : "") << here[k];
    os << '\n';
  }
  if (diags.truncated()) rep.file() << "more than " << Diags::kLimit << " errors; the rest were not checked\n";
}

// ---- running ----

struct Engine {
  std::string name;
  SchedulePriority prio;
  bool c = false;  // the C back end (exec/emit_c.hpp) instead of the interpreter
};
const std::vector<Engine> &engines() {
  static const std::vector<Engine> e = [] {
    std::vector<Engine> v = {{"interp/source-order", SchedulePriority::SourceOrder},
                             {"interp/latest", SchedulePriority::Latest}};
    CCompiler cc = compilerFromEnv();
    if (compilerAvailable(cc)) v.push_back({"c", SchedulePriority::SourceOrder, true});
    else std::cout << "note: no C compiler found (`" << cc.cc[0] << "`; set CC): the C back end is not checked\n";
    return v;
  }();
  return e;
}

struct Outcome {
  bool trapped = false, usage = false;
  uint32_t line = 0;
  std::string message;
  std::vector<std::string> lines;
  bool operator==(const Outcome &o) const {
    return trapped == o.trapped && usage == o.usage && line == o.line && message == o.message && lines == o.lines;
  }
};

Outcome fromC(const filetest::COutcome &c) { return Outcome{c.trapped, c.usage, c.line, c.message, c.lines}; }

Outcome runOnce(const Graph &g, const Facts &facts, const RunGroup &grp, const Engine &eng, filetest::CEngine &ce) {
  if (eng.c) return fromC(ce.run(g, facts, grp.slotData));
  RunOptions opts;
  opts.priority = eng.prio;
  opts.slotData = grp.slotData;
  opts.limits.maxSeconds = 30;
  RunResult r = run(g, facts, opts);
  Outcome o;
  o.trapped = r.status == RunResult::Status::Trap;
  o.usage = r.status == RunResult::Status::UsageError;
  o.line = r.loc.line;
  o.message = r.message;
  if (o.trapped || o.usage) return o;  // what memory holds at a trap may depend on the schedule
  for (const auto &s : r.slots) {
    std::string ln = "slot " + std::to_string(s.slot) + " = [";
    for (size_t k = 0; k < s.values.size(); ++k) ln += (k ? " " : "") + bitsText(s.values[k], s.type);
    ln += "]";
    o.lines.push_back(ln);
  }
  return o;
}

std::string describe(const Outcome &o) {
  if (o.usage) return "a usage error: " + quoted(o.message);
  if (o.trapped) return "a trap on line " + std::to_string(o.line) + ": " + quoted(o.message);
  std::string s;
  for (const auto &l : o.lines) s += "\n    " + l;
  return s.empty() ? "no output (no slots)" : "output" + s;
}

uint32_t groupLine(const RunGroup &g) {
  if (g.trap) return g.trap->line;
  return g.srcLines.empty() ? 1 : g.srcLines.front() + 1;
}

// Runs every group with every engine; fills `actual` (for --bless) where all
// engines agree.
void checkRuns(const TestFile &tf, const Graph &g, const Facts &facts, Reporter &rep,
               std::vector<std::optional<Outcome>> &actual) {
  actual.assign(tf.groups.size(), std::nullopt);
  filetest::CEngine ce(tf.path);  // compiled once per file, on its first run
  for (size_t gi = 0; gi < tf.groups.size(); ++gi) {
    const RunGroup &grp = tf.groups[gi];
    std::vector<Outcome> outs;
    for (const auto &eng : engines()) outs.push_back(runOnce(g, facts, grp, eng, ce));
    bool agree = true;
    for (size_t k = 1; k < outs.size(); ++k)
      if (!(outs[k] == outs[0])) agree = false;
    if (!agree) {
      std::ostream &os = rep.at(groupLine(grp));
      os << "the engines disagree on " << runName(grp) << ":";
      for (size_t k = 0; k < outs.size(); ++k) os << "\n  " << engines()[k].name << ": " << describe(outs[k]);
      os << '\n';
      continue;
    }
    const Outcome &o = outs[0];
    actual[gi] = o;
    if (grp.trap) {
      if (!o.trapped || o.line != grp.trap->line || !contains(o.message, grp.trap->text))
        rep.at(grp.trap->line) << "expected " << runName(grp) << " to trap here with a message containing "
                               << quoted(grp.trap->text) << " but got " << describe(o) << '\n';
    } else if (o.trapped || o.usage || o.lines != grp.lines) {
      std::ostream &os = rep.at(groupLine(grp));
      os << runName(grp) << ": expected ";
      if (grp.srcLines.empty()) os << "no output (the file has no `# run:` lines for it; --bless adds them)";
      else if (grp.lines.empty()) os << "no output (no slots)";
      else os << "output";
      for (const auto &l : grp.lines) os << "\n    " << l;
      os << "\n  but got " << describe(o) << '\n';
    }
  }
}

// ---- bless ----

// The file with its `# run...:` lines replaced by the actual outputs; runs
// that trapped, failed or disagree keep their lines (the check reports them).
std::vector<std::string> blessed(const TestFile &tf, const std::vector<std::optional<Outcome>> &actual) {
  std::vector<std::string> out = tf.lines;
  std::map<uint32_t, std::vector<std::string>> replace;  // file line -> new lines (empty: drop)
  std::vector<std::string> append;  // lines of groups that had none, before the first `# run`
  for (size_t gi = 0; gi < tf.groups.size(); ++gi) {
    const RunGroup &grp = tf.groups[gi];
    if (grp.trap) continue;
    if (!actual[gi] || actual[gi]->trapped || actual[gi]->usage) continue;
    std::string prefix = grp.inputs.empty() ? "# run: " : "# run " + grp.inputs + ": ";
    std::vector<std::string> lines;
    for (const auto &l : actual[gi]->lines) lines.push_back(prefix + l);
    if (lines.empty()) lines.push_back(std::string(trim(prefix)));  // `# run:` alone: no slots
    if (grp.srcLines.empty()) {
      append.insert(append.end(), lines.begin(), lines.end());
      continue;
    }
    for (uint32_t s : grp.srcLines) replace[s] = {};
    replace[grp.srcLines.front()] = lines;
  }
  uint32_t firstRun = static_cast<uint32_t>(out.size());
  for (const auto &grp : tf.groups)
    for (uint32_t s : grp.srcLines) firstRun = std::min(firstRun, s);
  std::vector<std::string> res;
  for (uint32_t i = 0; i < out.size(); ++i) {
    if (i == firstRun) res.insert(res.end(), append.begin(), append.end());
    auto it = replace.find(i);
    if (it == replace.end()) res.push_back(out[i]);
    else res.insert(res.end(), it->second.begin(), it->second.end());
  }
  if (firstRun == out.size()) res.insert(res.end(), append.begin(), append.end());
  return res;
}

// A small line diff (LCS), printed as `-`/`+` lines with hunk headers.
void printDiff(const std::string &path, const std::vector<std::string> &a, const std::vector<std::string> &b) {
  std::cout << "--- " << path << "\n+++ " << path << " (blessed)\n";
  size_t n = a.size(), m = b.size();
  if (n * m > 16'000'000) {
    std::cout << "(file too large to diff; rewritten)\n";
    return;
  }
  std::vector<std::vector<uint32_t>> L(n + 1, std::vector<uint32_t>(m + 1, 0));
  for (size_t i = n; i-- > 0;)
    for (size_t j = m; j-- > 0;) L[i][j] = a[i] == b[j] ? L[i + 1][j + 1] + 1 : std::max(L[i + 1][j], L[i][j + 1]);
  size_t i = 0, j = 0;
  bool inHunk = false;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] == b[j]) {
      inHunk = false;
      ++i, ++j;
      continue;
    }
    if (!inHunk) std::cout << "@@ -" << i + 1 << " +" << j + 1 << " @@\n";
    inHunk = true;
    if (i < n && (j == m || L[i + 1][j] >= L[i][j + 1])) std::cout << "-" << a[i++] << '\n';
    else std::cout << "+" << b[j++] << '\n';
  }
}

bool writeLines(const TestFile &tf, const std::vector<std::string> &lines) {
  std::ofstream os(tf.path, std::ios::binary | std::ios::trunc);
  for (size_t i = 0; i < lines.size(); ++i) {
    os << lines[i];
    if (i + 1 < lines.size() || tf.trailingNewline) os << '\n';
  }
  return static_cast<bool>(os);
}

// ---- one file ----

bool testFile(const std::string &path, bool bless) {
  Reporter rep(path, bless);  // with --bless, a quiet first pass; the check after it reports
  TestFile tf;
  if (!readTestFile(path, tf, rep)) return false;
  std::string text;
  for (const auto &l : tf.lines) text += l + "\n";
  Graph g;
  Diags diags;
  Facts facts;
  bool ok = parseUir(text, g, diags);
  if (ok) ok = validate(g, facts, diags);
  checkDiagnostics(tf, diags, rep);
  bool runs = tf.mode == TestFile::Mode::Run;
  if (runs && !ok) rep.file() << "a `# test: run` file must be a valid program; it was not run\n";
  std::vector<std::optional<Outcome>> actual;
  if (runs && ok && (bless || rep.failures() == 0)) checkRuns(tf, g, facts, rep, actual);
  if (!bless) return rep.failures() == 0;
  if (runs && ok) {
    auto res = blessed(tf, actual);
    if (res != tf.lines) {
      printDiff(path, tf.lines, res);
      if (!writeLines(tf, res)) {
        std::cout << path << ": cannot write the blessed file\n";
        return false;
      }
      std::cout << path << ": blessed\n";
    }
  }
  // Check the file as it now is: what bless could not fix still fails.
  return testFile(path, false);
}

}  // namespace

int main(int argc, char **argv) {
  bool bless = false;
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--bless") bless = true;
    else if (a == "--help" || a == "-h") {
      std::cout << "usage: cairn_filetest [--bless] FILE...\n"
                   "Runs .uir golden files with inline expectations (see tests/filetest/filetest.cpp).\n";
      return 0;
    } else if (!a.empty() && a[0] == '-') {
      std::cerr << "cairn_filetest: unknown option " << a << "\n";
      return 2;
    } else {
      files.push_back(a);
    }
  }
  if (files.empty()) {
    std::cerr << "usage: cairn_filetest [--bless] FILE...\n";
    return 2;
  }
  int failed = 0;
  for (const auto &f : files) {
    bool pass = false;
    try {
      pass = testFile(f, bless);
    } catch (const std::exception &e) {
      std::cout << f << ": internal error: " << e.what() << '\n';
    }
    if (!pass) ++failed;
  }
  if (files.size() > 1) std::cout << files.size() - failed << " passed, " << failed << " failed\n";
  return failed ? 1 : 0;
}
