// Internal to the C back end (exec/emit_c*.cpp): the pieces of C text both
// halves use, and the per-program emitter.
//
//   emit_c.cpp       the Emitter: one program's kernel, data and tables
//   emit_c_text.cpp  C spellings of types and values, the unit around the
//                    programs (runtime, main), the public entry points
#pragma once
#include <string>
#include <string_view>

#include "exec/emit_c.hpp"

namespace cairn::cemit {

// The C type of a value of dtype t (bool: cairn_bool, a 0/1 byte).
const char *cType(DType t);
// The runtime's dtype constant: CAIRN_I32, ...
std::string rtDType(DType t);
// A C string literal of s (escaped; no trigraphs).
std::string cString(std::string_view s);
// A value of dtype t (normal-form bits) as a C constant expression of that
// type: exact (floats in hexadecimal; NaN and infinities by macro).
std::string cConst(Bits b, DType t);

// Whether the runtime has cairn_<op>_<t>, and its shape.
enum class Helper { None, Unary, Binary, Trapping };
Helper helperFor(Op op, DType t);

// The C expression of ALU op `op` (ops.def flag A) on operands a and b of
// dtype t, for both emitters; "" when the op does not take t. A trapping
// helper (idiv, mod) gets `trapArgs` first: the runtime and the op's site.
// Comparisons give a cairn_bool, everything else a value of dtype t.
std::string aluExpr(Op op, DType t, const std::string &a, const std::string &b, const std::string &trapArgs);
// A reduce's combining step, as a C statement assigning to `acc`; "" for an
// op a reduce cannot have.
std::string combineStmt(Op rop, DType t, const std::string &acc, const std::string &x);

// The `main` of a unit of one program (prefix PREFIX), and of a batch: the
// table cairn_programs of programs cairn_p0.. and, withMain, the runtime's
// batch driver. Both back ends' units end with one of them.
std::string singleMain(const std::string &prefix);
std::string batchTable(size_t programs, bool withMain);

// Appends one program's C (data arrays, PREFIX_kernel, PREFIX_entry, the
// buffer table and PREFIX_prog) to `out`. A graph it cannot emit is an
// internal error (ir/check.hpp); then `out` is unchanged.
void emitProgram(const Graph &g, const Facts &f, const Schedule &s, const EmitOptions &o, std::string &out);

}  // namespace cairn::cemit
