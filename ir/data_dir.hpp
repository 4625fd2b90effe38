// Where cairn's data lives: std/ (CAIRN's standard library), lessons/ (the
// shipped course) and, for `cairn lesson gradescope`, the source tree.
//
// An installed cairn finds its data relative to its own executable,
// PREFIX/bin/cairn -> PREFIX/share/cairn/NAME (the install rules of
// CMakeLists.txt put it there), so a prefix can be moved or copied whole. A
// cairn run from its build folder has no such folder and falls back to the
// source tree it was built from (compiled in). Environment variables and
// flags, where a caller has them, come before both.
#pragma once
#include <string>

namespace cairn {

// PREFIX/share/cairn/NAME when the running executable is PREFIX/bin/cairn (or
// any PREFIX/bin/X) and that folder exists; otherwise "".
std::string installedDataDir(const std::string &name);

// The running executable's path ("" when /proc/self/exe cannot be read).
std::string selfExePath();

}  // namespace cairn
