// Module externs: the symbols of a module's `extern` functions, found with
// dlsym when a run starts and called through libffi (module_ffi.cpp).
//
// Internal to exec/: the machine calls Externs::call for a kCall of an
// extern, with the scalar and view arguments it gathered.
#pragma once
#include <string>
#include <vector>

#include "exec/program.hpp"

namespace cairn::exec {

class Externs {
 public:
  Externs();
  ~Externs();
  Externs(const Externs &) = delete;
  Externs &operator=(const Externs &) = delete;
  // Resolves every extern of m with dlsym; false (and `missing` named) when
  // one is not found.
  bool resolve(const Module &m, std::string &missing);
  // Calls extern `f` with scalar/view arguments; returns its result in
  // normal form (0 for none).
  Bits call(int f, const std::vector<Bits> &scalars, const std::vector<View> &views, const std::vector<uint8_t> &isView);

 private:
  struct Impl;
  Impl *impl_;
};

}  // namespace cairn::exec
