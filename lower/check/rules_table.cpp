// The rows of the diagnostic code table (lower/check/rules.hpp), in code
// order. Each card restates the spec page
// (shared/spec/cairn-memory-ownership-effects.md) or docs/cairn.md in short
// plain sentences. Rows marked `false` are rules the checker does not
// enforce yet; their programs follow the spec page and wait for it.
// Invariant (tests/unit/rules_test.cpp): sorted, unique, and for every
// `true` row the refused program is refused with the row's code only and
// the accepted one checks.
#include "lower/check/rules.hpp"

namespace cairn::rules::detail {

extern const Rule kTable[];
extern const size_t kTableSize;

const Rule kTable[] = {
    {"E-ALIAS", "a mutable borrow overlaps another argument, or a swap or assignment would make a value hold itself",
     "A mutable borrow must overlap no other argument of the same call. swap never exchanges a place with one that "
     "may lie inside it, and `t.kids[0] = t` (a right side that moves the local the place lies in) is refused too.",
     "Two mutable views of one array let a write through one change what the other reads. A tree swapped with its own "
     "child would come to hold itself and never be released.",
     "Pass parts that visibly do not overlap (`b[0..mid]`, `b[mid..n]`). To make a child the whole tree, take it out "
     "first: `t = take(t.kids[0]);`.",
     R"(struct Tree { kids:Buf[Tree]; val:u64; }
fn main() -> i32 { let mut t = Tree(Buf[Tree](2), 1); swap(t, t.kids[0]); return 0; })",
     R"(struct Tree { kids:Buf[Tree]; val:u64; }
fn main() -> i32 { let mut t = Tree(Buf[Tree](2), 1); t = take(t.kids[0]); return 0; })",
     true},
    {"E-ALIGN", "align(n) is not a power of two from 8 to 65536",
     "`align(n)` raises a record's alignment to n, which must be a power of two from 8 to 65536.",
     "Other alignments cannot be met by the allocators and the C the compiler writes.",
     "Pick a power of two in range, such as align(64) for one cache line.",
     R"(struct Slot align(48) { hits:u64; }
fn main() -> i32 { let slot = Slot(1); if slot.hits != 1 { return 1; } return 0; })",
     R"(struct Slot align(64) { hits:u64; }
fn main() -> i32 { let slot = Slot(1); if slot.hits != 1 { return 1; } return 0; })",
     true},
    {"E-ARITY", "a call or constructor has the wrong number of arguments",
     "A call passes as many arguments as the function has parameters, a constructor one value per field and a "
     "variant one payload or none. A call may leave out its extent parameters, but then all of them (a call passes "
     "all its extents or none), and a call of an extern passes every argument.",
     "Leaving out some extents but not others would make it ambiguous which argument is which.",
     "Pass every argument, or leave out exactly the extent parameters.",
     R"(fn add(a:u64, b:u64) -> u64 = a + b;
fn main() -> i32 { let x = add(1); return 0; })",
     R"(fn add(a:u64, b:u64) -> u64 = a + b;
fn main() -> i32 { let x = add(1, 2); return 0; })",
     true},
    {"E-ASM-LANE", "typed PTX in device code declares an effect a lane may not have",
     "In device code, typed PTX may declare reads, writes and fence, and nothing else.",
     "A lane runs beside every other lane of its region; an effect such as barrier would make the lanes depend on "
     "each other, which the lane rule cannot check.",
     "Declare only reads, writes and fence in a lane, or move the barrier out of the parallel region.",
     R"(fn settle(n:usize, out:rw<u32>[n]@device) {
  parallel i in n {
    unsafe { asm ptx sm_75 "bar.sync 0;" effects(barrier); }
    out[i] = 0;
  }
}
fn main() -> i32 { return 0; })",
     R"(fn settle(n:usize, out:rw<u32>[n]@device) {
  parallel i in n {
    unsafe { asm ptx sm_75 "membar.cta;" effects(fence); }
    out[i] = 0;
  }
}
fn main() -> i32 { return 0; })",
     true},
    {"E-BODY", "a function other than an extern has no body",
     "A `fn` has a block or `= expr;` body; only an `extern fn` is declared without one.",
     "The checker and the lowering need the body to know what the function does.",
     "Write the body, or declare the function `extern` with its effects when C provides it.",
     R"(fn twice(x:u64) -> u64;
fn main() -> i32 { let y = twice(2); return 0; })",
     R"(fn twice(x:u64) -> u64 = x * 2;
