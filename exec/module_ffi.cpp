// Extern calls: symbols found with dlsym when a run starts, called through
// libffi.
//
// Each extern's call interface (ffi_cif) is prepared once from its
// signature: a dtype maps to the C type of the same width and signedness
// (bool to an unsigned byte), a view to a pointer to its first element.
// libffi widens integer results narrower than ffi_arg; the result is read
// back at its own width and put in normal form (ir/dtype.hpp).
#include <dlfcn.h>
#include <ffi.h>

#include <algorithm>
#include <bit>
#include <cstring>

#include "exec/externs.hpp"
#include "exec/module_interp.hpp"

namespace cairn::exec {

namespace {

ffi_type *ffiType(DType t) {
  switch (t) {
    case DType::Bool: return &ffi_type_uint8;
    case DType::I8: return &ffi_type_sint8;
    case DType::I16: return &ffi_type_sint16;
    case DType::I32: return &ffi_type_sint32;
    case DType::I64: return &ffi_type_sint64;
    case DType::U8: return &ffi_type_uint8;
    case DType::U16: return &ffi_type_uint16;
    case DType::U32: return &ffi_type_uint32;
    case DType::U64: return &ffi_type_uint64;
    case DType::F32: return &ffi_type_float;
    case DType::F64: return &ffi_type_double;
    default: return &ffi_type_void;
  }
}

}  // namespace

struct Externs::Impl {
  struct Ext {
    void *fn = nullptr;
    Signature sig;
    std::vector<ffi_type *> types;
    ffi_cif cif{};
  };
  std::vector<Ext> ext;  // by function index (empty for functions)
};

Externs::Externs() : impl_(new Impl) {}
Externs::~Externs() { delete impl_; }

std::vector<std::string> externLibrariesOf(const Module &m) {
  auto objectOf = [](const void *addr) -> std::string {
    Dl_info info{};
    return addr && dladdr(addr, &info) && info.dli_fname ? info.dli_fname : "";
  };
  // What every C program links anyway, and cairn itself (whose own symbols
  // a compiled program cannot have).
  const std::string libc = objectOf(dlsym(RTLD_DEFAULT, "printf")), libm = objectOf(dlsym(RTLD_DEFAULT, "cos")),
                    self = objectOf(reinterpret_cast<const void *>(&externLibrariesOf));
  std::vector<std::string> out;
  for (const Function &f : m.funcs) {
    if (!f.external) continue;
    std::string lib = objectOf(dlsym(RTLD_DEFAULT, f.symbol.c_str()));
    if (lib.empty() || lib == libc || lib == libm || lib == self || lib.find("ld-linux") != std::string::npos) continue;
    if (std::find(out.begin(), out.end(), lib) == out.end()) out.push_back(lib);
  }
  return out;
}

bool Externs::resolve(const Module &m, std::string &missing) {
  impl_->ext.assign(m.funcs.size(), Impl::Ext{});
  for (size_t i = 0; i < m.funcs.size(); ++i) {
    const Function &f = m.funcs[i];
    if (!f.external) continue;
    Impl::Ext &e = impl_->ext[i];
    e.fn = dlsym(RTLD_DEFAULT, f.symbol.c_str());
    if (!e.fn) {
      missing = f.symbol;
      return false;
    }
    e.sig = f.sig;
    for (const ParamSig &p : f.sig.params) e.types.push_back(p.mode == ParamSig::Mode::Scalar ? ffiType(p.type) : &ffi_type_pointer);
    if (ffi_prep_cif(&e.cif, FFI_DEFAULT_ABI, static_cast<unsigned>(e.types.size()), ffiType(f.sig.ret), e.types.data()) != FFI_OK) {
      missing = f.symbol + "` (cannot prepare its call) `";
      return false;
    }
  }
  return true;
}

Bits Externs::call(int f, const std::vector<Bits> &scalars, const std::vector<View> &views, const std::vector<uint8_t> &isView) {
  Impl::Ext &e = impl_->ext[static_cast<size_t>(f)];
  size_t n = scalars.size();
  // Each argument in a 64-bit cell holding it at its own width (little or
  // big endian alike: it is written as its C type).
  std::vector<uint64_t> cells(n, 0);
  std::vector<void *> ptrs(n);
  for (size_t k = 0; k < n; ++k) {
    void *cell = &cells[k];
    if (isView[k]) {
      void *p = views[k].p;
      std::memcpy(cell, &p, sizeof p);
    } else {
      Bits b = scalars[k];
      switch (e.sig.params[k].type) {
        case DType::Bool: case DType::U8: case DType::I8: { uint8_t v = static_cast<uint8_t>(b); std::memcpy(cell, &v, 1); break; }
        case DType::I16: case DType::U16: { uint16_t v = static_cast<uint16_t>(b); std::memcpy(cell, &v, 2); break; }
        case DType::I32: case DType::U32: case DType::F32: { uint32_t v = static_cast<uint32_t>(b); std::memcpy(cell, &v, 4); break; }
        default: std::memcpy(cell, &b, 8); break;
      }
    }
    ptrs[k] = cell;
  }
  union {
    ffi_arg i;
    float f32;
    double f64;
    uint64_t raw;
  } ret{};
  ffi_call(&e.cif, FFI_FN(e.fn), &ret, ptrs.data());
  DType t = e.sig.ret;
  switch (t) {
    case DType::None: return 0;
    case DType::F32: return std::bit_cast<uint32_t>(ret.f32);
    case DType::F64: return std::bit_cast<uint64_t>(ret.f64);
    case DType::Bool: return (static_cast<uint64_t>(ret.i) & 0xff) != 0;
    default: return normalize(static_cast<Bits>(ret.i), t);
  }
}

}  // namespace cairn::exec

namespace cairn {
std::vector<std::string> externLibraries(const Module &m) { return exec::externLibrariesOf(m); }
}  // namespace cairn
