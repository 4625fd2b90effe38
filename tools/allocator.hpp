// Which allocator serves this process's malloc and new: mimalloc when the
// build found it (CMakeLists.txt, cairn_malloc: it then defines
// CAIRN_MIMALLOC for the programs it links) and it does override the C
// library's, which the answer checks on a live allocation; else the C
// library's own. `cairn --version` prints it; a unit test holds the build
// to it.
#pragma once
#include <cstdlib>
#include <string>

#ifdef CAIRN_MIMALLOC
#include <mimalloc.h>
#endif

namespace cairn {

inline std::string allocatorInUse() {
#ifdef CAIRN_MIMALLOC
  void *p = std::calloc(1, 16);  // (zeroed: the check only looks at where it lies)
  const bool served = p && mi_is_in_heap_region(p);
  std::free(p);
  const int v = mi_version();  // 209 is 2.0.9
  if (served)
    return "mimalloc " + std::to_string(v / 100) + "." + std::to_string(v / 10 % 10) + "." + std::to_string(v % 10);
  return "the C library's malloc (mimalloc is linked but does not serve malloc)";
#else
  return "the C library's malloc";
#endif
}

}  // namespace cairn
