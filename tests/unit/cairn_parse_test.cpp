// Tests of the CAIRN syntax layer (lower/lexer, lower/parser, lower/ast):
// every code example of the memory/ownership/effects spec page parses with
// no diagnostic, the tree has the expected shape (via dumpAst), and bad
// input -- malformed syntax, garbage bytes, unterminated literals, hostile
// nesting -- gives located diagnostics and never crashes or hangs.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "lower/ast.hpp"
#include "lower/lexer.hpp"
#include "lower/parser.hpp"

namespace {

using namespace cairn;

struct SpecExample {
  int line;
  const char *text;
};

// The code of every example on the spec page cairn-memory-ownership-effects.md,
// one string per run of code lines (the line numbers are the page's).
const SpecExample kSpecExamples[] = {
    {9, R"cairn(fn fill(n:usize, out:rw<u8>[n], value:u8) { for i in 0..n { out[i] = value; } }
fn checksum(n:usize, bytes:ro<u8>[n]) -> u32 {
let mut sum:u32 = 0;
for byte in bytes { sum = add_wrap(sum, u32(byte)); }
return sum;
}
fn bump(seen:rw<u64>) { seen += 1; } // a single borrow, assigned by name
fn main() -> i32 {
stack frame:u8[16] = zeroed;
let mut seen:u64 = 0;
fill(len(frame), frame, 3);
bump(seen);
if checksum(len(frame), frame) != 48 || seen != 1 { return 1; }
return 0;
})cairn"},
    {25, R"cairn(fn checksum(n:usize, bytes:ro<u8>[n]) -> u32 = u32(bytes[0]);
fn main() -> i32 { let a = Buf[u8](8); let b = Buf[u8](8); return i32(checksum(len(a), b)); })cairn"},
    {30, R"cairn(fn checksum(n:usize, bytes:ro<u8>[n]) -> u32 {
let mut sum:u32 = 0;
for byte in bytes { sum = add_wrap(sum, u32(byte)); }
return sum;
}
fn main() -> i32 {
let frame = "\x07\x00\x00\x00hello";
let n = len(frame);
if checksum(n - 4, frame[4..n]) != 532 { return 1; } // the payload, after a header of four bytes
if checksum(2, frame[4..n][0..2]) != 104 + 101 { return 2; }
return 0;
}
fn checksum(n:usize, bytes:ro<u8>[n]) -> u32 = u32(bytes[0]);
fn header_size() -> usize = 4;
fn main() -> i32 { let frame = "\x07\x00\x00\x00hi"; return i32(checksum(2, frame[header_size()..6])); })cairn"},
    {48, R"cairn(fn dot(n:usize, xs:ro<u64>[n], ys:ro<u64>[n]) -> u64 {
let mut t:u64 = 0;
for i in 0..n { t += xs[i] * ys[i]; }
return t;
}
fn main() -> i32 {
let mut v = Buf[u64](8);
for i in 0..8 { v[i] = u64(i); }
if dot(v, v) != dot(len(v), v, v) { return 1; } // the same call
if dot(v[0..4], v[4..8]) != 0 * 4 + 1 * 5 + 2 * 6 + 3 * 7 { return 2; }
return 0;
}
fn dot(n:usize, xs:ro<u64>[n], ys:ro<u64>[n]) -> u64 = xs[0] * ys[0];
fn main() -> i32 { let a = Buf[u64](8); let b = Buf[u64](8); return i32(dot(a, b)); })cairn"},
    {65, R"cairn(struct Line { data:Buf[u8]; len:usize; lends data[0..len]; }
fn sum(n:usize, bytes:ro<u8>[n]) -> u64 {
let mut t:u64 = 0;
for b in bytes { t += u64(b); }
return t;
}
fn main() -> i32 {
let mut line = Line(Buf[u8](8), 2);
line.data[0] = 3;
line.data[1] = 4;
if sum(line) != 7 || sum(line.data[0..line.len]) != 7 { return 1; } // the same call
let mut seen:u64 = 0;
for b in line { seen += u64(b); }
if seen != 7 { return 2; }
return 0;
})cairn"},
    {82, R"cairn(struct Line { data:Buf[u8]; len:u32; lends data[0..len]; }
fn main() -> i32 { let line = Line(Buf[u8](8), 2); return 0; })cairn"},
    {88, R"cairn(fn swap_ends(n:usize, a:rw<u8>[n], b:rw<u8>[n]) { swap(a[0], b[0]); }
fn main() -> i32 { let mut frame = Buf[u8](8); swap_ends(4, frame[0..4], frame[2..6]); return 0; })cairn"},
    {94, R"cairn(fn main() -> i32 { let mut frame = Buf[u8](8); let payload = frame[4..8]; return 0; })cairn"},
    {98, R"cairn(fn checksum(n:usize, bytes:ro<u8>[n]) -> u32 {
let mut sum:u32 = 0;
for byte in bytes { sum = add_wrap(sum, u32(byte)); }
return sum;
}
fn main() -> i32 {
let n:usize = 4;
buffer scratch:u8[n] = zeroed; // heap storage for this block; its extent is n
stack header:u8[4] = zeroed; // fixed local storage, at most 65536 bytes per function
let mut body = Buf[u8](n); // an owner, which can move; its extent is len(body)
let mut tag = Array[u8, 4](); // a fixed array stored inline as a value
body[0] = 9;
tag[3] = 1;
if checksum(n, scratch) + checksum(4, header) != 0 || checksum(len(body), body) != 9 { return 1; }
if checksum(4, tag) != 1 { return 2; }
return 0;
})cairn"},
    {120, R"cairn(fn sink(b:Buf[u8]) {} // its row is free
fn hand_on(b:Buf[u8]) -> Buf[u8] = b; // its row is empty
fn main() -> i32 {
let first = Buf[u8](4);
sink(first);
let second = Buf[u8](4);
let same = hand_on(second);
sink(same);
return 0;
}
fn send(body:Buf[u8]) -> usize = len(body);
fn main() -> i32 { let body = Buf[u8](4); let once = send(body); let twice = send(body); return 0; })cairn"},
    {135, R"cairn(struct Ring { slots:Buf[u8]; used:usize; }
fn grow(r:rw<Ring>, room:usize) {
let mut bigger = Buf[u8](room);
for i in 0..r.used { swap(bigger[i], r.slots[i]); }
swap(bigger, r.slots); // the old array is released here
}
fn main() -> i32 {
let mut ring = Ring(Buf[u8](2), 2);
ring.slots[1] = 5;
grow(ring, 8);
let old = take(ring.slots); // leaves an empty Buf in the field
if len(old) != 8 || old[1] != 5 || len(ring.slots) != 0 { return 1; }
return 0;
}
struct Ring { slots:Buf[u8]; used:usize; }
fn main() -> i32 { let mut ring = Ring(Buf[u8](2), 0); let slots = ring.slots; return 0; })cairn"},
    {153, R"cairn(struct Tree { kids:Buf[Tree]; val:u64; }
fn main() -> i32 { let mut t = Tree(Buf[Tree](2), 1); swap(t, t.kids[0]); return 0; })cairn"},
    {157, R"cairn(struct Ring { slots:Buf[u8]; used:usize; }
fn drain(r:Ring) -> usize {
let Ring(slots, used) = r; // r is gone; slots is an owner again
return len(slots) + used;
}
fn main() -> i32 {
let mut ring = Ring(Buf[u8](4), 0);
ring.used = 3;
if drain(ring) != 7 { return 1; }
return 0;
})cairn"},
    {171, R"cairn(linear struct Lease { id:u64; }
fn renew(l:Lease) -> Lease { let Lease(id) = l; return Lease(id + 1); }
fn release(l:Lease, freed:rw<u64>) { let Lease(id) = l; freed += id; }
fn main() -> i32 {
let mut freed:u64 = 0;
let mut lease = Lease(1);
lease = renew(lease); // lease 1 is consumed before lease 2 lands
let mut next = Lease(10);
swap(lease, next); // lease holds 10, next holds 2
release(next, freed);
release(lease, freed);
if freed != 12 { return 1; }
return 0;
}
linear struct Lease { id:u64; }
fn release(l:Lease) { let Lease(id) = l; }
fn main() -> i32 { let mut lease = Lease(1); lease = Lease(2); release(lease); return 0; })cairn"},
    {189, R"cairn(linear struct Lease { id:u64; }
fn acquire(id:u64) -> Lease = Lease(id);
fn release(l:Lease, freed:rw<u64>) { let Lease(id) = l; freed += id; }
fn main() -> i32 {
let mut freed:u64 = 0;
{
let lease = acquire(7);
defer release(lease, freed); // runs at this block's exit
}
if freed != 7 { return 1; }
return 0;
}
linear struct Lease { id:u64; }
fn acquire(id:u64) -> Lease = Lease(id);
fn release(l:Lease) { let Lease(id) = l; }
fn main() -> i32 { let lease = acquire(7); if true { release(lease); } return 0; })cairn"},
    {207, R"cairn(fn report(v:u8, seen:rw<u64>) { seen += u64(v); }
fn sink(b:Buf[u8]) {}
fn main() -> i32 { let mut seen:u64 = 0; let b = Buf[u8](4); { defer report(b[2], seen); sink(b); } return 0; })cairn"},
    {252, R"cairn(fn checksum(n:usize, bytes:ro<u8>[n]) -> u32 pure {
let mut sum:u32 = 0;
for byte in bytes { sum = add_wrap(sum, u32(byte)); }
return sum;
}
fn main() -> i32 {
if checksum(len("abc"), "abc") != 294 { return 1; }
return 0;
}
fn fill(n:usize, out:rw<u8>[n], value:u8) pure { for i in 0..n { out[i] = value; } })cairn"},
    {266, R"cairn(fn fill(n:usize, out:rw<u8>[n], value:u8) -> usize { for i in 0..n { out[i] = value; } return n; }
fn main() -> i32 { let mut frame = Buf[u8](4); let done = fill(len(frame), frame, 1) + len(frame); return 0; })cairn"},
    {270, R"cairn(struct Input { at:u64; }
fn next(inp:rw<Input>) -> u64 { inp.at += 1; return inp.at; }
fn main() -> i32 {
let mut inp = Input(0);
let n = usize(next(inp)); // a call that writes, as a conversion's operand
let m = -i64(next(inp));
if n != 1 || m != -2 { return 1; }
return 0;
})cairn"},
    {280, R"cairn(extern fn putchar(c:i32) -> i32 effects(io);
fn say(c:i32) -> i32 { unsafe { return putchar(c); } }
fn main() -> i32 { return say(65) + say(66) - 131; })cairn"},
    {287, R"cairn(extern fn write(fd:i32, data:ro<u8>[n], n:usize) -> i64 effects(io);
fn say(n:usize, text:ro<u8>[n]) { unsafe { let sent = write(1, text, n); } }
fn main() -> i32 {
say(len("frame sent\n"), "frame sent\n");
return 0;
})cairn"},
    {296, R"cairn(struct Header packed { kind:u8; size:u32; } // five bytes, no padding
struct Slot align(64) { hits:u64; } // one cache line apiece
fn main() -> i32 {
let head = Header(7, 1480);
let slot = Slot(1);
if head.size != 1480 || slot.hits != 1 { return 1; }
return 0;
})cairn"},
    {305, R"cairn(fn wake(base:usize) {
unsafe {
let status = mmio_read[u32](base);
mmio_write[u32](base + 4, status | 1);
asm("wfi");
}
})cairn"},
    {314, R"cairn(fn high(a:u64, b:u64) -> u64 {
unsafe {
asm x86_64 "movq %1, %%rax; mulq %2; movq %%rdx, %0" (out hi:u64, a, b) clobbers(rax, rdx);
return hi;
}
}
fn reversed(n:usize, out:rw<u32>[n]@device, xs:ro<u32>[n]@device) {
parallel i in n {
unsafe {
asm ptx sm_75 "brev.b32 %0, %1;" (out r:u32, xs[i]);
out[i] = r;
}
}
})cairn"},
    {332, R"cairn(fn settle(n:usize, out:rw<u32>[n]@device) {
parallel i in n {
unsafe { asm ptx sm_75 "bar.sync 0;" effects(barrier); }
out[i] = 0;
}
})cairn"},
    {341, R"cairn(layout TILE = pad(rows(32, 32), 1); // 32 x 32, rows 33 elements apart
layout LOAD = spread(TILE, 8, 32, 1, 1); // 256 participants, 4 elements each
layout STORE = spread(transpose(TILE), 8, 32, 1, 1);
const CELLS:usize = TILE.cosize(); // 1055
fn through(out:rw<f32>[1024], x:ro<f32>[1024]) {
buffer s:f32[CELLS] = zeroed;
for t in 0..LOAD.participants() {
for v in 0..LOAD.values() { s[LOAD.at(t, v)] = x[LOAD.row(t, v) * 32 + LOAD.col(t, v)]; }
}
for t in 0..STORE.participants() { // out is x transposed, whatever TILE's storage
for v in 0..STORE.values() { out[STORE.row(t, v) * 32 + STORE.col(t, v)] = s[STORE.at(t, v)]; }
}
})cairn"},
    {358, R"cairn(layout TILE = rows(32, 32);
layout LOAD = spread(TILE, 7, 32, 1, 1); // 224 participants leave rows 28 to 31 to nobody)cairn"},
    {361, R"cairn(layout FRAGMENTS = rows(4, 4);
layout WARPS = spread(FRAGMENTS, 2, 4, 2, 2); // 8 participants of 4 fragments each, for 16 fragments)cairn"},
    {365, R"cairn(layout TILE = rows(32, 32);
layout WIDE = rows(64, 32);
layout LOAD = spread(TILE, 8, 32, 1, 1);
fn at(t:usize, v:usize) -> usize = WIDE.at(LOAD.row(t, v), LOAD.col(t, v));)cairn"},
    {376, R"cairn([foreign]
"vendor/histogram.cpp" = ["histogram_u32_interleaved"]
"vendor/stencil.cu" = ["stencil_1d_tiled"]
fn blend3(l:f32, c:f32, r:f32) -> f32 = 0.25 * l + 0.5 * c + 0.25 * r;
fn stencil_1d(n:usize, out:rw<f32>[n]@device, x:ro<f32>[n]@device)
effects(read:x, write:out, trap, ffi_precondition, par:device, ffi:stencil_1d_tiled) {
parallel i in n {
if i > 0 && i + 1 < n { out[i] = blend3(x[i - 1], x[i], x[i + 1]); } else { out[i] = x[i]; }
}
}
extern "stencil_1d_tiled" fn stencil_launch(n:usize, out:rw<f32>[n]@device, x:ro<f32>[n]@device) launch(n, 256)
effects();
fn stencil_tiled(n:usize, out:rw<f32>[n]@device, x:ro<f32>[n]@device) implements stencil_1d {
unsafe { stencil_launch(n, out, x); }
}
plan stencil_1d use stencil_tiled;)cairn"},
};

std::string diagText(const Diags &d) {
  std::string s;
  for (const auto &x : d.list())
    s += std::to_string(x.loc.line) + ":" + std::to_string(x.loc.col) + ": " + x.message + " [" + x.rule + "]\n";
  return s;
}

// Parses `src`, expecting no diagnostic; returns the dump.
std::string dumpOk(const std::string &src) {
  ast::Module m;
  Diags d;
  bool ok = parseCairn(src, 0, m, d);
  EXPECT_TRUE(ok) << src << "\n" << diagText(d);
  EXPECT_TRUE(d.empty()) << diagText(d);
  return ast::dumpAst(m);
}

// The dump of the expression in `fn f() = EXPR;`.
std::string exprDump(const std::string &e) {
  ast::Module m;
  Diags d;
  EXPECT_TRUE(parseCairn("fn f() = " + e + ";", 0, m, d)) << e << "\n" << diagText(d);
  if (m.top.empty()) return "<none>";
  return ast::dumpExpr(m, m.item(m.top[0]).exprBody);
}

Diags parseBad(const std::string &src, ast::Module *out = nullptr) {
  ast::Module m;
  Diags d;
  EXPECT_FALSE(parseCairn(src, 0, m, d)) << src;
  EXPECT_FALSE(d.empty());
  if (out) *out = std::move(m);
  return d;
}

TEST(CairnParseSpec, EveryExampleParses) {
  for (const SpecExample &ex : kSpecExamples) {
    ast::Module m;
    Diags d;
    EXPECT_TRUE(parseCairn(ex.text, 3, m, d)) << "spec line " << ex.line << ":\n" << diagText(d);
    EXPECT_FALSE(m.top.empty()) << "spec line " << ex.line;
    for (const ast::Item &it : m.items) EXPECT_EQ(it.span.file, 3u);
  }
}

TEST(CairnParseSpec, ExampleShapes) {
  std::string d = dumpOk("fn bump(seen:rw<u64>) { seen += 1; }\n"
                         "fn main() -> i32 { stack frame:u8[16] = zeroed; buffer s:f32[CELLS]@device = zeroed; }");
  EXPECT_NE(d.find("(fn bump ((seen (rw u64))) _ (block (assign += seen 1)))"), std::string::npos) << d;
  EXPECT_NE(d.find("(stack frame (storage u8 16) zeroed)"), std::string::npos) << d;
  EXPECT_NE(d.find("(buffer s (storage f32 CELLS @device) zeroed)"), std::string::npos) << d;
  d = dumpOk("struct Line { data:Buf[u8]; len:usize; lends data[0..len]; }");
  EXPECT_EQ(d, "(struct Line (data (type Buf [u8])) (len usize) (lends data 0 len))\n");
  d = dumpOk("struct Header packed { kind:u8; size:u32; } struct Slot align(64) { hits:u64; }\n"
             "linear struct Lease { id:u64; }");
  EXPECT_EQ(d, "(struct Header packed (kind u8) (size u32))\n(struct Slot (align 64) (hits u64))\n"
               "(linear struct Lease (id u64))\n");
  d = dumpOk("fn drain(r:Ring) -> usize { let Ring(slots, _) = r; let mut m.R(a) = q; return len(slots); }");
  EXPECT_NE(d.find("(unpack (Ring) (slots _) r) (unpack-mut (m.R) (a) q)"), std::string::npos) << d;
}

TEST(CairnParseExpr, Precedence) {
  EXPECT_EQ(exprDump("1 + 2 * 3"), "(+ 1 (* 2 3))");
  EXPECT_EQ(exprDump("a - b - c"), "(- (- a b) c)");
  EXPECT_EQ(exprDump("a || b && c"), "(|| a (&& b c))");
  EXPECT_EQ(exprDump("a == b || c != d"), "(|| (== a b) (!= c d))");
  EXPECT_EQ(exprDump("a & b == c"), "(& a (== b c))");  // C's levels
  EXPECT_EQ(exprDump("a | b ^ c & d"), "(| a (^ b (& c d)))");
  EXPECT_EQ(exprDump("a << 2 + 1 < b"), "(< (<< a (+ 2 1)) b)");
  EXPECT_EQ(exprDump("-a * !b"), "(* (- a) (! b))");
  EXPECT_EQ(exprDump("-i64(next(inp))"), "(- (call i64 (call next inp)))");
  EXPECT_EQ(exprDump("(a + b) * c"), "(* (+ a b) c)");
  EXPECT_EQ(exprDump("~x % 7"), "(% (~ x) 7)");
  EXPECT_EQ(exprDump("try head(n, b)"), "(try (call head n b))");
}

TEST(CairnParseExpr, LiteralsAndPostfix) {
  EXPECT_EQ(exprDump("0xff_ff + 0b1010 + 1_000"), "(+ (+ 65535 10) 1000)");
  EXPECT_EQ(exprDump("18446744073709551615"), "18446744073709551615");
  EXPECT_EQ(exprDump("2.5e-3 + 100.0"), "(+ (float 2.5e-3) (float 100.0))");
  EXPECT_EQ(exprDump("'c'"), "(char 99)");
  EXPECT_EQ(exprDump(R"("\x07a\n\t\\\"\0")"), R"("\x07a\x0a\x09\\\"\x00")");
  EXPECT_EQ(exprDump("frame[4..n][0..2]"), "(part (part frame 4 n) 0 2)");
  EXPECT_EQ(exprDump("line.data[0..line.len]"), "(part (. line data) 0 (. line len))");
  EXPECT_EQ(exprDump("xs[i - 1]"), "(index xs (- i 1))");
  EXPECT_EQ(exprDump("LOAD.at(t, v)"), "(call (. LOAD at) t v)");
  EXPECT_EQ(exprDump("Buf[u8](n)"), "(call (inst Buf [u8]) n)");
  EXPECT_EQ(exprDump("Array[u64, 4]()"), "(call (inst Array [u64 4]))");
  EXPECT_EQ(exprDump("mmio_read[u32](base + 4)"), "(call (inst mmio_read [u32]) (+ base 4))");
  EXPECT_EQ(exprDump("Buf[Buf[u8]](2)"), "(call (inst Buf [(type Buf [u8])]) 2)");
  EXPECT_EQ(exprDump("Dyn[Shape](Square(3))"), "(call (inst Dyn [Shape]) (call Square 3))");
  EXPECT_EQ(exprDump("Op.Read == Op.Write"), "(== (. Op Read) (. Op Write))");
  parseBad("fn f() = 0..n;");  // `..` is not an operator
}

TEST(CairnParseExpr, GenericsFromDeclarationsAndImports) {
  std::string d = dumpOk("import std.vec (Vec);\nenum Option[T] { Some(T); None; }\n"
                         "fn largest[T, K:nat + copy](a:T, b:T) -> T = a;\n"
                         "fn main() -> i32 { let v = Vec[u64](); let o = Option[u64].None;"
                         " let x = largest[u64](3, 9); let y = xs[3]; return 0; }");
  EXPECT_NE(d.find("(import (std.vec) (Vec))"), std::string::npos) << d;
  EXPECT_NE(d.find("(enum Option [T] (Some T) (None))"), std::string::npos) << d;
  EXPECT_NE(d.find("(fn largest [T K:nat:copy] ((a T) (b T)) T (= a))"), std::string::npos) << d;
  EXPECT_NE(d.find("(call (inst Vec [u64]))"), std::string::npos) << d;
  EXPECT_NE(d.find("(. (inst Option [u64]) None)"), std::string::npos) << d;
  EXPECT_NE(d.find("(call (inst largest [u64]) 3 9)"), std::string::npos) << d;
  EXPECT_NE(d.find("(index xs 3)"), std::string::npos) << d;
}

TEST(CairnParseItem, FunctionsAndClauses) {
  std::string d = dumpOk(
      "fn inc(x:u64) -> u64 = add_wrap(x, 1);\n"
      "extern fn write(fd:i32, data:ro<u8>[n], n:usize) -> i64 effects(io);\n"
      "extern \"close\" fn close_fd(fd:i32) -> i32 effects(io, ffi:close);\n"
      "fn c(n:usize, bytes:ro<u8>[n]) -> u32 pure { return 0; }\n"
      "extern \"k\" fn go(n:usize, out:rw<f32>[n]@device) launch(n, 256)\n effects();\n"
      "fn t(n:usize, out:rw<f32>[n]@unified) implements stencil_1d effects(read:x, par:device) { }\n"
      "kernel fn at(w:usize, n:usize, grid:ro<f32>[n]@device, x:usize) -> f32 = grid[x];\n"
      "plan stencil_1d use stencil_tiled;\nconst CELLS:usize = TILE.cosize();\n"
      "layout TILE = pad(rows(32, 32), 1);\nmodule net.http;\nimport a.b as c;\n"
      "fn apply(f:ro<fn(u64) -> u64>, s:ro<dyn Shape>) { }\n");
  EXPECT_NE(d.find("(fn inc ((x u64)) u64 (= (call add_wrap x 1)))"), std::string::npos) << d;
  EXPECT_NE(d.find("(extern fn write ((fd i32) (data (ro u8 n)) (n usize)) i64 (effects io))"), std::string::npos)
      << d;
  EXPECT_NE(d.find("(extern fn close_fd \"close\" ((fd i32)) i32 (effects io ffi:close))"), std::string::npos) << d;
  EXPECT_NE(d.find("u32 pure (block (return 0)))"), std::string::npos) << d;
  EXPECT_NE(d.find("(out (rw f32 n @device))) _ (effects) (launch n 256))"), std::string::npos) << d;
  EXPECT_NE(d.find("(effects read:x par:device) (implements stencil_1d) (block))"), std::string::npos) << d;
  EXPECT_NE(d.find("(kernel fn at"), std::string::npos) << d;
  EXPECT_NE(d.find("(plan stencil_1d stencil_tiled)"), std::string::npos) << d;
  EXPECT_NE(d.find("(const CELLS usize (call (. TILE cosize)))"), std::string::npos) << d;
  EXPECT_NE(d.find("(layout TILE (call pad (call rows 32 32) 1))"), std::string::npos) << d;
  EXPECT_NE(d.find("(module (net.http))"), std::string::npos) << d;
  EXPECT_NE(d.find("(import (a.b) as c)"), std::string::npos) << d;
  EXPECT_NE(d.find("((f (ro (fn (u64) u64))) (s (ro (dyn Shape))))"), std::string::npos) << d;
}

TEST(CairnParseItem, EnumsMatchTraits) {
  std::string d = dumpOk(
      "enum Parsed { Ok(Header); Short(usize); }\n"
      "fn main() -> i32 { match parse(2, \"hi\") { Parsed.Ok(head) => { return 3; } Parsed.Short(got) => "
      "{ if got != 2 { return 4; } } } match op { Op.Read => { break; } Op.Write => continue; } return 0; }\n"
      "trait Shape { fn area(self:ro<Self>) -> u64; }\n"
      "impl Shape for Square { fn area(self:ro<Square>) -> u64 = self.side * self.side; }\n"
      "impl[T:integer] Ord for T { }\n");
  EXPECT_NE(d.find("(enum Parsed (Ok Header) (Short usize))"), std::string::npos) << d;
  EXPECT_NE(d.find("(match (call parse 2 \"hi\") (arm Parsed.Ok) head (block (return 3)) (arm Parsed.Short) got"),
            std::string::npos) << d;
  EXPECT_NE(d.find("(arm Op.Read) (block (break)) (arm Op.Write) (block (continue)))"), std::string::npos) << d;
  EXPECT_NE(d.find("(trait Shape (fn area ((self (ro Self))) u64))"), std::string::npos) << d;
  EXPECT_NE(d.find("(impl Shape for Square (fn area"), std::string::npos) << d;
  EXPECT_NE(d.find("(impl Ord [T:integer] for T)"), std::string::npos) << d;
}

TEST(CairnParseStmt, ControlFlowAndDevice) {
  std::string d = dumpOk(
      "fn f(n:usize) {\n"
      "  while i < n { i += 1; if i == 3 { break; } else if i == 4 { continue; } else { } }\n"
      "  for i in 0..n { } for b in line { }\n"
      "  parallel i in n after up, dn { out[i] = 0; }\n"
      "  x <<= 2; x >>= 1; x %= 3; x &= 1; x |= 2; x ^= 3; x -= 1; x *= 2; x /= 2;\n"
      "  defer release(lease, freed);\n"
      "  unsafe { asm(\"wfi\"); asm volatile x86_64 \"rdtsc\" (out t:u64) effects(io); }\n"
      "  apply(n, xs, |x:u64| -> u64 { return x + bias; });\n"
      "  let s:ro<ro<u8>>= 1;\n"
      "  return;\n"
      "}\n");
  EXPECT_NE(d.find("(if (== i 3) (block (break)) (if (== i 4) (block (continue)) (block)))"), std::string::npos) << d;
  EXPECT_NE(d.find("(for i 0 n (block)) (for-each b line (block))"), std::string::npos) << d;
  EXPECT_NE(d.find("(parallel i n (after up dn) (block (assign = (index out i) 0)))"), std::string::npos) << d;
  EXPECT_NE(d.find("(assign <<= x 2) (assign >>= x 1) (assign %= x 3)"), std::string::npos) << d;
  EXPECT_NE(d.find("(defer (call release lease freed))"), std::string::npos) << d;
  EXPECT_NE(d.find("(expr (call asm \"wfi\")) (asm x86_64 volatile \"rdtsc\" (out t u64) (effects io))"),
            std::string::npos) << d;
  EXPECT_NE(d.find("(closure ((x u64)) u64 (block (return (+ x bias))))"), std::string::npos) << d;
  EXPECT_NE(d.find("(let s (ro (ro u8)) 1)"), std::string::npos) << d;  // `>>=` split
  EXPECT_NE(d.find("(return _)"), std::string::npos) << d;
}

TEST(CairnParseStmt, TypedAsm) {
  std::string d = dumpOk(
      "fn h(a:u64, b:u64) -> u64 { unsafe {\n"
      "  asm x86_64 \"movq %1, %%rax; mulq %2\" (out hi:u64, a, b) clobbers(rax, rdx);\n"
      "  asm ptx sm_75 \"brev.b32 %0, %1;\" (out r:u32 = 0, xs[i]) effects(read:xs);\n"
      "  return hi; } }");
  EXPECT_NE(d.find("(asm x86_64 \"movq %1, %%rax; mulq %2\" (out hi u64) a b (clobbers rax rdx))"), std::string::npos)
      << d;
  EXPECT_NE(d.find("(asm ptx sm_75 \"brev.b32 %0, %1;\" (out r u32 0) (index xs i) (effects read:xs))"),
            std::string::npos) << d;
}

TEST(CairnParseStmt, SpansAreLocated) {
  ast::Module m;
  Diags d;
  ASSERT_TRUE(parseCairn("fn main() -> i32 {\n  let x = a +\n    b;\n  return 0;\n}\n", 7, m, d)) << diagText(d);
  const ast::Item &f = m.item(m.top[0]);
  EXPECT_EQ(f.span.line, 1u);
  EXPECT_EQ(f.span.col, 1u);
  EXPECT_EQ(f.span.endLine, 5u);
  EXPECT_EQ(f.span.endCol, 2u);
  const ast::Stmt &let = m.stmt(m.stmt(f.body).stmts[0]);
  EXPECT_EQ(let.span.line, 2u);
  EXPECT_EQ(let.span.col, 3u);
  const ast::Expr &sum = m.expr(let.value);
  EXPECT_EQ(sum.span.line, 2u);
  EXPECT_EQ(sum.span.col, 11u);
  EXPECT_EQ(sum.span.endLine, 3u);
  EXPECT_EQ(sum.span.endCol, 6u);
  EXPECT_EQ(sum.span.file, 7u);
}

TEST(CairnParseError, LocatedAndRecovers) {
  ast::Module m;
  Diags d = parseBad("fn main() -> i32 {\n  let x = 1\n  return x;\n}\nfn g() { let y = ; }\nfn h() { }\n", &m);
  ASSERT_EQ(d.size(), 2u) << diagText(d);
  EXPECT_EQ(d.list()[0].loc.line, 3u);
  EXPECT_EQ(d.list()[0].loc.col, 3u);
  EXPECT_EQ(d.list()[0].rule, "E-PARSE");
  EXPECT_EQ(d.list()[0].message, "expected `;` after the `let` statement, found `return`");
  EXPECT_EQ(d.list()[1].loc.line, 5u);
  EXPECT_EQ(d.list()[1].message, "expected an expression, found `;`");
  ASSERT_EQ(m.top.size(), 3u);  // every function is still there
  EXPECT_EQ(m.item(m.top[2]).name, "h");
}

TEST(CairnParseError, MessagesSayExpectedAndFound) {
  Diags d = parseBad("fn f() { x = 1 }");
  EXPECT_EQ(d.list()[0].message, "expected `;` after the assignment, found `}`");
  d = parseBad("struct S { a u8; }");
  EXPECT_EQ(d.list()[0].message, "expected `:` after the field's name, found `u8`");
  d = parseBad("fn f(x:u8 { }");
  EXPECT_EQ(d.list()[0].message, "expected `)` to close the parameter list, found `{`");
  d = parseBad("garbage here;\nfn ok() { }");
  EXPECT_EQ(d.size(), 1u) << diagText(d);
  EXPECT_EQ(d.list()[0].message, "expected an item (`fn`, `struct`, `enum`, `const`, `import`, ...), found `garbage`");
}

TEST(CairnParseError, LexErrors) {
  Diags d = parseBad("fn f() { let s = \"abc\n; }");
  EXPECT_EQ(d.list()[0].rule, "E-LEX");
  EXPECT_EQ(d.list()[0].loc.line, 1u);
  EXPECT_EQ(d.list()[0].loc.col, 18u);
  EXPECT_NE(d.list()[0].message.find("unterminated string"), std::string::npos);
  d = parseBad("fn f() { } /* never closed");
  EXPECT_NE(d.list()[0].message.find("unterminated block comment"), std::string::npos);
  d = parseBad("fn f() = 99999999999999999999;");
  EXPECT_NE(d.list()[0].message.find("does not fit in 64 bits"), std::string::npos);
  d = parseBad("fn f() = \"\\q\";");
  EXPECT_NE(d.list()[0].message.find("unknown escape"), std::string::npos);
  d = parseBad("fn f() = \"\\x4\";");
  EXPECT_NE(d.list()[0].message.find("two hex digits"), std::string::npos);
  d = parseBad(std::string("fn f() { }\n") + "\x01\x02\x03" + " fn g() { }");
  EXPECT_EQ(d.size(), 1u) << diagText(d);
  EXPECT_EQ(d.list()[0].loc.line, 2u);
  d = parseBad(std::string("// ok\n// \xff\xfe\nfn f() { }"));
  EXPECT_NE(d.list()[0].message.find("invalid UTF-8"), std::string::npos);
  d = parseBad(std::string("fn f() {\0}", 10));
  EXPECT_NE(d.list()[0].message.find("NUL"), std::string::npos);
  d = parseBad("fn f() = 12abc + 0x;");
  EXPECT_GE(d.size(), 1u);
  d = parseBad("fn " + std::string(5000, 'a') + "() { }");
  EXPECT_NE(d.list()[0].message.find("too long"), std::string::npos);
}

TEST(CairnParseError, DeepNestingIsRefused) {
  for (std::string open : {"(", "{", "-", "ro<", "a[", "if x {"}) {
    std::string src = open == "ro<" ? "fn f(x:" : open == "{" || open == "if x {" ? "fn f() " : "fn f() = ";
    if (open == "if x {") src += "{";
    for (int i = 0; i < 100000; ++i) src += open;
    src += " 1 ";
    ast::Module m;
    Diags d;
    EXPECT_FALSE(parseCairn(src, 0, m, d)) << open;
    ASSERT_FALSE(d.empty()) << open;
    EXPECT_NE(diagText(d).find("deeper than 256"), std::string::npos) << open << "\n" << diagText(d);
    ast::dumpAst(m);  // the tree it did build is shallow enough to walk
  }
  std::string chain = "fn f() = 1";
  for (int i = 0; i < 100000; ++i) chain += " + 1";
  chain += ";";
  Diags d = parseBad(chain);
  EXPECT_NE(diagText(d).find("deeper than 256"), std::string::npos) << diagText(d);
  std::string ok = "fn f() = 1";
  for (int i = 0; i < 200; ++i) ok += " + 1";
  dumpOk(ok + ";");
}

TEST(CairnParseError, ErrorCountIsCapped) {
  std::string src;
  for (int i = 0; i < 5000; ++i) src += "fn ( ;\n";
  ast::Module m;
  Diags d;
  EXPECT_FALSE(parseCairn(src, 0, m, d));
  EXPECT_LE(d.size(), Diags::kLimit);
  EXPECT_TRUE(d.truncated() || d.size() == Diags::kLimit);
}

TEST(CairnParseError, RandomBytesNeverCrash) {
  std::mt19937_64 rng(12345);
  std::string alphabet = "fn let struct(){}[]<>;:.,=+-*/%&|^!~@\"'\\ \n\t0x1_9aZ..=>->&&||<<>>";
  for (int round = 0; round < 3000; ++round) {
    std::string src;
    size_t n = rng() % 200;
    for (size_t i = 0; i < n; ++i)
      src += round % 2 ? char(rng() & 0xff) : alphabet[rng() % alphabet.size()];
    ast::Module m;
    Diags d;
    parseCairn(src, 0, m, d);
    ast::dumpAst(m);
  }
  // Mutations of valid programs: one byte deleted, or replaced.
  for (const SpecExample &ex : kSpecExamples) {
    std::string base = ex.text;
    for (int k = 0; k < 40; ++k) {
      std::string src = base;
      size_t at = rng() % src.size();
      if (k % 2) src.erase(at, 1);
      else src[at] = char(rng() & 0x7f);
      ast::Module m;
      Diags d;
      parseCairn(src, 0, m, d);
      ast::dumpAst(m);
    }
  }
}

TEST(CairnParseError, LargeInputIsLinear) {
  std::string one = "fn f(n:usize, xs:ro<u64>[n]) -> u64 { let mut t:u64 = 0; for i in 0..n { t += xs[i] * 2; } "
                    "return t; }\n";
  std::string src;
  while (src.size() < (8u << 20)) src += one;  // 8 MiB
  ast::Module m;
  Diags d;
  EXPECT_TRUE(parseCairn(src, 0, m, d)) << diagText(d);
  EXPECT_EQ(m.top.size(), src.size() / one.size());
}

}  // namespace

// A leading byte order mark is skipped; "\r\n" and a lone "\r" end lines
// (a `//` comment ends there too), so tokens keep their line and column.
TEST(CairnLexer, BomCrlfAndCrLineEnds) {
  for (const char *src : {"// c\nfn f\n  x", "// c\r\nfn f\r\n  x", "// c\rfn f\r  x", "\xEF\xBB\xBF// c\nfn f\n  x"}) {
    cairn::lex::Lexed lx;
    cairn::Diags d;
    ASSERT_TRUE(cairn::lex::lexCairn(src, lx, d)) << src;
    ASSERT_EQ(lx.tokens.size(), 4u) << src;  // fn f x Eof
    EXPECT_EQ(lx.tokens[0].kind, cairn::lex::Tok::KwFn);
    EXPECT_EQ(lx.tokens[0].line, 2u);
    EXPECT_EQ(lx.tokens[0].col, 1u);
    EXPECT_EQ(lx.tokens[2].line, 3u);
    EXPECT_EQ(lx.tokens[2].col, 3u);
  }
}
