// cairn_filetest: the golden-file test runner, for flat .uir graphs, .uir
// modules and .cairn programs, with one directive grammar (the comment
// leader is `#` in .uir and `//` in .cairn; tests/golden/README.md):
//
//   test: oracle|check|run     header: validate only, or validate and run
//   xfail: REASON              header: the test must fail (a rule not built
//                              yet); it fails loudly when it passes
//   exit: N / stdout: LINE     header (modules, CAIRN): main's exit status, stdout
//   spec: SENTENCE             header: some error holds it, numbers aside
//   max-elements: N            header (modules, CAIRN): the run's element limit
//   run: OUTPUT / run K=V: ..  (flat .uir) the expected output lines of a run
//   CODE  # error[RULE]: TEXT  trailing: an error on this line; also `note:
//                              TEXT` and `trap: TEXT`
//
// This file: the command line, one file's pass (read, check, bless), and
// the xfail rule. Exit 0 when every file passes, 1 when one fails, 2 on a
// usage error.
#include <cstdlib>

#include "tests/filetest/filetest.hpp"

using namespace cairn::filetest;

namespace cairn::filetest {

bool engineEnabled(std::string_view name) {
  const char *env = std::getenv("CAIRN_FILETEST_ENGINES");
  if (!env || !*env) return true;
  std::string_view s(env);
  for (size_t pos = 0; pos <= s.size();) {
    size_t comma = s.find(',', pos);
    if (comma == std::string_view::npos) comma = s.size();
    if (trim(s.substr(pos, comma - pos)) == name) return true;
    pos = comma + 1;
  }
  return false;
}

}  // namespace cairn::filetest

namespace {

struct Pass {
  TestFile tf;
  bool read = false;
  int readFailures = 0;  // malformed directives: never excused by xfail
  int failures = 0;
  std::vector<std::string> blessed;
};

Pass onePass(const std::string &path, bool bless, std::ostream &os) {
  Pass p;
  Reporter rep(path, os);
  p.read = readTestFile(path, p.tf, rep);
  p.readFailures = rep.failures();
  if (p.read) {
    if (p.tf.lang == Lang::Flat) testFlat(p.tf, rep, bless, p.blessed);
    else testModule(p.tf, rep, bless, p.blessed);
  }
  p.failures = rep.failures();
  return p;
}

bool blessFile(const std::string &path) {
  std::ostringstream quiet;  // the check after it reports
  Pass p = onePass(path, true, quiet);
  if (!p.read || p.readFailures || p.blessed == p.tf.lines) return true;
  printDiff(path, p.tf.lines, p.blessed);
  if (!writeLines(p.tf, p.blessed)) {
    std::cout << path << ": cannot write the blessed file\n";
    return false;
  }
  std::cout << path << ": blessed\n";
  return true;
}

bool testFile(const std::string &path, bool bless) {
  if (bless && !blessFile(path)) return false;
  std::ostringstream report;
  Pass p = onePass(path, false, report);
  if (p.tf.xfail.empty() || !p.read || p.readFailures) {
    std::cout << report.str();
    return p.read && p.failures == 0;
  }
  if (p.failures == 0) {
    std::cout << path << ':' << p.tf.xfailLine << ": unexpectedly passed: remove xfail (" << p.tf.xfail << ")\n";
    return false;
  }
  std::cout << path << ": fails as expected (xfail: " << p.tf.xfail << "):\n";
  std::istringstream lines(report.str());
  for (std::string l; std::getline(lines, l);) std::cout << "  | " << l << '\n';
  return true;
}

int usage(int status) {
  (status ? std::cerr : std::cout) << "usage: cairn_filetest [--bless] FILE...\n"
                                      "Runs golden files (.uir graphs and modules, .cairn programs) with inline\n"
                                      "expectations (tests/golden/README.md). CAIRN_FILETEST_ENGINES=interp runs\n"
                                      "the interpreters only (a comma list of interp, c; default both).\n";
  return status;
}

}  // namespace

int main(int argc, char **argv) {
  bool bless = false;
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--bless") bless = true;
    else if (a == "--help" || a == "-h") return usage(0);
    else if (!a.empty() && a[0] == '-') {
      std::cerr << "cairn_filetest: unknown option " << a << "\n";
      return 2;
    } else files.push_back(a);
  }
  if (files.empty()) return usage(2);
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
