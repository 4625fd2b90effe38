// The C back end's text pieces and entry points: C spellings of types and
// values (exact: floats in hexadecimal, 64-bit limits by macro), the unit
// around the programs (the runtime's text, main), emitC /
// emitCBatch. The per-program work is exec/emit_c.cpp's.
#include <bit>
#include <cmath>
#include <cstdio>
#include <limits>

#include "exec/emit_c.hpp"
#include "exec/emit_c_impl.hpp"
#include "ir/check.hpp"

namespace cairn {

extern const char kCRuntimeText[];  // cairn_rt_text.cpp, generated from runtime/cairn_rt.h

namespace cemit {

const char *cType(DType t) {
  switch (t) {
    case DType::Bool: return "cairn_bool";
    case DType::I8: return "int8_t";
    case DType::I16: return "int16_t";
    case DType::I32: return "int32_t";
    case DType::I64: return "int64_t";
    case DType::U8: return "uint8_t";
    case DType::U16: return "uint16_t";
    case DType::U32: return "uint32_t";
    case DType::U64: return "uint64_t";
    case DType::F32: return "float";
    case DType::F64: return "double";
    default: return "int64_t";
  }
}

std::string rtDType(DType t) {
  std::string s = "CAIRN_";
  for (char c : dtypeName(t)) s += static_cast<char>(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c);
  return s;
}

std::string cString(std::string_view s) {
  std::string o = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      o += '\\';
      o += static_cast<char>(c);
    } else if (c < 32 || c >= 127 || c == '?') {  // '?': no trigraphs
      char b[8];
      std::snprintf(b, sizeof b, "\\%03o", c);
      o += b;
    } else {
      o += static_cast<char>(c);
    }
  }
  return o + "\"";
}

std::string cConst(Bits b, DType t) {
  char buf[64];
  if (t == DType::F64 || t == DType::F32) {
    double d = t == DType::F64 ? std::bit_cast<double>(b) : std::bit_cast<float>(static_cast<uint32_t>(b));
    if (d != d) return std::signbit(d) ? "(-NAN)" : "NAN";
    if (d == std::numeric_limits<double>::infinity()) return t == DType::F64 ? "((double)INFINITY)" : "INFINITY";
    if (d == -std::numeric_limits<double>::infinity()) return t == DType::F64 ? "(-(double)INFINITY)" : "(-INFINITY)";
    std::snprintf(buf, sizeof buf, "%a", d);  // hexadecimal: exact
    std::string s = buf;
    if (t == DType::F32) s += 'f';
    return s[0] == '-' ? "(" + s + ")" : s;
  }
  if (t == DType::Bool) return b ? "1" : "0";
  if (isSigned(t)) {
    auto v = static_cast<int64_t>(b);
    if (v == std::numeric_limits<int64_t>::min()) return "INT64_MIN";
    std::string s = std::to_string(v);
    if (t == DType::I64) s = "INT64_C(" + s + ")";
    return v < 0 ? "(" + s + ")" : s;
  }
  std::string s = std::to_string(b);
  return t == DType::U64 ? "UINT64_C(" + s + ")" : s + "u";
}


Helper helperFor(Op op, DType t) {
  const bool fl = isFloat(t);
  switch (op) {
    case Op::Add: case Op::Sub: case Op::Mul: case Op::Max: case Op::Min: return Helper::Binary;
    case Op::Neg: return Helper::Unary;
    case Op::Shl: case Op::Shr: return fl ? Helper::None : Helper::Binary;
    case Op::Idiv: case Op::Mod: return fl ? Helper::None : Helper::Trapping;
    case Op::Fdiv: return fl ? Helper::Binary : Helper::None;
    case Op::Recip: case Op::Sqrt: case Op::Exp2: case Op::Log2: case Op::Sin: case Op::Trunc:
      return fl ? Helper::Unary : Helper::None;
    default: return Helper::None;
  }
}