fn main() -> i32 { let y = twice(2); return 0; })",
     true},
    {"E-BOUND", "a generic argument does not meet its parameter's bound",
     "A bound such as `[T:copy]` is checked where the instance is made: an owner such as Buf is not copy.",
     "The body of a generic function relies on what its bounds promise, such as using a value twice.",
     "Pass a type that meets the bound, or call a function whose bound admits it.",
     R"(fn keep[T:copy](x:T) -> T = x;
fn main() -> i32 { let b = keep(Buf[u8](2)); return 0; })",
     R"(fn keep[T:copy](x:T) -> T = x;
fn main() -> i32 { let b:u64 = keep(2); return 0; })",
     true},
    {"E-CALL", "the expression called is not a function",
     "Only a function name (or a generic instance, a method or a constructor) can be called.",
     "A call of anything else has no meaning.",
     "Call a function by its name.",
     R"(fn main() -> i32 { let x:u64 = 3; let z = (x + 1)(2); return 0; })",
     R"(fn twice(x:u64) -> u64 = x * 2;
fn main() -> i32 { let x:u64 = 3; let z = twice(x + 1); return 0; })",
     true},
    {"E-CALL-SHAPE", "a part's bounds or extent hold a call",
     "A part's bounds and extent are names, literals, fields, elements and arithmetic; a call must be bound to a name "
     "first.",
     "The part's guard names those expressions again, so they must be cheap and free of effects.",
     "Bind the call to a local and use the local in the part.",
     R"(fn checksum(n:usize, bytes:ro<u8>[n]) -> u32 = u32(bytes[0]);
fn header_size() -> usize = 4;
fn main() -> i32 { let frame = "\x07\x00\x00\x00hi"; return i32(checksum(2, frame[header_size()..6])); })",
     R"(fn checksum(n:usize, bytes:ro<u8>[n]) -> u32 = u32(bytes[0]);
fn header_size() -> usize = 4;
fn main() -> i32 { let frame = "\x07\x00\x00\x00hi"; let h = header_size(); return i32(checksum(2, frame[h..6])); })",
     true},
    {"E-CALL-VIEW", "an array borrow argument is not a place",
     "An rw parameter and a view of an array need a place (a local, a field or an element), or a string literal for "
     "an ro<u8>[n]. Only an ro<T> single borrow also takes a temporary.",
     "A view borrows storage that already exists; a temporary has none that outlives the call's arguments.",
     "Bind the value to a local first and pass the local.",
     R"(fn total(n:usize, xs:ro<u64>[n]) -> u64 = xs[0];
fn main() -> i32 { let t = total(2, 5); return 0; })",
     R"(fn total(n:usize, xs:ro<u64>[n]) -> u64 = xs[0];
fn main() -> i32 { let b = Buf[u64](2); let t = total(b); return 0; })",
     true},
    {"E-CONST", "a constant does not fold, or its value does not fit",
     "A const folds at compile time from literals, other constants and arithmetic; the result must fit its type, and "
     "division by zero or a constant defined through itself is refused.",
     "A constant is used where the value must be known before the program runs, such as an extent.",
     "Give the constant a wider type, or fix the expression.",
     R"(const N:u8 = 200 + 100;
fn main() -> i32 { return 0; })",
     R"(const N:u16 = 200 + 100;
fn main() -> i32 { return 0; })",
     true},
    {"E-DEFER", "defer is not followed by one call",
     "`defer call(...);` schedules exactly one visible call for every normal exit of its block.",
     "A deferred call is the consumption of a linear value and the release of a resource; anything else cannot be "
     "run at block exit.",
     "Write `defer f(args);`.",
     R"(fn note(c:rw<u64>) { c += 1; }
fn main() -> i32 { let mut x:u64 = 0; defer x + 1; return 0; })",
     R"(fn note(c:rw<u64>) { c += 1; }
fn main() -> i32 { let mut x:u64 = 0; defer note(x); return 0; })",
     true},
    {"E-DUPLICATE", "a name is declared twice in one scope",
     "Each item of a module (function, record, sum, constant) has its own name.",
     "A second declaration would make every use of the name ambiguous.",
     "Rename one of them.",
     R"(fn f() -> u64 = 1;
fn f() -> u64 = 2;
fn main() -> i32 { let a = f(); return 0; })",
     R"(fn f() -> u64 = 1;
