// Reading a test file: its language (a flat .uir graph, a .uir module or a
// .cairn program), its header directives (`test:`, `xfail:`, `exit:`,
// `stdout:`, `spec:`, `max-elements:`), the flat `run` output lines, and
// the expectations that trail the line they are about (`error[CODE]: TEXT`,
// `note: TEXT`, `trap: TEXT`). The comment leader is `#` in .uir and `//` in
// .cairn; the grammar is tests/golden/README.md's.
#include <algorithm>
#include <fstream>

#include "ir/module.hpp"
#include "tests/filetest/filetest.hpp"

namespace cairn::filetest {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

std::string quoted(std::string_view s) { return "\"" + std::string(s) + "\""; }

namespace {

bool startsWith(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

std::string runName(const RunGroup &g) { return g.inputs.empty() ? "the run" : "the run with " + g.inputs; }

RunGroup &groupFor(TestFile &tf, const RunGroup &proto) {
  for (auto &g : tf.groups)
    if (g.inputs == proto.inputs) return g;
  tf.groups.push_back(proto);
  return tf.groups.back();
}

// The values of one `K=V,V,...` part, canonical text in `canon`.
bool parseValues(std::string_view vs, std::vector<Literal> &vals, std::string &canon, std::string &why) {
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
    canon += (canon.empty() ? "" : ",") + std::string(v);
    if (c == vs.size()) break;
  }
  return true;
}

// One trailing expectation: `error: T`, `error[R]: T`, `error[R]`, `note: T`,
// `trap: T`, `trap INPUTS: T` (flat). False when the segment is an ordinary comment.
bool parseExpect(std::string_view seg, uint32_t line, TestFile &tf, Reporter &rep) {
  seg = trim(seg);
  auto starts = [&](std::string_view w) {
    return seg.size() >= w.size() && startsWith(seg, w) &&
           (seg.size() == w.size() ? w == "trap" : seg[w.size()] == ':' || seg[w.size()] == '[' || seg[w.size()] == ' ');
  };
  Kind kind;
  if (starts("error")) kind = Kind::Error;
  else if (starts("note")) kind = Kind::Note;
  else if (starts("trap")) kind = Kind::Trap;
  else return false;
  size_t colon = seg.find(':');
  bool bareRule = colon == std::string_view::npos && kind == Kind::Error && seg.back() == ']';
  if (colon == std::string_view::npos && !bareRule) return false;
  std::string_view head = trim(bareRule ? seg : seg.substr(0, colon));
  Expect e{kind, line, "", bareRule ? "" : std::string(trim(seg.substr(colon + 1))), ""};
  std::string_view word = kind == Kind::Error ? "error" : kind == Kind::Note ? "note" : "trap";
  std::string_view extra = trim(head.substr(word.size()));
  if (kind == Kind::Error && !extra.empty()) {
    if (extra.front() != '[' || extra.back() != ']') return false;
    e.rule = std::string(extra.substr(1, extra.size() - 2));
  } else if (kind == Kind::Trap) {
    if (!extra.empty() && !(extra.front() >= '0' && extra.front() <= '9')) return false;
    if (tf.lang != Lang::Flat) {
      if (!extra.empty()) rep.at(line) << "trap inputs are for flat graphs only\n";
      tf.expects.push_back(e);
      return true;
    }
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
  if (e.text.empty() && (kind == Kind::Note || (kind == Kind::Error && e.rule.empty())))
    rep.at(line) << "empty expectation text\n";
  tf.expects.push_back(e);
  return true;
}

// The trailing segments of a line (after `from`), split at each leader.
void parseTrailing(std::string_view rest, uint32_t line, TestFile &tf, Reporter &rep) {
  for (;;) {
    size_t next = rest.find(tf.leader);
    parseExpect(rest.substr(0, next), line, tf, rep);
    if (next == std::string_view::npos) break;
    rest = rest.substr(next + tf.leader.size());
  }
}

bool parseNumber(std::string_view s, uint64_t max, uint64_t &v) {
  if (s.empty() || s.size() > 19 || s.find_first_not_of("0123456789") != std::string_view::npos) return false;
  v = std::stoull(std::string(s));
  return v <= max;
}

// A flat `run INPUTS: OUTPUT` line.
void parseRunLine(std::string_view body, uint32_t i, TestFile &tf, Reporter &rep) {
  uint32_t line = i + 1;
  size_t colon = body.find(':');
  if (colon == std::string_view::npos) {
    rep.at(line) << "expected `run: OUTPUT` or `run K=V,...: OUTPUT`\n";
    return;
  }
  if (tf.lang != Lang::Flat) {
    rep.at(line) << "`run` output lines are for flat graphs (use `exit:` and `stdout:`)\n";
    return;
  }
  RunGroup proto;
  std::string why;
  if (!parseInputs(body.substr(3, colon - 3), proto, why)) {
    rep.at(line) << why << '\n';
    return;
  }
  RunGroup &g = groupFor(tf, proto);
  std::string_view out = trim(body.substr(colon + 1));
  if (!out.empty()) g.lines.emplace_back(out);
  g.srcLines.push_back(i);
}

// A header directive; false when `body` is none (free text).
bool parseHeader(std::string_view body, std::string_view raw, uint32_t i, TestFile &tf, Reporter &rep, bool &sawTest) {
  uint32_t line = i + 1;
  auto value = [&](std::string_view key) { return trim(body.substr(key.size())); };
  uint64_t n = 0;
  if (startsWith(body, "test:")) {
    std::string_view k = value("test:");
    if (k == "oracle" || k == "check") tf.mode = TestFile::Mode::Check;
    else if (k == "run") tf.mode = TestFile::Mode::Run;
    else rep.at(line) << "the test kind must be `oracle`, `check` or `run`, not " << quoted(k) << '\n';
    sawTest = true;
  } else if (startsWith(body, "xfail:")) {
    tf.xfail = std::string(value("xfail:"));
    tf.xfailLine = line;
    if (tf.xfail.empty()) rep.at(line) << "an `xfail:` must be given a reason\n";
  } else if (startsWith(body, "exit:")) {
    if (!parseNumber(value("exit:"), 255, n)) rep.at(line) << "`exit:` must be a number from 0 to 255\n";
    tf.exitStatus = static_cast<int>(n);
    tf.exitLine = line;
  } else if (startsWith(body, "stdout:")) {
    // The text as written: one blank after the colon dropped, no trimming.
    std::string_view t = raw.substr(raw.find("stdout:") + 7);
    if (!t.empty() && t.back() == '\r') t.remove_suffix(1);
    if (!t.empty() && t.front() == ' ') t.remove_prefix(1);
    tf.haveStdout = true;
    tf.stdoutLines.emplace_back(t);
    tf.stdoutSrc.push_back(i);
  } else if (startsWith(body, "spec:")) {
    tf.spec = std::string(value("spec:"));
    tf.specLine = line;
  } else if (startsWith(body, "max-elements:")) {
    if (!parseNumber(value("max-elements:"), uint64_t{1} << 40, n) || n == 0)
      rep.at(line) << "`max-elements:` must be a positive number\n";
    tf.maxElements = n;
  } else {
    return false;
  }
  if ((startsWith(body, "exit:") || startsWith(body, "stdout:") || startsWith(body, "max-elements:")) &&
      tf.lang == Lang::Flat)
    rep.at(line) << "`exit:`, `stdout:` and `max-elements:` are for modules and CAIRN programs\n";
  tf.lastHeaderLine = i;
  return true;
}

// A line that is only a comment: a header directive, a flat `run` line or
// free text; the segments after a second leader are trailing expectations.
void parseCommentLine(std::string_view ln, uint32_t i, bool inHeader, TestFile &tf, Reporter &rep, bool &sawTest) {
  uint32_t line = i + 1;
  std::string_view all = ln.substr(tf.leader.size());
  size_t second = all.find(tf.leader);
  std::string_view body = trim(all.substr(0, second));
  if (second != std::string_view::npos) parseTrailing(all.substr(second + tf.leader.size()), line, tf, rep);
  if (startsWith(body, "run") && body.size() > 3 && (body[3] == ':' || body[3] == ' ')) {
    parseRunLine(body, i, tf, rep);
  } else if (startsWith(body, "error:") || startsWith(body, "error[") || startsWith(body, "trap:") ||
             startsWith(body, "note:")) {
    rep.at(line) << "an error, note or trap expectation must trail the line it is about\n";
  } else if (inHeader) {
    parseHeader(body, all.substr(0, second), i, tf, rep, sawTest);
  } else if (startsWith(body, "test:") || startsWith(body, "exit:") || startsWith(body, "stdout:") ||
             startsWith(body, "xfail:")) {
    rep.at(line) << "a header directive must be in the header (the leading comment lines)\n";
  }
}

void finishFlat(TestFile &tf, Reporter &rep) {
  for (const auto &g : tf.groups)
    if (g.trap && !g.srcLines.empty())
      rep.at(g.srcLines.front() + 1) << runName(g) << " has both a trap and `run` output lines\n";
  if (tf.mode == TestFile::Mode::Check && !tf.groups.empty())
    rep.file() << "run or trap expectations in a `test: oracle` file (make it `test: run`)\n";
  // The file's own data is always run, first (bless adds its lines if missing).
  if (tf.mode == TestFile::Mode::Run) {
    RunGroup def;
    groupFor(tf, def);
    std::stable_partition(tf.groups.begin(), tf.groups.end(), [](const RunGroup &g) { return g.inputs.empty(); });
  }
}

void finishModule(TestFile &tf, Reporter &rep) {
  int traps = 0;
  for (const auto &e : tf.expects)
    if (e.kind == Kind::Trap && ++traps == 2) rep.at(e.line) << "a second trap expectation (a run traps once)\n";
  if (tf.mode == TestFile::Mode::Check && (traps || tf.exitLine || tf.haveStdout))
    rep.file() << "`trap:`, `exit:` and `stdout:` need a `test: run` file\n";
  if (traps && tf.exitLine) rep.at(tf.exitLine) << "a trapping run exits with 101: drop `exit:`\n";
}

}  // namespace

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
    uint64_t slot = 0;
    if (!parseNumber(k, 999'999'999, slot))
      return why = "expected a slot number before `=`, found `" + std::string(k) + "`", false;
    if (g.slotData.count(static_cast<int64_t>(slot))) return why = "slot " + std::string(k) + " is given twice", false;
    std::vector<Literal> vals;
    std::string vcanon;
    if (!parseValues(part.substr(eq + 1), vals, vcanon, why)) return false;
    g.slotData[static_cast<int64_t>(slot)] = std::move(vals);
    canon += (canon.empty() ? "" : ";") + std::to_string(slot) + "=" + vcanon;
  }
  g.inputs = canon;
  return true;
}

