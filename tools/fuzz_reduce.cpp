// Delta reduction of a failing .uir program (see fuzz_diff.hpp).
//
// Every candidate is a whole program text; the oracle filters them first
// (cheap), so the predicate -- which may compile C -- only ever sees valid
// programs, and judges all of one round's candidates in one call. A round
// offers, in this order: every chunk of lines of size n/2, n/4, ..., 1
// removed; then, when no deletion keeps the failure, each operand `%x`
// replaced by the literal 0 or 1, and each `data=[...]` replaced by zeros.
// Deletions come first as "a definition and everything that uses it" (the
// whole loop for a `range` or `end`), which keeps every name defined, then
// as plain chunks; an `after` can also go with its uses renamed to the
// version it sequenced (so the store or loop behind it becomes dead).
// The first candidate (largest deletion first) that still fails becomes
// the program and a new round starts. Each accepted candidate has fewer
// lines, fewer operand references or fewer non-zero data, so rounds end.
#include <cctype>
#include <sstream>

#include "ir/parser.hpp"
#include "oracle/oracle.hpp"
#include "tools/fuzz_diff.hpp"

namespace cairn {

bool oracleAccepts(const std::string &text) {
  Graph g;
  Diags d;
  Facts f;
  return parseUir(text, g, d) && validate(g, f, d);
}

namespace {

std::vector<std::string> splitLines(const std::string &text) {
  std::vector<std::string> out;
  std::istringstream is(text);
  std::string l;
  while (std::getline(is, l)) {
    size_t b = l.find_first_not_of(" \t");
    if (b == std::string::npos || l[b] == '#') continue;  // blank and comment lines go first
    out.push_back(l);
  }
  return out;
}

std::string join(const std::vector<std::string> &ls) {
  std::string s;
  for (const auto &l : ls) s += l + "\n";
  return s;
}

// Operand simplifications of one line: each `%x` after the `=` replaced by
// 0 or 1; a data list replaced by zeros.
void simplifications(const std::string &line, std::vector<std::string> &out) {
  size_t eq = line.find('=');
  if (eq == std::string::npos) return;
  // Only scalar operands become literals: not the range of an `end`, the
  // version of an `after`, a view, ... (nor would the oracle accept that).
  std::istringstream words(line.substr(eq + 1));
  std::string op;
  words >> op;
  if (op == "end" || op == "after" || op == "carry" || op == "reduce" || op == "load") return;
  size_t from = eq;
  if (op == "shrink" || op == "checked_shrink" || op == "store") from = line.find('%', eq) + 1;  // keep the view
  if (from == 0) return;
  for (size_t p = line.find('%', from); p != std::string::npos; p = line.find('%', p + 1)) {
    size_t e = p + 1;
    while (e < line.size() && line[e] != ' ' && line[e] != '\t' && line[e] != '#') ++e;
    for (const char *lit : {"0", "1"}) out.push_back(line.substr(0, p) + lit + line.substr(e));
  }
  size_t d = line.find("data=[");
  if (d != std::string::npos) {
    size_t close = line.find(']', d);
    if (close == std::string::npos) return;
    std::string body = line.substr(d + 6, close - d - 6);
    std::istringstream is(body);
    std::string tok, zeros;
    bool allZero = true;
    while (is >> tok) {
      zeros += (zeros.empty() ? "" : " ") + std::string("0");
      allZero = allZero && tok == "0";
    }
    if (!allZero) out.push_back(line.substr(0, d + 6) + zeros + line.substr(close));
  }
}

// The name a line defines, the names it uses, and its op.
struct LineInfo {
  std::string def, op;
  std::vector<std::string> uses;
};

LineInfo lineInfo(const std::string &line) {
  LineInfo li;
  size_t eq = line.find('=');
  if (eq == std::string::npos) return li;
  std::istringstream head(line.substr(0, eq)), words(line.substr(eq + 1));
  head >> li.def;
  words >> li.op;
  std::string w;
  while (words >> w) {
    if (w[0] == '#') break;
    if (w[0] == '%') li.uses.push_back(w);
  }
  return li;
}

// For each line: the lines that must go with it -- its users, transitively,
// and a whole loop (range to end) when its `range` or `end` goes.
std::vector<std::vector<size_t>> closures(const std::vector<std::string> &ls) {
  size_t n = ls.size();
  std::vector<LineInfo> info;
  for (const auto &l : ls) info.push_back(lineInfo(l));
  std::vector<size_t> partner(n, SIZE_MAX);  // range <-> end
  std::vector<size_t> open;
  for (size_t i = 0; i < n; ++i) {
    if (info[i].op == "range") open.push_back(i);
    else if (info[i].op == "end" && !open.empty()) {
      partner[i] = open.back();
      partner[open.back()] = i;
      open.pop_back();
    }
  }
  std::vector<std::vector<size_t>> out(n);
  for (size_t i = 0; i < n; ++i) {
    std::vector<uint8_t> in(n, 0);
    std::vector<size_t> work{i};
    in[i] = 1;
    while (!work.empty()) {
      size_t k = work.back();
      work.pop_back();
      auto add = [&](size_t j) {
        if (j < n && !in[j]) in[j] = 1, work.push_back(j);
      };
      if (partner[k] != SIZE_MAX) {  // a loop goes whole
        size_t lo = std::min(k, partner[k]), hi = std::max(k, partner[k]);
        for (size_t j = lo; j <= hi; ++j) add(j);
      }
      if (!info[k].def.empty())
        for (size_t j = k + 1; j < n; ++j)
          for (const auto &u : info[j].uses)
            if (u == info[k].def) add(j);
    }
    for (size_t j = 0; j < n; ++j)
      if (in[j]) out[i].push_back(j);
  }
  return out;
}

// Each `%x = after %v %w` dropped with every later use of %x renamed %v,
// and the store or loop %w with its closure: a write and its sequencing go
// together (a loop whose result only an `after` uses is otherwise never
// removable: deleting the loop leaves %x undefined, deleting %x leaves the
// loop's write unsequenced).
std::vector<std::vector<std::string>> bypasses(const std::vector<std::string> &ls) {
  std::vector<std::vector<std::string>> out;
  auto nameChar = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.'; };
  for (size_t i = 0; i < ls.size(); ++i) {
    LineInfo li = lineInfo(ls[i]);
    if (li.op != "after" || li.def.empty() || li.uses.empty()) continue;
    std::vector<std::string> v(ls.begin(), ls.begin() + static_cast<long>(i));
    bool inScope = true;  // a module's next function has names of its own
    for (size_t j = i + 1; j < ls.size(); ++j) {
      std::string l = ls[j];
      size_t b = l.find_first_not_of(" \t");
      if (b != std::string::npos && (l.compare(b, 5, "func ") == 0 || l.compare(b, 7, "extern ") == 0)) inScope = false;
      for (size_t p = inScope ? l.find(li.def) : std::string::npos; p != std::string::npos; p = l.find(li.def, p)) {
        size_t e = p + li.def.size();
        if (e < l.size() && nameChar(l[e])) {
          p = e;
          continue;
        }
        l.replace(p, li.def.size(), li.uses[0]);
        p += li.uses[0].size();
      }
      v.push_back(std::move(l));
    }
    // The store or loop the after sequenced goes too (with its closure):
    // an unsequenced write is refused.
    std::vector<size_t> dead;
    for (size_t k = 0; k < v.size() && li.uses.size() > 1; ++k)
      if (lineInfo(v[k]).def == li.uses[1]) dead = closures(v)[k];
    std::vector<std::string> kept;
    for (size_t k = 0, at = 0; k < v.size(); ++k) {
      if (at < dead.size() && dead[at] == k) {
        ++at;
        continue;
      }
      kept.push_back(std::move(v[k]));
    }
    out.push_back(std::move(kept));
  }
  return out;
}

}  // namespace

std::string reduceProgram(const std::string &text, const BatchPredicate &stillFails, const TextFilter &filter, int rounds) {
  const TextFilter admit = filter ? filter : TextFilter(oracleAccepts);
  std::vector<std::string> cur = splitLines(text);
  if (!admit(join(cur)) || !stillFails({join(cur)}).at(0)) return text;  // comments mattered?
  constexpr size_t kMaxCandidates = 400;
  for (int round = 0; round < rounds; ++round) {
    bool progressed = false;
    for (int phase = 0; phase < 2 && !progressed; ++phase) {
      std::vector<std::vector<std::string>> cands;
      size_t n = cur.size();
      if (phase == 0) {
        // A definition with everything that depends on it (never leaves a
        // name undefined), then plain chunks of lines.
        for (const auto &cl : closures(cur)) {
          if (cl.size() >= n) continue;
          std::vector<std::string> v;
          for (size_t j = 0, at = 0; j < n; ++j) {
            if (at < cl.size() && cl[at] == j) {
              ++at;
              continue;
            }
            v.push_back(cur[j]);
          }
          cands.push_back(std::move(v));
        }
        for (auto &v : bypasses(cur)) cands.push_back(std::move(v));
        for (size_t c = n / 2 ? n / 2 : 1; c >= 1 && cands.size() < kMaxCandidates; c /= 2) {
          for (size_t i = 0; i < n && cands.size() < kMaxCandidates; i += c) {
            std::vector<std::string> v(cur.begin(), cur.begin() + static_cast<long>(i));
            v.insert(v.end(), cur.begin() + static_cast<long>(std::min(n, i + c)), cur.end());
            if (!v.empty()) cands.push_back(std::move(v));
          }
          if (c == 1) break;
        }
      } else {
        for (size_t i = 0; i < n && cands.size() < kMaxCandidates; ++i) {
          std::vector<std::string> alts;
          simplifications(cur[i], alts);
          for (auto &a : alts) {
            auto v = cur;
            v[i] = std::move(a);
            cands.push_back(std::move(v));
          }
        }
      }
      std::vector<std::string> texts;
      std::vector<size_t> which;
      for (size_t k = 0; k < cands.size(); ++k) {
        std::string t = join(cands[k]);
        if (admit(t)) {
          texts.push_back(std::move(t));
          which.push_back(k);
        }
      }
      if (texts.empty()) continue;
      std::vector<bool> fails = stillFails(texts);
      for (size_t k = 0; k < fails.size() && k < which.size(); ++k)
        if (fails[k]) {
          cur = std::move(cands[which[k]]);
          progressed = true;
          break;
        }
    }
    if (!progressed) break;
  }
  return join(cur);
}

namespace {

bool declLine(const std::string &l) {
  size_t b = l.find_first_not_of(" \t");
  return b != std::string::npos && (l.compare(b, 5, "func ") == 0 || l.compare(b, 7, "extern ") == 0);
}

// The module without each of its functions but main, one candidate each.
std::vector<std::string> withoutFunctions(const std::string &text) {
  std::vector<std::string> ls = splitLines(text), out;
  std::vector<size_t> starts;
  for (size_t i = 0; i < ls.size(); ++i)
    if (declLine(ls[i])) starts.push_back(i);
  starts.push_back(ls.size());
  for (size_t k = 0; k + 1 < starts.size(); ++k) {
    if (ls[starts[k]].find("func main(") != std::string::npos) continue;
    std::vector<std::string> v(ls.begin(), ls.begin() + static_cast<long>(starts[k]));
    v.insert(v.end(), ls.begin() + static_cast<long>(starts[k + 1]), ls.end());
    out.push_back(join(v));
  }
  return out;
}

}  // namespace

std::string reduceModule(const std::string &text, const BatchPredicate &stillFails, const TextFilter &admit, int rounds) {
  std::string cur = text;
  for (int pass = 0; pass < 4; ++pass) {
    size_t before = cur.size();
    for (bool again = true; again;) {
      again = false;
      std::vector<std::string> texts;
      for (auto &t : withoutFunctions(cur))
        if (admit(t)) texts.push_back(std::move(t));
      if (texts.empty()) break;
      std::vector<bool> fails = stillFails(texts);
      for (size_t k = 0; k < fails.size() && k < texts.size(); ++k)
        if (fails[k]) {
          cur = texts[k];
          again = true;
          break;
        }
    }
    cur = reduceProgram(cur, stillFails, admit, rounds);
    if (cur.size() >= before) break;
  }
  return cur;
}

}  // namespace cairn
