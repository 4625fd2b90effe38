// Dtypes and literals: names, exact literal parsing and fitting, value text.
#include "ir/dtype.hpp"

#include <bit>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>

namespace cairn {

namespace {
struct DTypeRow {
  std::string_view name;
  int bits;
};
constexpr DTypeRow kRows[] = {
#define X(e, s, w) {s, w},
    CAIRN_DTYPES(X)
#undef X
};
}  // namespace

std::string_view dtypeName(DType t) {
  return t == DType::None ? "none" : kRows[static_cast<int>(t)].name;
}

std::optional<DType> parseDType(std::string_view s) {
  for (int i = 0; i < kNumDTypes; ++i)
    if (kRows[i].name == s) return static_cast<DType>(i);
  return std::nullopt;
}

int dtypeBits(DType t) { return t == DType::None ? 0 : kRows[static_cast<int>(t)].bits; }


bool Literal::operator==(const Literal &o) const {
  if (kind != o.kind) return false;
  if (kind == Kind::Float) return std::bit_cast<uint64_t>(f) == std::bit_cast<uint64_t>(o.f);
  return negative == o.negative && magnitude == o.magnitude;
}

std::optional<Literal> parseLiteral(std::string_view s) {
  Literal l;
  if (s == "true" || s == "false") {
    l.kind = Literal::Kind::Bool;
    l.magnitude = s == "true";
    return l;
  }
  std::string_view body = s;
  bool neg = false;
  if (!body.empty() && (body[0] == '-' || body[0] == '+')) {
    neg = body[0] == '-';
    body.remove_prefix(1);
  }
  if (body.empty()) return std::nullopt;
  if (body == "inf" || body == "nan") {
    l.kind = Literal::Kind::Float;
    l.f = body == "inf" ? std::numeric_limits<double>::infinity()
                        : std::numeric_limits<double>::quiet_NaN();
    if (neg) l.f = -l.f;
    return l;
  }
  bool isInt = true;
  for (char c : body)
    if (c < '0' || c > '9') isInt = false;
  if (isInt) {
    uint64_t m = 0;
    auto [p, ec] = std::from_chars(body.data(), body.data() + body.size(), m);
    if (ec != std::errc() || p != body.data() + body.size()) return std::nullopt;  // > 2^64-1
    l.kind = Literal::Kind::Int;
    l.negative = neg && m != 0;
    l.magnitude = m;
    return l;
  }
  // A float: digits, one '.', an optional exponent. from_chars is strict and
  // locale-free; reject what it would accept but we do not (hex, "infinity").
  for (char c : body)
    if (!((c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '-' || c == '+'))
      return std::nullopt;
  if (!(body[0] >= '0' && body[0] <= '9')) return std::nullopt;
  double d = 0;
  auto [p, ec] = std::from_chars(body.data(), body.data() + body.size(), d);
  if (p != body.data() + body.size()) return std::nullopt;
  if (ec == std::errc::result_out_of_range) {
    // Too large or too small: the IEEE rounding is inf or 0; from_chars leaves d.
    bool tiny = false;
    for (const char &c : body) {  // a reference: &c below must point into body
      if (c == 'e' || c == 'E') {
        tiny = body.find('-', static_cast<size_t>(&c - body.data())) != std::string_view::npos;
        break;
      }
    }
    d = tiny ? 0.0 : std::numeric_limits<double>::infinity();
  } else if (ec != std::errc()) {
    return std::nullopt;
  }
  l.kind = Literal::Kind::Float;
  l.f = neg ? -d : d;
  return l;
}

static std::string shortestDouble(double d) {
  if (std::isnan(d)) return "nan";
  if (std::isinf(d)) return d < 0 ? "-inf" : "inf";
  char buf[64];
  auto [p, ec] = std::to_chars(buf, buf + sizeof buf, d);
  std::string s(buf, p);
  // Keep floats recognisable as floats when re-parsed ("2" would be an int).
  if (s.find_first_of(".eE") == std::string::npos) s += ".0";
  return s;
}

static std::string shortestFloat(float f) {
  if (std::isnan(f)) return "nan";
  if (std::isinf(f)) return f < 0 ? "-inf" : "inf";
  char buf[64];
  auto [p, ec] = std::to_chars(buf, buf + sizeof buf, f);
  std::string s(buf, p);
  if (s.find_first_of(".eE") == std::string::npos) s += ".0";
  return s;
}

std::string literalText(const Literal &l) {
  switch (l.kind) {
    case Literal::Kind::Bool: return l.magnitude ? "true" : "false";
    // A NaN literal keeps its sign ("-nan" parses to a negative NaN), so
    // print -> parse gives the same bits; values (bitsText) print any NaN as "nan".
    case Literal::Kind::Float: return std::isnan(l.f) && std::signbit(l.f) ? "-nan" : shortestDouble(l.f);
    case Literal::Kind::Int: return (l.negative ? "-" : "") + std::to_string(l.magnitude);
  }
  return "?";
}

int64_t intMin(DType t) {
  if (!isSigned(t)) return 0;
  return dtypeBits(t) == 64 ? std::numeric_limits<int64_t>::min() : -(int64_t{1} << (dtypeBits(t) - 1));
}

uint64_t intMaxU(DType t) {
  if (t == DType::Bool) return 1;
  int b = dtypeBits(t) - (isSigned(t) ? 1 : 0);
  return b == 64 ? std::numeric_limits<uint64_t>::max() : (uint64_t{1} << b) - 1;
}

Bits normalize(Bits raw, DType t) {
  switch (t) {
    case DType::Bool: return raw != 0;
    case DType::I8: return static_cast<Bits>(static_cast<int64_t>(static_cast<int8_t>(raw)));
    case DType::I16: return static_cast<Bits>(static_cast<int64_t>(static_cast<int16_t>(raw)));
    case DType::I32: return static_cast<Bits>(static_cast<int64_t>(static_cast<int32_t>(raw)));
    case DType::U8: return raw & 0xffu;
    case DType::U16: return raw & 0xffffu;
    case DType::U32: return raw & 0xffffffffu;
    case DType::F32: return raw & 0xffffffffu;
    default: return raw;
  }
}

std::optional<Bits> literalBits(const Literal &l, DType t) {
  if (t == DType::None) return std::nullopt;
  if (t == DType::Bool) {
    if (l.kind == Literal::Kind::Bool) return l.magnitude;
    if (l.kind == Literal::Kind::Int && l.magnitude <= 1 && !l.negative) return l.magnitude;
    return std::nullopt;
  }
  if (isFloat(t)) {
    double d;
    if (l.kind == Literal::Kind::Float) d = l.f;
    else if (l.kind == Literal::Kind::Int) d = l.negative ? -static_cast<double>(l.magnitude) : static_cast<double>(l.magnitude);
    else return std::nullopt;
    if (t == DType::F64) return std::bit_cast<uint64_t>(d);
    return std::bit_cast<uint32_t>(static_cast<float>(d));
  }
  // Integer dtype: exact integers only.
  if (l.kind != Literal::Kind::Int) return std::nullopt;
  if (l.negative) {
    if (!isSigned(t)) return std::nullopt;
    uint64_t limit = static_cast<uint64_t>(-(intMin(t) + 1)) + 1;  // |MIN|
    if (l.magnitude > limit) return std::nullopt;
    return normalize(~l.magnitude + 1, t);
  }
  if (l.magnitude > intMaxU(t)) return std::nullopt;
  return l.magnitude;
}

std::string bitsText(Bits b, DType t) {
  if (t == DType::F64) return shortestDouble(std::bit_cast<double>(b));
  if (t == DType::F32) return shortestFloat(std::bit_cast<float>(static_cast<uint32_t>(b)));
  if (isSigned(t)) return std::to_string(static_cast<int64_t>(b));
  return std::to_string(b);
}

double bitsToDouble(Bits b, DType t) {
  if (t == DType::F64) return std::bit_cast<double>(b);
  if (t == DType::F32) return std::bit_cast<float>(static_cast<uint32_t>(b));
  if (isSigned(t)) return static_cast<double>(static_cast<int64_t>(b));
  return static_cast<double>(b);
}

}  // namespace cairn
