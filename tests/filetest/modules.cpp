// Modules and CAIRN programs. A .uir module is parsed and validated
// (validateModule); a .cairn program is checked and lowered (lowerCairn,
// with checkAll for a `test: check` file, as `cairn check` does; std
// imports found as `cairn` finds them), and for a run its lowered module
// must pass the oracle, also after printing and reading back (`cairn lower
// | cairn oracle -`). The diagnostics are checked against the file's
// expectations; a `test: run` file is then run on every engine
// (module_engines.hpp), which must agree on the exit status, stdout and
// stderr, and agree with `exit:` (default 0) or `trap:`, and `stdout:`.
// --bless rewrites the `stdout:` lines.
#include <algorithm>

#include "exec/c_toolchain.hpp"
#include "ir/module.hpp"
#include "lower/lower.hpp"
#include "tests/filetest/filetest.hpp"
#include "tests/filetest/module_engines.hpp"

namespace cairn::filetest {

namespace {

std::string baseName(std::string_view p) {
  size_t s = p.rfind('/');
  return std::string(s == std::string_view::npos ? p : p.substr(s + 1));
}

struct Trap {
  std::string file, message;
  uint32_t line = 0;
};

// The first line of stderr as `FILE:LINE:COL: error: trap: MESSAGE`.
std::optional<Trap> parseTrap(const std::string &err) {
  std::string first = err.substr(0, err.find('\n'));
  size_t at = first.find(": error: trap: ");
  if (at == std::string::npos) return std::nullopt;
  std::string loc = first.substr(0, at);
  size_t c2 = loc.rfind(':');
  size_t c1 = c2 == std::string::npos || c2 == 0 ? std::string::npos : loc.rfind(':', c2 - 1);
  if (c1 == std::string::npos) return std::nullopt;
  Trap t{loc.substr(0, c1), first.substr(at + 15), 0};
  t.line = static_cast<uint32_t>(std::strtoul(loc.c_str() + c1 + 1, nullptr, 10));
  return t;
}

std::string joined(const std::vector<std::string> &lines) {
  std::string s;
  for (const auto &l : lines) s += l + "\n";
  return s;
}

const Expect *trapOf(const TestFile &tf) {
  for (const auto &e : tf.expects)
    if (e.kind == Kind::Trap) return &e;
  return nullptr;
}

void checkOutcome(const TestFile &tf, const ModuleOutcome &o, Reporter &rep) {
  if (const Expect *t = trapOf(tf)) {
    auto got = parseTrap(o.err);
    if (o.status != 101 || !got || baseName(got->file) != baseName(tf.path) || got->line != t->line ||
        !contains(got->message, t->text))
      rep.at(t->line) << "expected the run to trap here with a message containing " << quoted(t->text)
                      << " but got " << describe(o) << '\n';
  } else if (o.status != tf.exitStatus) {
    rep.at(tf.exitLine ? tf.exitLine : 1) << "expected exit status " << tf.exitStatus << " but got " << describe(o)
                                          << '\n';
  }
  if (tf.haveStdout && o.out != joined(tf.stdoutLines)) {
    std::ostream &os = rep.at(tf.stdoutSrc.front() + 1);
    os << "expected stdout";
    for (const auto &l : tf.stdoutLines) os << "\n    " << l;
    os << "\n  but got " << describe(o) << '\n';
  }
}

// The file with its `stdout:` lines replaced by `out` (where it is lines).
std::vector<std::string> blessStdout(const TestFile &tf, const std::string &out) {
  if ((!out.empty() && out.back() != '\n') || (!tf.haveStdout && out.empty())) return tf.lines;
  std::vector<std::string> fresh;
  for (size_t p = 0; p < out.size();) {
    size_t nl = out.find('\n', p);
    std::string l = out.substr(p, nl - p);
    fresh.push_back(tf.leader + " stdout:" + (l.empty() ? "" : " " + l));
    p = nl + 1;
  }
  uint32_t at = tf.haveStdout ? tf.stdoutSrc.front() : tf.lastHeaderLine + 1;
  std::vector<std::string> res;
  for (uint32_t i = 0; i < tf.lines.size(); ++i) {
    if (i == at) res.insert(res.end(), fresh.begin(), fresh.end());
    if (std::find(tf.stdoutSrc.begin(), tf.stdoutSrc.end(), i) == tf.stdoutSrc.end()) res.push_back(tf.lines[i]);
  }
  if (at >= tf.lines.size()) res.insert(res.end(), fresh.begin(), fresh.end());
  return res;
}

// A lowered module must pass the oracle, and read back from its text.
bool checkLowered(const TestFile &tf, const Module &m, ModuleFacts &facts, Reporter &rep) {
  Diags od;
  if (!validateModule(m, facts, od)) {
    std::ostream &os = rep.file();
    os << "the oracle refuses the lowered module (a bug in the lowering):\n";
    od.sort();
    od.print(os, tf.path + " (lowered)");
    return false;
  }
  std::string printed = printModule(m);
  Module back;
  ModuleFacts bf;
  Diags bd;
  if (!parseModule(printed, back, bd) || !validateModule(back, bf, bd)) {
    std::ostream &os = rep.file();
    os << "the printed lowered module (`cairn lower`) must be valid when read back:\n";
    bd.sort();
    bd.print(os, tf.path + " (lowered, printed)");
    return false;
  }
  return true;
}

// Runs on every engine; the outcome all that ran agree on, if they do (an
// engine that could not run is a failure; the others are still checked).
std::optional<ModuleOutcome> runEngines(const TestFile &tf, const Module &m, const ModuleFacts &facts,
                                        Reporter &rep) {
  std::vector<std::pair<std::string, ModuleOutcome>> outs;
  if (engineEnabled("interp")) outs.emplace_back("interp", runModuleInterp(m, facts, tf.path, tf.maxElements));
  if (engineEnabled("c")) {
    CCompiler cc = compilerFromEnv();
    if (compilerAvailable(cc)) outs.emplace_back("c", runModuleC(m, facts, tf.path, tf.maxElements));
    else std::cout << "note: no C compiler found (`" << cc.cc[0] << "`; set CC): the C back end is not checked\n";
  }
  if (outs.empty()) {
    rep.file() << "no engine to run on (CAIRN_FILETEST_ENGINES)\n";
    return std::nullopt;
  }
  for (const auto &[name, o] : outs)
    if (o.failed) rep.file() << "the " << name << " engine could not run the program: " << o.err << '\n';
  std::vector<const ModuleOutcome *> ran;
  for (const auto &p : outs)
    if (!p.second.failed) ran.push_back(&p.second);
  if (ran.empty()) return std::nullopt;
  if (std::all_of(ran.begin(), ran.end(), [&](const ModuleOutcome *o) { return *o == *ran[0]; })) return *ran[0];
  std::ostream &os = rep.file();
  os << "the engines disagree:";
  for (const auto &[name, o] : outs) os << "\n  " << name << ": " << describe(o);
  os << '\n';
  return std::nullopt;
}

// Parses and checks (a module) or checks and lowers (CAIRN); false when not valid.
bool load(const TestFile &tf, Module &m, ModuleFacts &facts, Diags &d) {
  std::string text = joined(tf.lines);
  if (!tf.trailingNewline && !text.empty()) text.pop_back();
  if (tf.lang == Lang::Module) return parseModule(text, m, d) && validateModule(m, facts, d);
  LowerOptions lo;
  lo.checkAll = tf.mode == TestFile::Mode::Check;
  return lowerCairn(tf.path, text, m, d, lo);
}

}  // namespace

void testModule(TestFile &tf, Reporter &rep, bool bless, std::vector<std::string> &out) {
  out = tf.lines;
  Module m;
  ModuleFacts facts;
  Diags d;
  bool ok = load(tf, m, facts, d);
  checkDiagnostics(tf, d, rep);
  checkSpec(tf, d, rep);
  if (tf.mode != TestFile::Mode::Run) return;
  if (!ok) {
    rep.file() << "a `test: run` file must be a valid program; it was not run\n";
    return;
  }
  if (tf.lang == Lang::Cairn && !checkLowered(tf, m, facts, rep)) return;
  if (rep.failures() && !bless) return;
  std::optional<ModuleOutcome> o = runEngines(tf, m, facts, rep);
  if (!o) return;
  checkOutcome(tf, *o, rep);
  if (bless) out = blessStdout(tf, o->out);
}

}  // namespace cairn::filetest