fn g() -> u64 = 2;
fn main() -> i32 { let a = f() + g(); return 0; })",
     true},
    {"E-EFFECT-CEILING", "a function's effect row goes past its declared ceiling",
     "A signature may declare a ceiling, `pure` or `effects(...)`: the most its row may hold. pure still allows trap, "
     "diverge, local reads and writes, stack storage, zero_init, ffi_precondition and reads of what it was lent.",
     "A ceiling is a promise to callers (and to lanes) about what the function may do.",
     "Remove what goes past the ceiling, or widen the ceiling: `effects(write:out)`.",
     R"(fn fill(n:usize, out:rw<u8>[n], value:u8) pure { for i in 0..n { out[i] = value; } }
fn main() -> i32 { return 0; })",
     R"(fn fill(n:usize, out:rw<u8>[n], value:u8) effects(write:out, trap) { for i in 0..n { out[i] = value; } }
fn main() -> i32 { return 0; })",
     true},
    {"E-EFFECT-ORDER", "a call with an effect sits beside another operand",
     "A call that writes through a borrow or allocates cannot sit beside another operand, and a call the outside "
     "world can observe cannot sit beside another call or an operand that may abort.",
     "The C++ the compiler writes leaves the order of operands open, so the result would depend on that order.",
     "Bind the call to its own statement first (`let v = f(...);`) and use v.",
     R"(fn fill(n:usize, out:rw<u8>[n], value:u8) -> usize { for i in 0..n { out[i] = value; } return n; }
fn main() -> i32 { let mut frame = Buf[u8](4); let done = fill(len(frame), frame, 1) + len(frame); return 0; })",
     R"(fn fill(n:usize, out:rw<u8>[n], value:u8) -> usize { for i in 0..n { out[i] = value; } return n; }
fn main() -> i32 { let mut frame = Buf[u8](4); let v = fill(len(frame), frame, 1); let done = v + len(frame); return 0; })",
     true},
    {"E-ESCAPE", "a borrow is returned",
     "A borrow cannot be stored, returned or bound to a local; returning one is refused.",
     "A view exists only while a call runs, so there are no lifetimes to check and no dangling references.",
     "Return a value (an element, a count) or an owner, or pass an rw view for the callee to fill.",
     R"(fn first(n:usize, xs:ro<u8>[n]) -> ro<u8>[n] = xs;
fn main() -> i32 { return 0; })",
     R"(fn first(n:usize, xs:ro<u8>[n]) -> u8 = xs[0];
fn main() -> i32 { return 0; })",
     true},
    {"E-EXTENT", "an extent is not a literal, a constant or an earlier usize parameter",
     "The extent of a view (n in ro<u8>[n]) is a literal, a constant or an earlier immutable usize parameter; an "
     "extern's may name a later one, as C puts a pointer before its length.",
     "Extents match by name or literal, so the name must be known, fixed and of the length type where it is used.",
     "Declare the length first, as a usize: `fn f(n:usize, data:ro<u8>[n])`.",
     R"(fn first(data:ro<u8>[k], k:usize) -> u8 = data[0];
fn main() -> i32 { return 0; })",
     R"(fn first(k:usize, data:ro<u8>[k]) -> u8 = data[0];
fn main() -> i32 { return 0; })",
     true},
    {"E-EXTENT-FIELD", "a record's extent field and its Buf could disagree",
     "A Buf field may carry the extent of an earlier usize field (`price:Buf[f64][rows]`). A constructor must build "
     "that Buf in place as `Buf[T](n)` from the same n it gives the field, and neither is assigned, taken or swapped "
     "alone.",
     "Nothing checks the relation at run time, so it must be established once and never broken.",
     "Write the Buf inline in the constructor: `Chart(4, Buf[f64](4))`.",
     R"(struct Chart { rows:usize; price:Buf[f64][rows]; }
fn main() -> i32 { let b = Buf[f64](4); let c = Chart(4, b); return 0; })",
     R"(struct Chart { rows:usize; price:Buf[f64][rows]; }
fn main() -> i32 { let c = Chart(4, Buf[f64](4)); return 0; })",
     true},
    {"E-EXTERN", "an extern has a signature C cannot call",
     "An extern function returns a scalar or nothing; it cannot return a record.",
     "The foreign call goes through the C ABI by libffi, and records have no agreed C layout here.",
     "Return the fields through rw borrows, or return a scalar.",
     R"(struct P { x:i32; }
extern fn getp() -> P effects(io);
fn main() -> i32 { unsafe { let p = getp(); } return 0; })",
     R"(extern fn getpid() -> i32 effects(io);
