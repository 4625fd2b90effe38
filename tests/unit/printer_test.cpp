// The canonical printer: fixed spelling and spacing, loop bodies indented,
// comments kept, literals in canonical form, and print is a fixed point of
// parse -> print on the documentation's examples.
#include <gtest/gtest.h>

#include "ir/parser.hpp"
#include "ir/printer.hpp"

using namespace cairn;

namespace {

std::string fmt(std::string_view text) {
  Graph g;
  Diags d;
  EXPECT_TRUE(parseUir(text, g, d)) << text << (d.empty() ? "" : "\n" + d.list()[0].message);
  return printUir(g);
}

const char *kRunningTotal =
    "%b  = buffer 4 dtype=i32 slot=0 data=[1 2 3 4]\n"
    "%n  = const 3 dtype=i64\n"
    "%i  = range %n                    # i = 0, 1, 2\n"
    "  %bc = carry %b                  # the version this iteration starts from\n"
    "  %p  = shrink %bc %i shape=[]\n"
    "  %x  = load %p                   # b[i]\n"
    "  %j  = add %i 1\n"
    "  %q  = shrink %bc %j shape=[]\n"
    "  %y  = load %q                   # b[i+1], not yet overwritten\n"
    "  %z  = add %x %y\n"
    "  %s  = store %q %z\n"
    "  %bn = after %bc %s\n"
    "%e  = end %i %bn                  # carry %bn into the next iteration\n"
    "%b1 = after %b %e                 # slot 0 = [1 3 6 10]\n";

}  // namespace

TEST(Printer, CanonicalSpacingAndAttributeOrder) {
  EXPECT_EQ(fmt("%b=buffer 2 data=[1,2] slot=3 dtype=i8\n"), "%b = buffer 2 dtype=i8 slot=3 data=[1 2]\n");
  EXPECT_EQ(fmt("%b = buffer 2 dtype=i8\n%v = shrink %b   1 shape=[ 1 ]\n"),
            "%b = buffer 2 dtype=i8\n%v = shrink %b 1 shape=[1]\n");
  EXPECT_EQ(fmt("%r = range 4 parallel\n%e = end %r\n%t = reduce   min %e 2\n"),
            "%r = range 4 parallel\n%e = end %r\n%t = reduce min %e 2\n");
  EXPECT_EQ(fmt("%b = buffer 0 dtype=f32 data=[]\n"), "%b = buffer 0 dtype=f32 data=[]\n");
}

TEST(Printer, LiteralsInCanonicalForm) {
  EXPECT_EQ(fmt("%a = const +7 dtype=i32\n"), "%a = const 7 dtype=i32\n");
  EXPECT_EQ(fmt("%a = const -0 dtype=i32\n"), "%a = const 0 dtype=i32\n");
  EXPECT_EQ(fmt("%a = const 2.50 dtype=f64\n"), "%a = const 2.5 dtype=f64\n");
  EXPECT_EQ(fmt("%a = const 3. dtype=f64\n"), "%a = const 3.0 dtype=f64\n");
  EXPECT_EQ(fmt("%a = const 1e-999 dtype=f64\n"), "%a = const 0.0 dtype=f64\n");
  EXPECT_EQ(fmt("%a = const -nan dtype=f64\n"), "%a = const -nan dtype=f64\n");
  EXPECT_EQ(fmt("%a = const 18446744073709551615 dtype=u64\n"), "%a = const 18446744073709551615 dtype=u64\n");
}

TEST(Printer, IndentsLoopBodies) {
  EXPECT_EQ(fmt("%i = range 2\n%j = range 3 parallel\n%x = add %i 1\n%ej = end %j\n%ei = end %i\n"),
            "%i = range 2\n"
            "  %j = range 3 parallel\n"
            "    %x = add %i 1\n"
            "  %ej = end %j\n"
            "%ei = end %i\n");
}

TEST(Printer, KeepsComments) {
  std::string out = fmt(kRunningTotal);
  EXPECT_NE(out.find("%i = range %n  # i = 0, 1, 2\n"), std::string::npos) << out;
  EXPECT_NE(out.find("  %bc = carry %b  # the version this iteration starts from\n"), std::string::npos) << out;
  EXPECT_NE(out.find("%b1 = after %b %e  # slot 0 = [1 3 6 10]\n"), std::string::npos) << out;
  EXPECT_EQ(fmt("%a = const 1 dtype=i32\n  # above b\n%b = add %a 1\n# tail 1\n\n# tail 2\n"),
            "%a = const 1 dtype=i32\n# above b\n%b = add %a 1\n# tail 1\n# tail 2\n");
  // Comments above a loop's end are indented with the end, not the body.
  EXPECT_EQ(fmt("%i = range 2\n# closing\n%e = end %i\n"), "%i = range 2\n# closing\n%e = end %i\n");
}

TEST(Printer, FixedPoint) {
  std::string once = fmt(kRunningTotal);
  EXPECT_EQ(fmt(once), once);
}

TEST(Printer, NodeTextHasNoIndentOrComment) {
  Graph g;
  Diags d;
  ASSERT_TRUE(parseUir(kRunningTotal, g, d));
  EXPECT_EQ(nodeText(g, NodeId{3}), "%bc = carry %b");
  EXPECT_EQ(nodeText(g, NodeId{0}), "%b = buffer 4 dtype=i32 slot=0 data=[1 2 3 4]");
}

TEST(Printer, EmptyGraph) {
  Graph g;
  EXPECT_EQ(printUir(g), "");
}
