// Scalar dtypes and literals of .uir.
//
// A scalar value at run time is 64 bits (`Bits`): integers are kept sign- or
// zero-extended from their width, bool is 0 or 1, f32 sits in the low 32 bits.
// Every producer of a `Bits` keeps that normal form, so equality of bits is
// equality of values (except floats, compared bit for bit on purpose).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace cairn {

#define CAIRN_DTYPES(X) \
  X(Bool, "bool", 1)    \
  X(I8, "i8", 8)        \
  X(I16, "i16", 16)     \
  X(I32, "i32", 32)     \
  X(I64, "i64", 64)     \
  X(U8, "u8", 8)        \
  X(U16, "u16", 16)     \
  X(U32, "u32", 32)     \
  X(U64, "u64", 64)     \
  X(F32, "f32", 32)     \
  X(F64, "f64", 64)

enum class DType : uint8_t {
#define X(e, s, w) e,
  CAIRN_DTYPES(X)
#undef X
      None,  // not a scalar (a view, event, ...), or not yet known
};
constexpr int kNumDTypes = static_cast<int>(DType::None);

std::string_view dtypeName(DType t);
std::optional<DType> parseDType(std::string_view s);
int dtypeBits(DType t);
inline bool isFloat(DType t) { return t == DType::F32 || t == DType::F64; }
inline bool isSigned(DType t) { return t >= DType::I8 && t <= DType::I64; }
inline bool isUnsigned(DType t) { return t >= DType::U8 && t <= DType::U64; }
inline bool isInteger(DType t) { return isSigned(t) || isUnsigned(t); }
// Bytes of one element in storage (bool: 1); inline, as interpreters ask
// it once per access.
inline size_t dtypeBytes(DType t) {
  constexpr uint8_t kBytes[] = {1, 1, 2, 4, 8, 1, 2, 4, 8, 4, 8, 0};  // CAIRN_DTYPES order, then None
  return kBytes[static_cast<int>(t)];
}

// A literal as written in the source. Integers keep their exact value
// (magnitude up to 2^64-1 with a sign), so "does it fit the dtype" is exact.
struct Literal {
  enum class Kind : uint8_t { Int, Float, Bool } kind = Kind::Int;
  bool negative = false;   // Int: the sign
  uint64_t magnitude = 0;  // Int: |value|; Bool: 0/1
  double f = 0;            // Float
  bool operator==(const Literal &o) const;
};

// Parses an integer, float, `true`/`false`, `inf`, `-inf` or `nan`.
std::optional<Literal> parseLiteral(std::string_view s);
// Canonical text: integers in decimal, floats in shortest round-trip form.
std::string literalText(const Literal &l);

using Bits = uint64_t;
// The literal as a value of `t`, or nullopt when it does not fit (an integer
// out of range, a fractional value for an integer type, a float for bool).
std::optional<Bits> literalBits(const Literal &l, DType t);

// Normal form of an integer of type t from any 64-bit pattern (wraps).
Bits normalize(Bits raw, DType t);
// Text of a value: integers in decimal, bool as 0/1 (as the CLI prints
// slots), floats shortest round-trip ("nan", "inf", "-inf").
std::string bitsText(Bits b, DType t);
// The value as a double (for JSON and interval analysis of integers).
double bitsToDouble(Bits b, DType t);
// The minimum and maximum of an integer type, as int128-free pairs.
int64_t intMin(DType t);  // for unsigned: 0
uint64_t intMaxU(DType t);

}  // namespace cairn