fn main() -> i32 { unsafe { let p = getpid(); } return 0; })",
     true},
    {"E-EXTERN-EFFECTS", "an extern declares no effects",
     "An extern names a C symbol and must state the effects its body may have; they are trusted as written.",
     "The checker cannot see the body, and every caller's effect row includes what it does.",
     "Add `effects(...)`, such as `effects(io)`.",
     R"(extern fn getpid() -> i32;
fn main() -> i32 { unsafe { let p = getpid(); } return 0; })",
     R"(extern fn getpid() -> i32 effects(io);
fn main() -> i32 { unsafe { let p = getpid(); } return 0; })",
     true},
    {"E-FIELD", "a record has no field of that name",
     "A field access or assignment names a field the record declares.",
     "There is nothing else to read or write.",
     "Check the record's declaration for the field's name.",
     R"(struct P { x:u64; y:u64; }
fn main() -> i32 { let p = P(1, 2); let z = p.z; return 0; })",
     R"(struct P { x:u64; y:u64; }
fn main() -> i32 { let p = P(1, 2); let z = p.y; return 0; })",
     true},
    {"E-IMMUTABLE", "an assignment to a place that is not mutable",
     "Parameters and `let` locals are immutable, and so is what an ro borrow lends; only `let mut` locals, rw "
     "borrows and their fields and elements can be assigned or lent as rw.",
     "A reader can trust that an immutable name keeps its value.",
     "Declare the local `let mut`, or take the parameter as rw.",
     R"(fn main() -> i32 { let x:u64 = 1; x = 2; return 0; })",
     R"(fn main() -> i32 { let mut x:u64 = 1; x = 2; if x != 2 { return 1; } return 0; })",
     true},
    {"E-IMPORT", "an import names no module cairn can find",
     "`import std.NAME` reads NAME.cairn from the std folder; other module paths are not supported.",
     "An import that finds nothing leaves every name it brings undefined.",
     "Import a std module that exists (std.core, std.vec, std.io) or define the item in the file.",
     R"(import std.nosuch (Thing);
fn main() -> i32 { return 0; })",
     R"(import std.vec (Vec);
fn main() -> i32 { return 0; })",
     true},
    {"E-INFER", "a generic argument cannot be inferred",
     "Type arguments are inferred from the arguments and the expected type; when neither says, write them out.",
     "Each instance is compiled on its own, so its types must be known.",
     "Write the type argument: `make[u8]()`, `vec.new[u64]()`.",
     R"(fn make[T]() -> u64 = 0;
fn main() -> i32 { let a = make(); return 0; })",
     R"(fn make[T]() -> u64 = 0;
fn main() -> i32 { let a = make[u8](); return 0; })",
     true},
    {"E-INTERNAL", "a bug in cairn: the lowering built something invalid",
     "No program is refused by this rule: it reports a graph the lowering built wrongly.",
     "It stops a broken lowering from being run.",
     "Report it, with the program; `cairn lower` shows the graph.",
     "", R"(fn main() -> i32 { return 0; })", false},
    {"E-LAYOUT", "a layout is malformed or too large",
     "A layout holds at most 262,144 elements (or participant and value pairs), and every offset it places fits 63 "
     "bits; anything else malformed is refused too.",
     "Every answer about a layout comes from enumerating it.",
     "Split the tile into smaller ones.",
     R"(layout BIG = rows(1024, 1024);
fn main() -> i32 { return 0; })",
     R"(layout TILE = rows(32, 32);
fn main() -> i32 { return 0; })",
     true},
    {"E-LAYOUT-CONSUMER", "a spread's coordinates are read through a layout of another shape",
     "`L.at(D.row(t, v), D.col(t, v))` must read D's tile through a layout of the same shape.",
     "Coordinates of one tile name no element of a tile of another shape.",
     "Read through a layout of the spread's own shape.",
     R"(layout TILE = rows(32, 32);
layout WIDE = rows(64, 32);
layout LOAD = spread(TILE, 8, 32, 1, 1);
fn at(t:usize, v:usize) -> usize = WIDE.at(LOAD.row(t, v), LOAD.col(t, v));
fn main() -> i32 { return 0; })",
     R"(layout TILE = rows(32, 32);
layout LOAD = spread(TILE, 8, 32, 1, 1);
fn at(t:usize, v:usize) -> usize = TILE.at(LOAD.row(t, v), LOAD.col(t, v));
fn main() -> i32 { return 0; })",
     true},
    {"E-LAYOUT-GAP", "a spread leaves an element of its tile to nobody",
     "A spread gives each element of its tile exactly one holder; one that leaves an element to nobody is refused.",
     "Writes through the spread would miss that element.",
     "Use enough participants to cover the tile: here 8 x 32 rows of one.",
     R"(layout TILE = rows(32, 32);
layout LOAD = spread(TILE, 7, 32, 1, 1);
fn main() -> i32 { return 0; })",
     R"(layout TILE = rows(32, 32);
