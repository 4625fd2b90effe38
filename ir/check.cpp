// The failure path of CAIRN_CHECK and CAIRN_UNREACHABLE (ir/check.hpp): an
// abort with the message on stderr in sanitizer and fuzz builds, an
// InternalError everywhere else.
#include "ir/check.hpp"

#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace cairn {

std::string checkFileName(const char *file) {
  std::string_view s = file ? file : "?";
#ifdef CAIRN_SOURCE_TREE
  // An absolute path inside the tree this binary was built from.
  std::string_view tree = CAIRN_SOURCE_TREE;
  if (s.size() > tree.size() && s.substr(0, tree.size()) == tree && s[tree.size()] == '/')
    s.remove_prefix(tree.size() + 1);
#endif
  // A relative one (ccache's base_dir rewrites absolute paths relative to
  // the build folder): the build folders are directly under the tree.
  for (;;) {
    if (s.substr(0, 3) == "../") s.remove_prefix(3);
    else if (s.substr(0, 2) == "./") s.remove_prefix(2);
    else break;
  }
  return std::string(s);
}

void internalError(const char *file, int line, const std::string &message) {
  std::string where = checkFileName(file);
  if constexpr (kCheckAborts) {
    // One write, flushed before abort: the sanitizer's report follows it.
    std::string text = "internal error: " + message + " (" + where + ":" + std::to_string(line) + ")\n";
    std::fwrite(text.data(), 1, text.size(), stderr);
    std::fflush(stderr);
    std::abort();
  } else {
    throw InternalError(std::move(where), line, message);
  }
}

}  // namespace cairn
