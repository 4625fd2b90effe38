// LazyLib: a shared library opened the first time a command needs it, not
// when the process starts.
//
// Not IR: the lowest library every part of cairn links. Every shared
// library the `cairn` binary names is loaded and relocated before main, by
// every command: libarchive (with the ten libraries it pulls in: libxml2,
// ICU, nettle, the compressors) and libcrypto cost each process about 1 ms
// of its 2.9 ms start (a `cairn run` of an empty program), while only
// `cairn lesson gradescope` writes a zip and only a CAIRN build receipt
// takes a sha256. Those two reach their library through a LazyLib.
//
// The names tried are the library's soname, found by CMake on the build
// machine (cairn_soname in CMakeLists.txt), then the unversioned name. A
// library that cannot be opened, or that lacks a symbol, is an error of the
// environment (a missing package), said to the caller, never a crash.
#pragma once
#include <dlfcn.h>

#include <initializer_list>
#include <mutex>
#include <string>
#include <vector>

namespace cairn {

class LazyLib {
 public:
  explicit LazyLib(std::initializer_list<const char *> names) : names_(names.begin(), names.end()) {}
  LazyLib(const LazyLib &) = delete;
  LazyLib &operator=(const LazyLib &) = delete;
  // The library stays loaded until the process ends (its symbols may be
  // held anywhere), so there is no dlclose.

  // The function `symbol` of the library as an F (a function pointer type:
  // decltype(&the_declared_function)), or nullptr after saying why. Safe
  // from any thread: the library is opened once.
  template <class F>
  F get(const char *symbol, std::string &why) {
    std::call_once(once_, [this] { open(); });
    if (!handle_) {
      why = openError_;
      return nullptr;
    }
    void *p = dlsym(handle_, symbol);
    if (!p) why = std::string(names_[0]) + " has no symbol " + symbol;
    return reinterpret_cast<F>(p);
  }

 private:
  void open() {
    std::string tried;
    for (const char *n : names_) {
      if ((handle_ = dlopen(n, RTLD_NOW | RTLD_LOCAL))) return;
      const char *e = dlerror();
      tried += std::string(tried.empty() ? "" : "; ") + (e ? e : n);
    }
    openError_ = "cannot load " + std::string(names_.empty() ? "a library" : names_[0]) + " (" + tried + ")";
  }

  std::vector<const char *> names_;
  std::once_flag once_;
  void *handle_ = nullptr;
  std::string openError_;
};

}  // namespace cairn