layout LOAD = spread(TILE, 8, 32, 1, 1);
fn main() -> i32 { return 0; })",
     true},
    {"E-LAYOUT-OVERLAP", "two elements share an offset, or one element has two holders",
     "A storage layout gives each element its own offset, and a spread gives each element one holder.",
     "Writes through the layout would collide.",
     "Choose blocks that tile the shape once: here 2 x 2 participants of 2 x 2 values.",
     R"(layout FRAGMENTS = rows(4, 4);
layout WARPS = spread(FRAGMENTS, 2, 4, 2, 2);
fn main() -> i32 { return 0; })",
     R"(layout FRAGMENTS = rows(4, 4);
layout WARPS = spread(FRAGMENTS, 2, 2, 2, 2);
fn main() -> i32 { return 0; })",
     true},
    {"E-LEASED", "a place is moved or written while something holds a lease on it",
     "A local that a deferred call names cannot move until its block ends; a running task's lease also keeps others "
     "from writing what it reads or touching what it writes.",
     "The deferred call reads its arguments when it runs, so it would read what the move left behind.",
     "Make the call before the move, or bind what it reads to a local and defer the call on that.",
     R"(fn report(v:u8, seen:rw<u64>) { seen += u64(v); }
fn sink(b:Buf[u8]) {}
fn main() -> i32 { let mut seen:u64 = 0; let b = Buf[u8](4); { defer report(b[2], seen); sink(b); } return 0; })",
     R"(fn report(v:u8, seen:rw<u64>) { seen += u64(v); }
fn sink(b:Buf[u8]) {}
fn main() -> i32 { let mut seen:u64 = 0; let b = Buf[u8](4); { let v = b[2]; defer report(v, seen); sink(b); } return 0; })",
     true},
    {"E-LENDS", "a record's lends clause has bounds that are not literals or usize fields",
     "In `lends data[lo..hi];` the bounds are literals or usize fields of the record.",
     "The bounds are read at every use and guarded, like a part's.",
     "Make the length field a usize.",
     R"(struct Line { data:Buf[u8]; len:u32; lends data[0..len]; }
fn main() -> i32 { let line = Line(Buf[u8](8), 2); return 0; })",
     R"(struct Line { data:Buf[u8]; len:usize; lends data[0..len]; }
fn main() -> i32 { let line = Line(Buf[u8](8), 2); return 0; })",
     true},
    {"E-LEX", "a character or literal that is not CAIRN",
     "Source is ASCII identifiers, literals, punctuation and comments; escapes are \\n \\t \\r \\0 \\\\ \\\" \\' \\xNN, and "
     "an integer fits 64 bits.",
     "Anything else cannot be read as a token.",
     "Remove the character or fix the literal.",
     R"(fn main() -> i32 { let s = "\q"; return 0; })",
     R"(fn main() -> i32 { let s = "\n"; return 0; })",
     true},
    {"E-LIMIT", "a program past one of cairn's size limits",
     "An expression nests at most 400 deep when lowered, a function at most 4000 regions, and a program has at "
     "most 5000 instances of generic functions.",
     "The limits keep a runaway program (a generic that instantiates itself at ever larger types) from exhausting "
     "the machine.",
     "Split the function or the expression, or make the generic recursion end.",
     R"(struct W[T] { v:T; }
fn grow[T](x:T, n:u64) -> u64 { if n == 0 { return 0; } return grow(W(x), n - 1); }
fn main() -> i32 { let r = grow(1, 3); return 0; })",
     R"(fn count(x:u64, n:u64) -> u64 { if n == 0 { return x; } return count(x + 1, n - 1); }
fn main() -> i32 { let r = count(1, 3); return 0; })",
     true},
    {"E-LINEAR-BRANCH", "a linear value is consumed on some paths only",
     "A linear struct must be consumed exactly once on every path; consuming it on some paths only is refused.",
     "A linear value stands for an obligation, such as giving back a resource, that must be met exactly once.",
     "Consume it on every path, or once before the branch; `defer release(x);` consumes it at block exit.",
     R"(linear struct Lease { id:u64; }
fn acquire(id:u64) -> Lease = Lease(id);
fn release(l:Lease) { let Lease(id) = l; }
fn main() -> i32 { let lease = acquire(7); if true { release(lease); } return 0; })",
     R"(linear struct Lease { id:u64; }
