// --bless's output: a small line diff (LCS) of a file and its blessed
// version, printed as `-`/`+` lines with hunk headers, and writing the
// blessed lines back (keeping whether the file ended in a newline).
#include <algorithm>
#include <fstream>

#include "tests/filetest/filetest.hpp"

namespace cairn::filetest {

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

}  // namespace cairn::filetest