bool readTestFile(const std::string &path, TestFile &tf, Reporter &rep) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    rep.file() << "cannot read the file\n";
    return false;
  }
  std::stringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str();
  tf.path = path;
  bool cairn = path.size() >= 6 && path.compare(path.size() - 6, 6, ".cairn") == 0;
  tf.lang = cairn ? Lang::Cairn : looksLikeModule(text) ? Lang::Module : Lang::Flat;
  tf.leader = cairn ? "//" : "#";
  tf.trailingNewline = text.empty() || text.back() == '\n';
  for (size_t pos = 0; pos < text.size();) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) nl = text.size();
    tf.lines.push_back(text.substr(pos, nl - pos));
    pos = nl + 1;
  }
  bool inHeader = true, sawTest = false;
  for (uint32_t i = 0; i < tf.lines.size(); ++i) {
    std::string_view ln = trim(tf.lines[i]);
    if (ln.empty()) continue;
    if (startsWith(ln, tf.leader)) {
      parseCommentLine(ln, i, inHeader, tf, rep, sawTest);
      continue;
    }
    inHeader = false;
    size_t at = ln.find(tf.leader);
    if (at != std::string_view::npos) parseTrailing(ln.substr(at + tf.leader.size()), i + 1, tf, rep);
  }
  if (!sawTest)
    rep.at(1) << "the header (the leading comment lines) must be given `" << tf.leader << " test: oracle`, `"
              << tf.leader << " test: check` or `" << tf.leader << " test: run`\n";
  if (tf.lang == Lang::Flat) finishFlat(tf, rep);
  else finishModule(tf, rep);
  return true;
}

}  // namespace cairn::filetest