fn acquire(id:u64) -> Lease = Lease(id);
fn release(l:Lease) { let Lease(id) = l; }
fn main() -> i32 { let lease = acquire(7); release(lease); return 0; })",
     true},
    {"E-LINEAR-LEAK", "a linear value is never consumed, or is assigned over",
     "Leaving a linear value unconsumed is refused, and so is assigning over a place that still holds one.",
     "The assignment would lose the old value, and with it the obligation it stands for.",
     "Consume the value first (`lease = renew(lease)` does), or swap the new value in and consume what comes out.",
     R"(linear struct Lease { id:u64; }
fn release(l:Lease) { let Lease(id) = l; }
fn main() -> i32 { let mut lease = Lease(1); lease = Lease(2); release(lease); return 0; })",
     R"(linear struct Lease { id:u64; }
fn release(l:Lease) { let Lease(id) = l; }
fn main() -> i32 { let mut lease = Lease(1); let mut next = Lease(2); swap(lease, next); release(next); release(lease); return 0; })",
     true},
    {"E-LOOP", "break or continue outside a loop",
     "break and continue act on the nearest enclosing loop.",
     "Outside a loop there is nothing for them to leave or repeat.",
     "Use return, or put the statement inside the loop.",
     R"(fn main() -> i32 { break; return 0; })",
     R"(fn main() -> i32 { while true { break; } return 0; })",
     true},
    {"E-MAIN", "no main, or main's signature is not fn main() -> i32",
     "A program has `fn main() -> i32`: no parameters, an i32 result that becomes the exit status.",
     "main is where the run starts, and its value is the process's exit status.",
     "Declare `fn main() -> i32` and return 0 on success.",
     R"(fn main() -> u64 { return 0; })",
     R"(fn main() -> i32 { return 0; })",
     true},
    {"E-MATCH", "a match that is not over a sum, or an arm that names no variant",
     "match takes a value of a sum type, and each arm names one of its variants, binding a payload only where the "
     "variant has one.",
     "An arm for a variant that does not exist, or a payload that is not there, cannot run.",
     "Match a sum value; compare scalars with if.",
     R"(fn main() -> i32 { let x:u64 = 3; match x { A => {} } return 0; })",
     R"(enum E { A; B(u64); }
fn main() -> i32 { let e = E.B(3); match e { A => {} B(v) => {} } return 0; })",
     true},
    {"E-MATCH-COVERAGE", "a match misses a variant or repeats one",
     "match needs exactly one arm per variant, with no wildcard.",
     "A value of a missing variant would have no arm to run, and a repeated arm would never run.",
     "Write one arm per variant.",
     R"(enum Dir { North; East; South; }
fn main() -> i32 { let d = Dir.North; match d { North => {} East => {} } return 0; })",
     R"(enum Dir { North; East; South; }
fn main() -> i32 { let d = Dir.North; match d { North => {} East => {} South => {} } return 0; })",
     true},
    {"E-MOVE-IN-LOOP", "an owner from outside a loop is moved inside it",
     "An owner from outside a loop, a closure or a lane cannot be moved inside it; today cairn refuses `for x in "
     "view` over elements that hold owners, which would move each one out.",
     "The body may run more than once, and the second time the owner is gone.",
     "Move it once, outside the loop; walk owner elements by index and borrow or take them.",
     R"(struct Bag { items:Buf[u8]; }
fn total(n:usize, xs:ro<Bag>[n]) -> u64 { let mut t:u64 = 0; for b in xs { t += 1; } return t; }
fn main() -> i32 { let v = Buf[Bag](2); let t = total(v); return 0; })",
     R"(struct Bag { items:Buf[u8]; }
fn total(n:usize, xs:ro<Bag>[n]) -> u64 { let mut t:u64 = 0; for i in 0..n { t += 1; } return t; }
fn main() -> i32 { let v = Buf[Bag](2); let t = total(v); return 0; })",
     true},
    {"E-MOVED", "an owner is used after it was moved",
     "Owners are affine: using one as a value (binding it, passing it by value, returning it, storing it) moves it, "
     "and its name is dead afterwards. `b = grow(b)` gives b its new value, and it is live again.",
     "Two uses would mean two owners of one heap block, and two releases.",
     "Use it once, lend it as a view (`ro<u8>[n]`) to the calls that only read it, or pass it on and take it back.",
     R"(fn send(body:Buf[u8]) -> usize = len(body);
fn main() -> i32 { let body = Buf[u8](4); let once = send(body); let twice = send(body); return 0; })",
     R"(fn send(n:usize, body:ro<u8>[n]) -> usize = n;