std::string aluExpr(Op op, DType t, const std::string &a, const std::string &b, const std::string &trapArgs) {
  const std::string ty = cType(t);
  switch (op) {
    case Op::Cmplt: return "(cairn_bool)(" + a + " < " + b + ")";
    case Op::Cmpne: return "(cairn_bool)(" + a + " != " + b + ")";
    case Op::Cmpeq: return "(cairn_bool)(" + a + " == " + b + ")";
    case Op::And:
    case Op::Or:
    case Op::Xor:
      if (isFloat(t)) return "";
      return "(" + ty + ")(" + a + (op == Op::And ? " & " : op == Op::Or ? " | " : " ^ ") + b + ")";
    default: break;
  }
  const std::string fn = "cairn_" + std::string(opInfo(op).name) + "_" + std::string(dtypeName(t));
  switch (helperFor(op, t)) {
    case Helper::Unary: return fn + "(" + a + ")";
    case Helper::Binary: return fn + "(" + a + ", " + b + ")";
    case Helper::Trapping: return fn + "(" + trapArgs + ", " + a + ", " + b + ")";
    case Helper::None: break;
  }
  return "";
}

std::string combineStmt(Op rop, DType t, const std::string &acc, const std::string &x) {
  switch (rop) {
    case Op::And:
    case Op::Or:
    case Op::Xor:
    case Op::Add:
    case Op::Mul:
    case Op::Max:
    case Op::Min: {
      std::string e = aluExpr(rop, t, acc, x, "");
      return e.empty() ? "" : acc + " = " + e + ";";
    }
    default: return "";
  }
}

std::string singleMain(const std::string &prefix) {
  return "\nint main(int argc, char **argv) {\n  return cairn_rt_run(&" + prefix +
         "_prog, argc - 1, argv + 1, stdout, stderr);\n}\n";
}

std::string batchTable(size_t programs, bool withMain) {
  std::string out = "\nstatic CAIRN_RT_UNUSED const cairn_rt_prog *const cairn_programs[] = {";
  for (size_t k = 0; k < programs; ++k) out += "&cairn_p" + std::to_string(k) + "_prog, ";
  if (programs == 0) out += "NULL";
  out += "};\n";
  if (withMain)
    out += "\nint main(int argc, char **argv) {\n  return cairn_rt_batch_main(cairn_programs, " +
           std::to_string(programs) + "u, argc, argv);\n}\n";
  return out;
}

}  // namespace cemit

namespace {

// Text for inside a /* comment */.
std::string commentSafe(std::string s) {
  for (size_t p; (p = s.find("*/")) != std::string::npos;) s.replace(p, 2, "* /");
  return s;
}

std::string header(const std::string &what) {
  return "/* " + commentSafe(what) +
         ", written by `cairn emit c`.\n * Build: cc -O2 -std=c11 THIS.c -lm. Run with --help for its options. */\n\n" +
         std::string(kCRuntimeText) + "\n";
}

}  // namespace

std::string_view cRuntimeText() { return kCRuntimeText; }

std::string emitC(const Graph &g, const Facts &facts, const Schedule &s, const EmitOptions &opts) {
  std::string out = header("The .uir program " + opts.sourceName);
  cemit::emitProgram(g, facts, s, opts, out);
  if (opts.withMain) out += cemit::singleMain(opts.prefix);
  return out;
}

std::string emitCBatch(const std::vector<EmitUnit> &units, const EmitOptions &opts) {
  std::string out = header(std::to_string(units.size()) + " .uir programs");
  for (size_t k = 0; k < units.size(); ++k) {
    const EmitUnit &u = units[k];
    EmitOptions o = opts;
    o.prefix = "cairn_p" + std::to_string(k);
    o.sourceName = u.sourceName;
    CAIRN_CHECK(u.graph && u.facts && u.schedule, "emitCBatch: unit " << k << " has no graph");
    cemit::emitProgram(*u.graph, *u.facts, *u.schedule, o, out);
  }
  out += cemit::batchTable(units.size(), opts.withMain);
  return out;
}

}  // namespace cairn
