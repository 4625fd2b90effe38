// Dtypes and literals: exact parsing, exact fitting, canonical printing.
//
// The edge cases are the ones a hand-written number parser gets wrong: the
// 64-bit extremes, -0, values just past a type's range, floats that are not
// integers, NaN and infinities, exponents that overflow or underflow, and
// forms that the C library accepts but .uir does not (hex, "infinity").
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <limits>

#include "ir/dtype.hpp"

using namespace cairn;

namespace {

Literal lit(std::string_view s) {
  auto l = parseLiteral(s);
  EXPECT_TRUE(l.has_value()) << s;
  return l.value_or(Literal{});
}

std::optional<Bits> fit(std::string_view s, DType t) { return literalBits(lit(s), t); }

}  // namespace

TEST(DType, NamesRoundTrip) {
  for (int i = 0; i < kNumDTypes; ++i) {
    DType t = static_cast<DType>(i);
    auto back = parseDType(dtypeName(t));
    ASSERT_TRUE(back.has_value()) << dtypeName(t);
    EXPECT_EQ(*back, t);
  }
  EXPECT_FALSE(parseDType("i128").has_value());
  EXPECT_FALSE(parseDType("").has_value());
  EXPECT_FALSE(parseDType("I32").has_value());
}

TEST(DType, WidthsAndClasses) {
  EXPECT_EQ(dtypeBits(DType::Bool), 1);
  EXPECT_EQ(dtypeBytes(DType::Bool), 1u);
  EXPECT_EQ(dtypeBytes(DType::U16), 2u);
  EXPECT_EQ(dtypeBytes(DType::F64), 8u);
  EXPECT_TRUE(isSigned(DType::I8));
  EXPECT_FALSE(isSigned(DType::U8));
  EXPECT_TRUE(isFloat(DType::F32));
  EXPECT_FALSE(isInteger(DType::Bool));
  EXPECT_EQ(intMin(DType::I64), std::numeric_limits<int64_t>::min());
  EXPECT_EQ(intMin(DType::I8), -128);
  EXPECT_EQ(intMin(DType::U32), 0);
  EXPECT_EQ(intMaxU(DType::U64), std::numeric_limits<uint64_t>::max());
  EXPECT_EQ(intMaxU(DType::I16), 32767u);
}

TEST(Literal, Integers) {
  Literal l = lit("18446744073709551615");
  EXPECT_EQ(l.kind, Literal::Kind::Int);
  EXPECT_FALSE(l.negative);
  EXPECT_EQ(l.magnitude, std::numeric_limits<uint64_t>::max());
  l = lit("-18446744073709551615");
  EXPECT_TRUE(l.negative);
  EXPECT_EQ(l.magnitude, std::numeric_limits<uint64_t>::max());
  EXPECT_FALSE(parseLiteral("18446744073709551616").has_value());  // 2^64
  EXPECT_EQ(lit("+7"), lit("7"));
  EXPECT_EQ(lit("-0"), lit("0"));  // integer zero has no sign
  EXPECT_FALSE(lit("-0").negative);
  EXPECT_EQ(lit("007").magnitude, 7u);
}

TEST(Literal, FloatsAndSpecials) {
  EXPECT_EQ(lit("1.5").kind, Literal::Kind::Float);
  EXPECT_EQ(lit("1.5").f, 1.5);
  EXPECT_EQ(lit("2e-3").f, 2e-3);
  EXPECT_EQ(lit("1E3").f, 1000.0);
  EXPECT_TRUE(std::isinf(lit("inf").f));
  EXPECT_LT(lit("-inf").f, 0);
  EXPECT_TRUE(std::isnan(lit("nan").f));
  EXPECT_FALSE(std::signbit(lit("nan").f));
  EXPECT_TRUE(std::signbit(lit("-nan").f));
  EXPECT_TRUE(std::signbit(lit("-0.0").f));
  // Out of range: IEEE rounding gives inf or (signed) zero.
  EXPECT_TRUE(std::isinf(lit("1e999").f));
  EXPECT_EQ(lit("1e-999").f, 0.0);
  EXPECT_TRUE(std::signbit(lit("-1e-999").f));
  // Subnormals survive.
  EXPECT_EQ(lit("5e-324").f, std::numeric_limits<double>::denorm_min());
  EXPECT_EQ(lit("true").kind, Literal::Kind::Bool);
  EXPECT_EQ(lit("false").magnitude, 0u);
}

TEST(Literal, Rejected) {
  for (const char *s : {"", "-", "+", "0x10", "1e", "e5", ".5", "infinity", "NaN", "Inf", "1,5", "1.5f", "--1",
                        "1-2", "abc", "True", "1 2", "\xff"})
    EXPECT_FALSE(parseLiteral(s).has_value()) << '"' << s << '"';
}