fn main() -> i32 { let body = Buf[u8](4); let once = send(body); let twice = send(body); return 0; })",
     true},
    {"E-NAME", "a name that is not declared",
     "Every local, function, type, variant and imported item is declared before it is used.",
     "An unknown name is usually a typo or a missing import.",
     "Declare or import it, or fix the spelling.",
     R"(fn main() -> i32 { let y = zz + 1; return 0; })",
     R"(fn main() -> i32 { let zz:u64 = 1; let y = zz + 1; return 0; })",
     true},
    {"E-PARSE", "the text does not follow CAIRN's grammar",
     "Items, statements and expressions follow the grammar of docs/cairn.md and the language reference.",
     "The checker needs a complete tree to work on.",
     "Read the message: it names the token expected.",
     R"(fn add(a:u64 b:u64) -> u64 = a + b;
fn main() -> i32 { return 0; })",
     R"(fn add(a:u64, b:u64) -> u64 = a + b;
fn main() -> i32 { return 0; })",
     true},
    {"E-PARTIAL-MOVE", "an owner is moved out of a place",
     "An owner cannot be moved out of a place (a field, an element, a borrow): `take(place)` moves it out and leaves "
     "the zero value, and `swap(a, b)` exchanges two places.",
     "A move out of a place would leave a hole in a record or an array.",
     "Write `take(ring.slots)` or `swap`.",
     R"(struct Ring { slots:Buf[u8]; used:usize; }
fn main() -> i32 { let mut ring = Ring(Buf[u8](2), 0); let slots = ring.slots; return 0; })",
     R"(struct Ring { slots:Buf[u8]; used:usize; }
fn main() -> i32 { let mut ring = Ring(Buf[u8](2), 0); let slots = take(ring.slots); return 0; })",
     true},
    {"E-PLACE", "an expression that is not a place where one is needed",
     "An assignment's left side is a place: a local, a field or an element (an rw argument that is no place is "
     "E-CALL-VIEW).",
     "Only a place has storage to write.",
     "Assign to a local, field or element.",
     R"(fn main() -> i32 { let mut x:u64 = 0; (x + 1) = 3; return 0; })",
     R"(fn main() -> i32 { let mut x:u64 = 0; x = 3; return 0; })",
     true},
    {"E-PRIVATE", "code outside a module takes apart its linear record, or uses what it does not export",
     "Only the module that declares a linear record may take it apart, and a module's items other than `pub` ones "
     "are its own.",
     "Code outside could otherwise end a protocol the module keeps.",
     "Call the module's pub functions instead.",
     R"(import std.io;
fn main() -> i32 { io.write_all(1, 3, "hi\n"); return 0; })",
     R"(import std.io;
fn main() -> i32 { io.print(3, "hi\n"); return 0; })",
     true},
    {"E-RECORD-TYPE", "a record or sum that holds itself by value, or holds a borrow",
     "Fields and payloads are value types: never a borrow, and never the record's own type by value.",
     "A record holding itself would have no finite size; a borrow exists only while a call runs.",
     "Reach the same type through a Buf (`next:Buf[Node]`); keep views as parameters.",
     R"(struct Node { next:Node; val:u64; }
fn main() -> i32 { let n:Node = zeroed; return 0; })",
     R"(struct Node { next:Buf[Node]; val:u64; }
fn main() -> i32 { let n:Node = zeroed; return 0; })",
     true},
    {"E-RETURN", "a path without a return, or a return that does not match the result",
     "Every path of a function with a result returns a value of its type, and a function without one returns none.",
     "Blocks have no implicit tail value, so a missing return would leave the result undefined.",
     "Add the missing return (an else branch, or one at the end).",
     R"(fn kind(first:u8) -> u8 { if first == 71 { return 1; } }
fn main() -> i32 { return i32(kind(0)); })",
     R"(fn kind(first:u8) -> u8 { if first == 71 { return 1; } return 0; }
