// The interp backend of `cairn fuzz` (see fuzz_diff.hpp): each program is
// judged by the oracle and the referee (tools/referee.hpp) and, when the
// oracle accepts a generated valid one, run under two schedules. Counts
// unsound accepts, other disagreements and conservative refusals (by rule
// and by where the program stands for the referee); reduces and writes
// failures, and on request proven-valid refusals.
#include <algorithm>
#include <filesystem>
#include <ostream>

#include "exec/c_toolchain.hpp"
#include "ir/parser.hpp"
#include "oracle/oracle.hpp"
#include "tools/fuzz_impl.hpp"
#include "tools/referee.hpp"

namespace cairn::fuzzimpl {

namespace {

GenOptions smallOptions(uint64_t seed) {
  std::mt19937_64 r(seed * 0x2545f4914f6cdd1dull + 7);
  GenOptions o;
  o.buffers = 1 + static_cast<int>(r() % 3);
  o.steps = 1 + static_cast<int>(r() % 20);
  o.loops = r() % 4 != 0;
  o.dynamic = r() % 2 == 0;
  o.allOps = r() % 2 == 0;
  return o;
}

// Program `seed` of the interp backend, and what it is.
std::string interpProgram(uint64_t seed, const std::string &gen, int &mode) {
  if (gen == "wrap") {
    mode = 4;
    ArbitraryOptions a;
    a.wrapIndices = true;
    a.buffers = 1 + static_cast<int>(seed % 3);
    a.steps = 1 + static_cast<int>((seed / 3) % 3);
    a.maxMemOps = 2 + static_cast<int>((seed / 9) % 5);
    return generateArbitrary(seed, a);
  }
  mode = static_cast<int>(seed % 5);  // 0-2 valid, 3 broken, 4 arbitrary
  if (mode <= 2) return generateValid(seed, smallOptions(seed)).text;
  if (mode == 3) {
    auto kind = static_cast<Breakage>((seed / 5) % kNumBreakages);
    std::string valid = generateValid(seed, smallOptions(seed)).text, broken = breakProgram(valid, kind, seed);
    if (broken == valid) mode = 0;  // nothing to break (every buffer has a dynamic size)
    return broken;
  }
  ArbitraryOptions a;
  a.buffers = 1 + static_cast<int>(seed % 3);
  a.steps = 1 + static_cast<int>((seed / 3) % 14);
  a.maxMemOps = 1 + static_cast<int>((seed / 7) % 8);
  return generateArbitrary(seed, a);
}

std::string schedulesDiffer(const std::string &text) {
  Graph g;
  Diags d;
  Facts f;
  if (!parseUir(text, g, d) || !validate(g, f, d)) return "";
  RunOptions a, b;
  a.limits.maxSteps = b.limits.maxSteps = uint64_t{1} << 24;
  b.priority = SchedulePriority::Latest;
  RunResult ra = run(g, f, a), rb = run(g, f, b);
  // Both trapping is agreement: with two independent ops that trap, which
  // one runs first, and so which trap is reported, is the schedule's choice.
  if (ra.status == rb.status && (ra.status == RunResult::Status::Trap || slotText(ra) == slotText(rb))) return "";
  return "source-order schedule:\n" + (ra.status == RunResult::Status::Ok ? slotText(ra) : ra.message + "\n") +
         "latest-first schedule:\n" + (rb.status == RunResult::Status::Ok ? slotText(rb) : rb.message + "\n");
}

// The failure kind of an interp-backend program ("" when it passes).
std::string checkInterp(const std::string &text, int mode, uint64_t seed, FuzzReport *rep, std::string &detail) {
  Agreement a = compareWithOracle(text);
  if (rep) {
    rep->valid += a.oracleValid;
    rep->invalid += !a.oracleValid;
    rep->conservative += a.kind == Agreement::Kind::Conservative;
    using S = Agreement::Standing;
    for (const auto &r : a.refused)
      ++(r.program == S::Proven ? rep->refusedProven : r.program == S::Undecided ? rep->refusedUnproven : rep->refusedBroken)[r.rule];
    if (!a.refused.empty() && a.refused[0].program == S::Proven) rep->refusalSeeds.emplace_back(seed, a.refused[0].rule);
  }
  if (a.kind == Agreement::Kind::Disagree) {
    detail = a.detail;
    if (rep && a.unsound)
      for (const auto &r : a.missed) ++rep->unsoundByRule[r];
    return a.unsound ? "unsound-accept" : !a.missed.empty() ? "missed-rule" : "referee";
  }
  if (mode <= 2) {
    if (!a.oracleValid) {
      detail = "the oracle rejects a generated valid program:\n" + a.detail;
      return "oracle";
    }
    detail = schedulesDiffer(text);
    return detail.empty() ? "" : "schedule";
  }
  if (mode == 3) {
    std::string rule = breakageRule(static_cast<Breakage>((seed / 5) % kNumBreakages));
    RefereeVerdict v = refereeText(text);
    bool named = false;
    Graph g;
    Diags d;
    Facts f;
    if (parseUir(text, g, d)) validate(g, f, d);
    for (const auto &dg : d.list()) named = named || dg.rule == rule;
    bool found = v.judged() && v.violates(rule);
    if (named && !found) {
      detail = "the oracle names " + rule + ", the referee does not find it broken:\n" + a.detail + verdictText(Graph{}, v);
      return "referee-miss";
    }
    if (!named && found) {
      detail = "the referee finds " + rule + " broken, the oracle does not name it:\n" + a.detail;
      return "oracle-miss";
    }
    if (!named && !found) {
      detail = "the breakage (" + rule + ") broke nothing";
      return "unbroken";
    }
  }
  return "";
}


bool parses(const std::string &t) {
  Graph g;
  Diags d;
  return parseUir(t, g, d);
}

// What the oracle misses and (withBroken) what the referee finds broken, as text.
std::string disagreement(const std::string &text, bool withBroken) {
  Agreement a = compareWithOracle(text);
  std::string s = "missed:";
  for (const auto &r : a.missed) s += " " + r;
  if (!withBroken) return s;
  s += "; broken:";
  for (const auto &r : refereeText(text).rules()) s += " " + r;
  return s;
}

// Whether the referee proves `text` valid while the oracle reports `rule` (and
// nothing but bounds and lane).
bool provenRefusal(const std::string &text, const std::string &rule) {
  Agreement a = compareWithOracle(text);
  if (a.kind != Agreement::Kind::Conservative) return false;
  for (const auto &r : a.refused)
    if (r.rule == rule && r.program == Agreement::Standing::Proven) return true;
  return false;
}

// A conservative refusal the referee proved valid, reduced (still refused
// for `rule`, still proven valid) and written as OUT/fuzz-refusal-SEED.uir.
void writeRefusal(const FuzzOptions &o, FuzzReport &rep, uint64_t seed, const std::string &rule, const std::string &text) {
  BatchPredicate pred = [&](const std::vector<std::string> &ts) {
    std::vector<bool> r;
    for (const auto &t : ts) r.push_back(provenRefusal(t, rule));
    return r;
  };
  std::string reduced = o.reduce ? reduceProgram(text, pred, parses) : text;
  std::error_code ec;
  std::filesystem::create_directories(o.outDir, ec);
  std::string name = "fuzz-refusal-" + std::to_string(seed) + ".uir";
  std::string path = (std::filesystem::path(o.outDir) / name).string();
  std::string head = "# cairn fuzz: conservative refusal (" + rule + "), backend interp, seed " + std::to_string(seed) +
                     ": the oracle refuses, the referee proves it valid\n# found by:   cairn fuzz --seed " + std::to_string(seed) +
                     " --count 1 --backend interp" + (o.gen == "std" ? "" : " --gen " + o.gen) + " --refusals 1\n" +
                     "# reproduce:  cairn oracle " + name + "\n" + commentLines(compareWithOracle(reduced).detail);
  if (writeFileText(path, head + reduced)) rep.refusalFiles.push_back(path);
}

}  // namespace

void interpCampaign(const FuzzOptions &o, FuzzReport &rep, const FailFn &fail, const std::function<void(uint64_t)> &progress) {
  for (uint64_t k = 0; k < o.count && (o.keepGoing || rep.failures.size() < o.maxFailures); ++k) {
    uint64_t seed = o.seed + k;
    int mode;
    std::string text = interpProgram(seed, o.gen, mode), detail;
    ++rep.programs;
    uint64_t proven = rep.refusalSeeds.size();
    std::string kind = checkInterp(text, mode, seed, &rep, detail);
    if (rep.refusalSeeds.size() > proven && rep.refusalFiles.size() < o.refusals)
      writeRefusal(o, rep, seed, rep.refusalSeeds.back().second, text);
    if (!kind.empty()) ++rep.failureKinds[kind];
    if (!kind.empty() && rep.failures.size() >= o.maxFailures) {
      rep.unrecorded.emplace_back(seed, kind);
      if (o.log) *o.log << "fuzz: FAIL seed " << seed << " (" << kind << "), past --max-failures: counted, not reduced\n";
    } else if (!kind.empty()) {
      // The reduced program fails the same way: same kind, same rules missed,
      // and (but for an unsound accept, which the oracle accepts, so no new
      // breakage can hide in it) the referee finds the same rules broken.
      const bool withBroken = kind != "unsound-accept";
      const std::string want = disagreement(text, withBroken);
      BatchPredicate pred = [&](const std::vector<std::string> &ts) {
        std::vector<bool> r;
        std::string d;
        for (const auto &t : ts) r.push_back(checkInterp(t, mode, seed, nullptr, d) == kind && disagreement(t, withBroken) == want);
        return r;
      };
      fail({seed, kind, detail, text, text, ""}, pred, parses, [&](const std::string &t) {
        std::string d;
        checkInterp(t, mode, seed, nullptr, d);
        return d;
      });
    }
    progress(k + 1);
  }
  std::stable_partition(rep.failures.begin(), rep.failures.end(), [](const auto &f) { return f.kind == "unsound-accept"; });
  std::stable_partition(rep.unrecorded.begin(), rep.unrecorded.end(), [](const auto &u) { return u.second == "unsound-accept"; });
}

}  // namespace cairn::fuzzimpl