TEST(Literal, FitsExactly) {
  EXPECT_EQ(fit("255", DType::U8), Bits{255});
  EXPECT_FALSE(fit("256", DType::U8));
  EXPECT_FALSE(fit("300", DType::U8));
  EXPECT_FALSE(fit("-1", DType::U8));
  EXPECT_EQ(fit("-128", DType::I8), static_cast<Bits>(int64_t{-128}));
  EXPECT_FALSE(fit("-129", DType::I8));
  EXPECT_FALSE(fit("128", DType::I8));
  EXPECT_EQ(fit("-9223372036854775808", DType::I64), static_cast<Bits>(std::numeric_limits<int64_t>::min()));
  EXPECT_FALSE(fit("-9223372036854775809", DType::I64));
  EXPECT_FALSE(fit("9223372036854775808", DType::I64));
  EXPECT_EQ(fit("18446744073709551615", DType::U64), std::numeric_limits<uint64_t>::max());
  EXPECT_EQ(fit("4294967295", DType::U32), Bits{4294967295u});
  EXPECT_FALSE(fit("4294967296", DType::U32));
  EXPECT_FALSE(fit("1.5", DType::I32));
  EXPECT_FALSE(fit("1.0", DType::I32));  // a float literal is not an integer
  EXPECT_FALSE(fit("nan", DType::I32));
  EXPECT_FALSE(fit("true", DType::I32));
}

TEST(Literal, FitsBoolAndFloats) {
  EXPECT_EQ(fit("true", DType::Bool), Bits{1});
  EXPECT_EQ(fit("false", DType::Bool), Bits{0});
  EXPECT_EQ(fit("1", DType::Bool), Bits{1});
  EXPECT_FALSE(fit("2", DType::Bool));
  EXPECT_FALSE(fit("-1", DType::Bool));
  EXPECT_FALSE(fit("1.0", DType::Bool));
  EXPECT_EQ(fit("1.5", DType::F64), std::bit_cast<uint64_t>(1.5));
  EXPECT_EQ(fit("3", DType::F32), Bits{std::bit_cast<uint32_t>(3.0f)});
  EXPECT_EQ(fit("0.1", DType::F32), Bits{std::bit_cast<uint32_t>(0.1f)});  // rounded to nearest
  EXPECT_FALSE(fit("true", DType::F32));
  EXPECT_FALSE(literalBits(lit("1"), DType::None));
}

TEST(Literal, CanonicalText) {
  EXPECT_EQ(literalText(lit("18446744073709551615")), "18446744073709551615");
  EXPECT_EQ(literalText(lit("-18446744073709551615")), "-18446744073709551615");
  EXPECT_EQ(literalText(lit("+5")), "5");
  EXPECT_EQ(literalText(lit("-0")), "0");
  EXPECT_EQ(literalText(lit("2.0")), "2.0");  // stays a float when re-read
  EXPECT_EQ(literalText(lit("2.50")), "2.5");
  EXPECT_EQ(literalText(lit("0.1")), "0.1");
  EXPECT_EQ(literalText(lit("-0.0")), "-0.0");
  EXPECT_EQ(literalText(lit("1e300")), "1e+300");
  EXPECT_EQ(literalText(lit("nan")), "nan");
  EXPECT_EQ(literalText(lit("-nan")), "-nan");
  EXPECT_EQ(literalText(lit("-inf")), "-inf");
  EXPECT_EQ(literalText(lit("true")), "true");
}

TEST(Literal, TextRoundTripsBitForBit) {
  for (const char *s : {"0", "1", "-1", "18446744073709551615", "-9223372036854775808", "0.1", "-0.0", "5e-324",
                        "1.7976931348623157e308", "2.2250738585072014e-308", "1e-320", "nan", "-nan", "inf", "-inf",
                        "123456789.125", "true", "false"}) {
    Literal a = lit(s);
    auto b = parseLiteral(literalText(a));
    ASSERT_TRUE(b.has_value()) << s;
    EXPECT_EQ(a, *b) << s << " printed as " << literalText(a);
  }
}

TEST(Bits, Normalize) {
  EXPECT_EQ(normalize(0x1ff, DType::U8), Bits{0xff});
  EXPECT_EQ(normalize(0xff, DType::I8), static_cast<Bits>(int64_t{-1}));
  EXPECT_EQ(normalize(0x80000000u, DType::I32), static_cast<Bits>(int64_t{INT32_MIN}));
  EXPECT_EQ(normalize(2, DType::Bool), Bits{1});
  EXPECT_EQ(normalize(~Bits{0}, DType::U64), ~Bits{0});
}

TEST(Bits, Text) {
  EXPECT_EQ(bitsText(static_cast<Bits>(int64_t{-5}), DType::I32), "-5");
  EXPECT_EQ(bitsText(~Bits{0}, DType::U64), "18446744073709551615");
  EXPECT_EQ(bitsText(1, DType::Bool), "1");
  EXPECT_EQ(bitsText(std::bit_cast<uint32_t>(0.1f), DType::F32), "0.1");  // shortest for f32, not f64
  EXPECT_EQ(bitsText(std::bit_cast<uint64_t>(0.1), DType::F64), "0.1");
  EXPECT_EQ(bitsText(std::bit_cast<uint64_t>(2.0), DType::F64), "2.0");
  EXPECT_EQ(bitsText(std::bit_cast<uint64_t>(-std::numeric_limits<double>::quiet_NaN()), DType::F64), "nan");
  EXPECT_EQ(bitsText(std::bit_cast<uint32_t>(-std::numeric_limits<float>::infinity()), DType::F32), "-inf");
  EXPECT_EQ(bitsToDouble(static_cast<Bits>(int64_t{-3}), DType::I64), -3.0);
  EXPECT_EQ(bitsToDouble(std::bit_cast<uint32_t>(1.5f), DType::F32), 1.5);
}