fn main() -> i32 { return i32(kind(0)); })",
     true},
    {"E-SHADOW", "a name declared again in a nested scope",
     "CAIRN has no shadowing: a local's name is not declared again while it is in scope.",
     "A reader always knows which declaration a name means.",
     "Pick another name.",
     R"(fn main() -> i32 { let x:u64 = 1; { let x:u64 = 2; } return 0; })",
     R"(fn main() -> i32 { let x:u64 = 1; { let y:u64 = 2; } return 0; })",
     true},
    {"E-STACK-LIMIT", "a function's stack arrays hold more than 65536 bytes",
     "One function's stack declarations hold at most 65536 bytes together.",
     "Stack space is small and fixed, and an overflow cannot be guarded cheaply.",
     "Use `buffer x:T[n] = zeroed;` or a Buf for large storage.",
     R"(fn main() -> i32 { stack big:u8[70000] = zeroed; return 0; })",
     R"(fn main() -> i32 { buffer big:u8[70000] = zeroed; return 0; })",
     true},
    {"E-TYPE", "a literal that does not fit its type, or an operator on the wrong kind of value",
     "A literal takes the type expected of it and must fit it; unary - needs a signed or float operand, ! a bool, "
     "~ an integer, and only functions are called by name.",
     "There are no implicit conversions: a value that does not fit is an error, not a wrap.",
     "Use a wider type, or convert explicitly (`u32(x)`).",
     R"(fn main() -> i32 { let x:u8 = 300; return 0; })",
     R"(fn main() -> i32 { let x:u16 = 300; return 0; })",
     true},
    {"E-TYPE-MISMATCH", "a value of one type where another is expected",
     "Operands of one operator have one type, and an argument, a field, a return or a declared local gets exactly "
     "its type. A view is not one value: passing xs where an ro<T> is expected is refused.",
     "CAIRN converts nothing implicitly, so every conversion is visible and checked.",
     "Convert explicitly (`u64(b)`), or declare the matching type.",
     R"(fn main() -> i32 { let a:u64 = 5; let b:u32 = 6; let c = a + b; return 0; })",
     R"(fn main() -> i32 { let a:u64 = 5; let b:u32 = 6; let c = a + u64(b); return 0; })",
     true},
    {"E-UNPACK", "a let pattern that is not the record by value with one name per field",
     "`let Ring(slots, used) = r;` consumes r and binds every field in order: one name, or _, per field.",
     "Taking a record apart must account for every field, owners and linear values included.",
     "Name every field, in order, of the record the value is.",
     R"(struct P { x:u64; y:u64; }
fn main() -> i32 { let P(a) = P(1, 2); return 0; })",
     R"(struct P { x:u64; y:u64; }
fn main() -> i32 { let P(a, b) = P(1, 2); return 0; })",
     true},
    {"E-UNSAFE", "a foreign call, mmio or asm outside unsafe",
     "Foreign calls, mmio_read, mmio_write and asm are legal only inside `unsafe { }`.",
     "The guards cannot establish where foreign storage came from; the caller takes that obligation, visibly.",
     "Wrap the call in `unsafe { }`.",
     R"(extern fn getpid() -> i32 effects(io);
fn main() -> i32 { let p = getpid(); return 0; })",
     R"(extern fn getpid() -> i32 effects(io);
fn main() -> i32 { unsafe { let p = getpid(); } return 0; })",
     true},
    {"E-UNSUPPORTED", "a construct that parses but that `cairn run` does not run yet",
     "Device code, typed assembly, mmio, layouts, try, closures, traits and Dyn, and fixed arrays in records or "
     "passed by value are refused where main reaches them.",
     "cairn implements part of the language; this says so instead of guessing.",
     "Write it with what docs/cairn.md lists as supported, such as a for loop instead of a parallel region.",
     R"(fn main() -> i32 { let mut b = Buf[u32](4); parallel i in 4 { b[i] = 0; } return 0; })",
     R"(fn main() -> i32 { let mut b = Buf[u32](4); for i in 0..4 { b[i] = 0; } return 0; })",
     true},
    {"E-VIEW-ALIAS", "a borrow bound to a local, or a part written outside a call",
     "A borrow cannot be bound to a local, and a part xs[lo..hi] is written only as a view argument of a call. "
     "`let frame = \"text\";` is the one exception: its storage is static.",
     "A view exists only while a call runs.",
     "Keep lo and hi in locals and write the part in each call that reads it.",
     R"(fn main() -> i32 { let mut frame = Buf[u8](8); let payload = frame[4..8]; return 0; })",
     R"(fn sum(n:usize, xs:ro<u8>[n]) -> u64 = u64(xs[0]);
fn main() -> i32 { let mut frame = Buf[u8](8); let lo:usize = 4; let s = sum(frame[lo..8]); return 0; })",
     true},
};
const size_t kTableSize = sizeof kTable / sizeof kTable[0];

}  // namespace cairn::rules::detail
