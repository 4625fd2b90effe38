// Arbitrary programs whose index paths wrap around (progen.hpp,
// ArbitraryOptions::wrapIndices), for the oracle-against-referee campaign.
//
// Every offset, buffer size and loop bound is built from a source (a loop
// index, a value loaded from a u8/u16/u32/i8/i16 slot, a const of any
// integer dtype, a size) through a random chain of the ops a bounds or lane
// analysis must get right under wrap-around: casts to every integer dtype
// (narrowing, widening, sign changes, casts of casts), `add`/`sub` of
// constants, `sub C x` and `neg` (negative coefficients), `mul` by
// constants (256 and 65536 too), `idiv`/`shr`/`shl` by constants, `mod` by a
// constant or the buffer's size, `and`, `min`/`max`, `where`, and ops with a
// second scalar of another dtype cast to the first's. Sizes and bounds can
// be 0, unsigned, `sub N 1` of an unsigned 0, or loaded; loop counts reach
// 256, 300, 65536 and 70000 now and then. Parallel loops store and load one
// buffer at different index expressions, through 1-D windows too, and nest.
// Three chains in four end in a mask a user would write (cast to u8, mod by
// the size, and, min), so the oracle accepts many of them and each accept is
// checked. Besides the random chains, `sketch` writes the known hard cases
// with their parameters varied (lanes that collide through a cast, loads of
// another lane's element, bounds through an unsigned 0 - 1, correct
// programs with negative coefficients).
#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "tools/progen.hpp"

namespace cairn {

namespace {

constexpr const char *kInts[] = {"i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64"};

int bitsOf(const std::string &t) { return std::stoi(t.substr(1)); }
bool uns(const std::string &t) { return t[0] == 'u'; }
bool fits(int64_t v, const std::string &t) {
  int b = bitsOf(t);
  if (uns(t)) return v >= 0 && (b == 64 || v < (int64_t{1} << b));
  return b == 64 || (v >= -(int64_t{1} << (b - 1)) && v < (int64_t{1} << (b - 1)));
}

struct WBuf {
  std::string name, dtype;
  std::string size;    // a literal, or the name of an integer scalar
  std::string sizeT;   // the scalar's dtype ("" for a literal)
  int64_t n = -1;      // its value when known, else -1
  std::string version; // the newest
};

struct Sc {
  std::string name, dtype;
};

class WrapGen {
 public:
  WrapGen(uint64_t seed, const ArbitraryOptions &o) : rng_(seed ^ 0x3c6ef372fe94f82bull), o_(o) {}

  std::string run() {
    out_ = "# arbitrary program: index paths through wrap-around\n";
    int nb = 1 + pick(std::max(1, o_.buffers));
    for (int k = 0; k < nb; ++k) makeBuffer(k);
    int actions = 1 + pick(std::clamp(o_.steps, 1, 3));
    for (int a = 0; a < actions && memOps_ < std::max(1, o_.maxMemOps); ++a) {
      switch (pick(15)) {
        case 0: case 1: case 2: case 3: case 4: parallel(); break;
        case 5: case 6: nested(); break;
        case 7: serial(); break;
        case 8: top(); break;
        case 9: reduceLoop(); break;
        default: sketch(); break;
      }
    }
    return out_;
  }

 private:
  int pick(int n) { return static_cast<int>(rng_() % static_cast<uint64_t>(n)); }
  bool chance(int pct) { return pick(100) < pct; }
  template <class T> const T &one(const std::vector<T> &v) { return v[static_cast<size_t>(pick(static_cast<int>(v.size())))]; }
  std::string anyInt() { return kInts[pick(8)]; }
  std::string fresh(const char *p) { return "%" + std::string(p) + std::to_string(counter_++); }
  void emit(const std::string &l) { out_ += std::string(static_cast<size_t>(depth_ * 2), ' ') + l + "\n"; }
  Sc def(const char *p, const std::string &rhs, const std::string &t, bool scalar = true) {
    Sc s{fresh(p), t};
    emit(s.name + " = " + rhs);
    if (scalar) pool_.push_back(s);
    return s;
  }
  // Another integer dtype than t.
  std::string otherInt(const std::string &t) {
    std::string u = anyInt();
    return u == t ? (t == "i64" ? "u8" : "i64") : u;
  }
  WBuf &anyBuf() { return bufs_[static_cast<size_t>(pick(static_cast<int>(bufs_.size())))]; }

  // A literal of the list that fits t (none fits: "1").
  std::string lit(const std::string &t, std::vector<int64_t> c) {
    c.erase(std::remove_if(c.begin(), c.end(), [&](int64_t v) { return !fits(v, t); }), c.end());
    return c.empty() ? "1" : std::to_string(one(c));
  }

  int64_t sizeMenu() {
    int r = pick(100);
    if (r < 40) return 1 + pick(8);
    if (r < 48) return 0;
    if (r < 75) return one(std::vector<int64_t>{255, 256, 257, 300, 512});
    if (r < 88) return one(std::vector<int64_t>{16, 32, 64, 128, 2, 4});
    if (r < 94) return one(std::vector<int64_t>{65535, 65536});
    return one(std::vector<int64_t>{65537, 70000});
  }

  // A value loaded from a slot buffer of its own (enumerable: 8 or 16 bits,
  // or u32, which the referee samples).
  Sc loaded(const char *types = nullptr) {
    std::vector<std::string> ts = types ? std::vector<std::string>{types} : std::vector<std::string>{"u8", "u16", "u32", "i8", "i16", "u8"};
    std::string t = one(ts), prm = fresh("prm"), q = fresh("pq");
    emit(prm + " = buffer 1 dtype=" + t + " slot=" + std::to_string(100 + slots_++) + " data=[" + lit(t, {0, 1, 3, 255, 256, 300, -1}) + "]");
    emit(q + " = shrink " + prm + " 0 shape=[]");
    return def("ld", "load " + q, t);
  }

  void makeBuffer(int k) {
    WBuf b;
    b.name = "%b" + std::to_string(k);
    b.dtype = chance(10) ? "f32" : anyInt();
    int how = pick(10);
    if (how < 5) {
      b.n = sizeMenu();
      b.size = std::to_string(b.n);
    } else if (how < 8) {
      std::string t = anyInt();
      int64_t n = sizeMenu();
      b.n = fits(n, t) ? n : 1 + pick(4);
      Sc s = def("sz", "const " + std::to_string(b.n) + " dtype=" + t, t);
      b.size = s.name, b.sizeT = t;
    } else {
      Sc s = loaded();
      if (chance(30)) s = as(s, anyInt());
      b.size = s.name, b.sizeT = s.dtype;
    }
    emit(b.name + " = buffer " + b.size + " dtype=" + b.dtype + " slot=" + std::to_string(k));
    b.version = b.name;
    bufs_.push_back(b);
  }

  // x cast to t (itself when it has that dtype already).
  Sc as(const Sc &x, const std::string &t) { return x.dtype == t ? x : def("c", "cast " + x.name + " dtype=" + t, t); }

  // A loop bound meant for b: its size, one off, an unsigned 0 - 1, a
  // const of another dtype, a loaded value, or a count past 256 / 65536.
  Sc bound(const WBuf &b) {
    bool dyn = !b.sizeT.empty();
    Sc size{b.size, dyn ? b.sizeT : "i64"};
    int r = pick(100);
    if (r < 40) return dyn ? size : Sc{std::to_string(std::max<int64_t>(0, b.n)), "i64"};
    if (r < 50) {
      int64_t n = b.n >= 0 ? std::max<int64_t>(0, b.n + (chance(50) ? 1 : -1)) : 1 + pick(4);
      return {std::to_string(n), "i64"};
    }
    if (r < 57) return {std::to_string(one(std::vector<int64_t>{256, 257, 300, 255, 65536, 65537, 70000})), "i64"};
    if (r < 65 && dyn) return def("n", std::string(chance(60) ? "sub " : "add ") + b.size + " 1", b.sizeT);
    if (r < 75) {
      std::string t = anyInt();
      int64_t n = b.n >= 0 && chance(70) ? b.n : sizeMenu();
      return def("n", "const " + (fits(n, t) ? std::to_string(n) : "2") + " dtype=" + t, t);
    }
    if (r < 83 && dyn) return as(size, anyInt());
    if (r < 92) return loaded(chance(50) ? "u8" : nullptr);
    // an unsigned 0, less 1
    std::string t = chance(50) ? "u64" : one(std::vector<std::string>{"u8", "u16", "u32"});
    Sc z = def("z", "const 0 dtype=" + t, t);
    return def("n", "sub " + z.name + " 1", t);
  }

  // Another integer scalar in scope.
  const Sc *other() { return pool_.empty() ? nullptr : &one(pool_); }

  // One random step of an index path.
  Sc step(const Sc &x, const WBuf &b) {
    const std::string &t = x.dtype, &n = x.name;
    int64_t last = b.n > 0 ? b.n - 1 : 3;
    switch (pick(18)) {
      case 0: case 1: return as(x, otherInt(t));
      case 2: return def("a", "add " + n + " " + lit(t, {1, 2, 3, -1, 255, 256, -256, 65536}), t);
      case 3: return def("a", "sub " + n + " " + lit(t, {1, 2, 3, 256, 255}), t);
      case 4: return def("a", "sub " + lit(t, {0, 1, 2, 3, 255, last}) + " " + n, t);
      case 5: return def("a", "neg " + n, t);
      case 6: return def("a", "mul " + n + " " + lit(t, {2, 3, 4, -1, -2, 16, 255, 256, 65536}), t);
      case 7: return def("a", "idiv " + n + " " + lit(t, {2, 3, 4, 256, -1, -2, 65536}), t);
      case 8: return def("a", "shr " + n + " " + lit(t, {1, 2, 3, 7, 8, 15, 16, 31, 63}), t);
      case 9: return def("a", "shl " + n + " " + lit(t, {1, 2, 8, 16, 31}), t);
      case 10: return def("a", "mod " + n + " " + lit(t, {2, 3, 4, 256, b.n > 0 ? b.n : 5}), t);
      case 11: return modSize(x, b);
      case 12: return def("a", "and " + n + " " + lit(t, {1, 3, 7, 255, last}), t);
      case 13: {  // one draw per full-expression: operand order is unspecified
        std::string op = chance(50) ? "min " : "max ";
        return def("a", op + n + " " + lit(t, {0, 1, last, -1, 255}), t);
      }
      case 14: {
        Sc q = def("q", "cmplt " + n + " " + lit(t, {0, 1, last, 256}), "bool", false);
        return def("a", "where " + q.name + " " + n + " " + lit(t, {0, 1, last}), t);
      }
      default: {  // mixed dtypes: a second scalar, cast to x's dtype
        const Sc *y = other();
        if (!y || y->name == n) return def("a", "add " + n + " 1", t);
        Sc z = as(*y, t);
        const char *ops[] = {"add ", "sub ", "mul ", "max ", "min ", "xor "};
        return def("a", ops[pick(6)] + n + " " + z.name, t);
      }
    }
  }

  // x mod b's size, in x's dtype or the size's.
  Sc modSize(const Sc &x, const WBuf &b) {
    if (b.sizeT.empty()) return def("a", "mod " + x.name + " " + (b.n > 0 && fits(b.n, x.dtype) ? std::to_string(b.n) : "3"), x.dtype);
    Sc s{b.size, b.sizeT};
    if (chance(50)) return def("a", "mod " + as(x, b.sizeT).name + " " + b.size, b.sizeT);
    return def("a", "mod " + x.name + " " + as(s, x.dtype).name, x.dtype);
  }

  // The mask a user would end with, sized for b (or nothing).
  Sc finish(Sc x, const WBuf &b) {
    switch (pick(8)) {
      case 0: return as(x, b.n >= 65536 || chance(30) ? "u16" : "u8");
      case 1: return modSize(x, b);
      case 2: x = def("a", "max " + x.name + " 0", x.dtype); return modSize(x, b);
      case 3:
        if (b.n > 0 && (b.n & (b.n - 1)) == 0) return def("a", "and " + x.name + " " + lit(x.dtype, {b.n - 1}), x.dtype);
        return x;
      case 4:
        x = def("a", "max " + x.name + " 0", x.dtype);
        return def("a", "min " + x.name + " " + lit(x.dtype, {b.n - 1, b.n}), x.dtype);
      default: return x;
    }
  }

  // An offset into b from source x: a random chain, often a final mask.
  std::string path(Sc x, const WBuf &b) {
    if (chance(8)) return std::to_string(b.n > 0 ? pick(static_cast<int>(std::min<int64_t>(b.n, 4))) : 0);
    int r = pick(100);
    for (int s = r < 30 ? 0 : r < 65 ? 1 : r < 90 ? 2 : 3; s > 0; --s) x = step(x, b);
    if (chance(75)) x = finish(x, b);
    if (chance(20)) x = as(x, chance(50) ? "i64" : anyInt());
    return x.name;
  }

  // A view of one element of version v of b at `off`, through a window now and then.
  std::string view(const WBuf &b, const std::string &v, const std::string &off) {
    std::string p = fresh("p");
    if (!chance(20)) {
      emit(p + " = shrink " + v + " " + off + " shape=[]");
      return p;
    }
    int w = 1 + pick(b.n > 0 ? static_cast<int>(std::min<int64_t>(4, b.n)) : 4);
    std::string row = fresh("row");
    emit(row + " = shrink " + v + " " + off + " shape=[" + std::to_string(w) + "]");
    emit(p + " = shrink " + row + " " + std::to_string(pick(w + (chance(10) ? 1 : 0))) + " shape=[]");
    return p;
  }

  std::string value(const WBuf &b, const std::string &loadedName, const std::string &loadedT) {
    if (!loadedName.empty() && loadedT == b.dtype) return loadedName;
    return b.dtype == "f32" ? "1.5" : "1";
  }

  void sequence(WBuf &b, const std::string &e) {
    std::string n = fresh("n");
    emit(n + " = after " + b.version + " " + e);
    b.version = n;
  }

  // Opens a loop over bound n; its index joins the pool.
  Sc open(const Sc &n, bool par) {
    Sc i{fresh("i"), n.dtype};
    emit(i.name + " = range " + n.name + (par ? " parallel" : ""));
    ++depth_;
    marks_.push_back(pool_.size());
    pool_.push_back(i);
    return i;
  }
  void close() {
    --depth_;
    pool_.resize(marks_.back());
    marks_.pop_back();
  }

  // A source for an offset inside a loop over i.
  Sc source(const Sc &i) { return chance(80) || pool_.size() < 2 ? i : one(pool_); }

  // The main case: a parallel loop storing into b at one index expression and
  // loading b (the version it writes) and another buffer at others.
  void parallel() {
    WBuf &b = anyBuf();
    Sc n = bound(b);
    std::string V = b.version;
    Sc i = open(n, true);
    std::string off = path(source(i), b), x, xt;
    if (chance(50)) {  // b itself: at the store's own offset, or another one
      std::string q = view(b, V, chance(40) ? off : path(source(i), b));
      x = fresh("x"), xt = b.dtype;
      emit(x + " = load " + q);
      ++memOps_;
    }
    WBuf &a = anyBuf();
    if (&a != &b && chance(30)) {
      std::string q = view(a, a.version, path(source(i), a)), y = fresh("x");
      emit(y + " = load " + q);
      if (a.dtype == b.dtype) x = y, xt = a.dtype;
      ++memOps_;
    }
    std::string p = view(b, V, off), s = fresh("s");
    emit(s + " = store " + p + " " + value(b, x, xt));
    std::string s2;
    WBuf &c = anyBuf();
    if (&c != &b && chance(25)) {
      std::string q = view(c, c.version, path(source(i), c));
      emit((s2 = fresh("s")) + " = store " + q + " " + value(c, "", ""));
    }
    close();
    std::string e = fresh("e");
    emit(e + " = end " + i.name + " " + s + (s2.empty() ? "" : " " + s2));
    memOps_ += 1 + !s2.empty();
    sequence(b, e);
    if (!s2.empty()) sequence(c, e);
  }

  // Rows in parallel, an inner serial (carrying b) or parallel loop over
  // the columns; the offset combines both indices through a chain.
  void nested() {
    WBuf &b = anyBuf();
    Sc R = chance(70) ? Sc{std::to_string(1 + pick(4)), "i64"} : bound(b);
    std::string V = b.version;
    Sc i = open(R, true);
    bool ser = chance(50);
    std::string ct = anyInt(), cn = std::to_string(1 + pick(4));
    Sc C = chance(75) ? Sc{cn, "i64"} : def("n", "const " + cn + " dtype=" + ct, ct);
    Sc j = open(C, !ser);
    std::string view0 = V, c;
    if (ser) emit((c = fresh("c")) + " = carry " + V), view0 = c;
    Sc row = i;
    for (int s = pick(3); s > 0; --s) row = step(row, b);
    if (chance(60)) row = def("a", "mul " + row.name + " " + lit(row.dtype, {2, 3, 4, 256, 65536}), row.dtype);
    Sc off = def("a", "add " + row.name + " " + as(j, row.dtype).name, row.dtype);
    if (chance(50)) off = finish(off, b);
    std::string p = view(b, view0, off.name), s = fresh("s");
    if (chance(40)) {
      std::string q = view(b, view0, path(source(j), b)), x = fresh("x");
      emit(x + " = load " + q);
      ++memOps_;
    }
    emit(s + " = store " + p + " 1" + std::string(b.dtype == "f32" ? ".5" : ""));
    ++memOps_;
    std::string last = s;
    if (ser) emit((last = fresh("nb")) + " = after " + c + " " + s);
    close();
    std::string ej = fresh("e"), e = fresh("e");
    emit(ej + " = end " + j.name + " " + last);
    close();
    emit(e + " = end " + i.name + " " + ej);
    sequence(b, e);
  }

  // A serial loop carrying b: bounds only.
  void serial() {
    WBuf &b = anyBuf();
    Sc n = bound(b);
    std::string V = b.version;
    Sc i = open(n, false);
    std::string c = fresh("c"), s = fresh("s"), nb = fresh("nb");
    emit(c + " = carry " + V);
    std::string q = view(b, c, path(source(i), b)), x = fresh("x");
    emit(x + " = load " + q);
    std::string p = view(b, c, path(source(i), b));
    emit(s + " = store " + p + " " + x);
    emit(nb + " = after " + c + " " + s);
    close();
    std::string e = fresh("e");
    emit(e + " = end " + i.name + " " + nb);
    memOps_ += 2;
    sequence(b, e);
  }

  // A load or store at top level, its offset from a loaded or const value.
  void top() {
    WBuf &b = anyBuf();
    Sc x = chance(70) ? loaded() : def("k", "const " + lit("i64", {0, 1, 255, 256, -1}) + " dtype=i64", "i64");
    std::string p = view(b, b.version, path(x, b));
    ++memOps_;
    if (chance(50)) {
      emit(fresh("x") + " = load " + p);
      return;
    }
    std::string s = fresh("s");
    emit(s + " = store " + p + " " + value(b, "", ""));
    sequence(b, s);
  }

  void reduceLoop() {
    WBuf &b = anyBuf();
    if (b.dtype == "f32") return top();
    Sc n = bound(b);
    Sc i = open(n, chance(50));
    std::string p = view(b, b.version, path(source(i), b)), x = fresh("x"), e = fresh("e"), r = fresh("r");
    emit(x + " = load " + p);
    close();
    emit(e + " = end " + i.name);
    emit(r + " = reduce add " + e + " " + x);
    pool_.push_back({r, b.dtype});
    ++memOps_;
  }

  void sketch();
  WBuf &sketchBuf(const Sc &size, int64_t n);
  Sc count(int64_t n);
  void castCollide();
  void mulCast();
  void readOther();
  void unsignedZero();
  void negative();

  std::mt19937_64 rng_;
  ArbitraryOptions o_;
  std::string out_;
  std::vector<WBuf> bufs_;
  std::vector<Sc> pool_;  // integer scalars in scope
  std::vector<size_t> marks_;
  int counter_ = 0, depth_ = 0, memOps_ = 0, slots_ = 0, sketches_ = 0;
};

// ---- the known hard cases, their parameters varied ----

void WrapGen::sketch() {
  switch (pick(6)) {
    case 0: castCollide(); break;
    case 1: mulCast(); break;
    case 2: readOther(); break;
    case 3: unsignedZero(); break;
    default: negative(); break;
  }
}

// A buffer of its own, of size `size` (n: its value, or -1).
WBuf &WrapGen::sketchBuf(const Sc &size, int64_t n) {
  WBuf b;
  b.name = "%sb" + std::to_string(sketches_);
  b.dtype = chance(20) ? "u8" : "i32";
  b.size = size.name, b.sizeT = size.dtype == "lit" ? "" : size.dtype, b.n = n;
  emit(b.name + " = buffer " + b.size + " dtype=" + b.dtype + " slot=" + std::to_string(200 + sketches_++));
  b.version = b.name;
  bufs_.push_back(b);
  return bufs_.back();
}

// A loop count of n: a literal, a const of a dtype it fits, or loaded.
Sc WrapGen::count(int64_t n) {
  int how = pick(4);
  if (how < 2) return {std::to_string(n), "i64"};
  std::string t = one(std::vector<std::string>{"i32", "i64", "u32", "u16", "i16", "u64"});
  if (how == 2 && fits(n, t)) return def("n", "const " + std::to_string(n) + " dtype=" + t, t);
  return loaded(n < 256 ? "u8" : "u16");  // any count: enumerated when 8 bits
}

// range N parallel; b[cast i to u8/u16/i8] with N past the cast's span.
void WrapGen::castCollide() {
  std::string t = one(std::vector<std::string>{"u8", "u8", "u16", "i8", "u16"});
  int64_t span = int64_t{1} << bitsOf(t);
  int64_t size = span + one(std::vector<int64_t>{0, 0, 0, 0, 1, -1});
  std::vector<int64_t> ns = t == "u16" ? std::vector<int64_t>{65537, 70000, 65536} : std::vector<int64_t>{300, 257, 256, 255, 2, 256};
  WBuf &b = sketchBuf({std::to_string(size), "lit"}, size);
  std::string V = b.version;
  Sc i = open(count(one(ns)), true);
  Sc k = as(i, t);
  if (t == "i8") k = def("a", "add " + as(k, "i16").name + " 128", "i16");
  if (chance(40)) k = as(k, otherInt(k.dtype));
  std::string p = view(b, V, k.name), s = fresh("s");
  emit(s + " = store " + p + " 1");
  close();
  std::string e = fresh("e");
  emit(e + " = end " + i.name + " " + s);
  sequence(b, e);
  ++memOps_;
}

// cast (cast (mul i C) dtype=u8|u16) dtype=i64 over a few lanes.
void WrapGen::mulCast() {
  std::string t = chance(70) ? "u8" : "u16";
  int64_t c = t == "u8" ? one(std::vector<int64_t>{256, 256, 255, 257, 128}) : one(std::vector<int64_t>{65536, 65535, 65537, 32768});
  int64_t n = one(std::vector<int64_t>{2, 2, 3, 4, 257});
  int64_t size = one(std::vector<int64_t>{4, n, 256, 257});
  WBuf &b = sketchBuf({std::to_string(size), "lit"}, size);
  std::string V = b.version;
  Sc i = open(count(n), true);
  Sc w = as(i, chance(50) ? "i64" : "i32");
  Sc m = def("a", "mul " + w.name + " " + std::to_string(c), w.dtype);
  Sc k = as(as(m, t), chance(70) ? "i64" : "i32");
  std::string p = view(b, V, k.name), s = fresh("s");
  emit(s + " = store " + p + " 1");
  close();
  std::string e = fresh("e");
  emit(e + " = end " + i.name + " " + s);
  sequence(b, e);
  ++memOps_;
}

// range N parallel: load b[f(i)], store b[g(i)] with f or g a wrapping cast.
void WrapGen::readOther() {
  int64_t n = one(std::vector<int64_t>{300, 256, 257, 255, 70000});
  WBuf &b = sketchBuf({std::to_string(n), "lit"}, n);
  std::string V = b.version, t = n > 65536 ? "u16" : "u8";
  Sc i = open(count(n), true);
  bool castLoad = chance(60);
  Sc k = as(i, t);
  std::string q = view(b, V, castLoad ? k.name : i.name), x = fresh("x"), s = fresh("s");
  emit(x + " = load " + q);
  std::string p = view(b, V, castLoad ? i.name : k.name);
  emit(s + " = store " + p + " " + x);
  close();
  std::string e = fresh("e");
  emit(e + " = end " + i.name + " " + s);
  sequence(b, e);
  memOps_ += 2;
}

// An unsigned size that may be 0, and a loop over size - 1 storing b[i].
void WrapGen::unsignedZero() {
  std::string t = one(std::vector<std::string>{"u64", "u32", "u16", "u8", "u64"});
  Sc n = chance(75) ? def("sz", "const " + std::to_string(one(std::vector<int64_t>{0, 0, 1, 3, 5})) + " dtype=" + t, t)
                    : loaded(one(std::vector<const char *>{"u32", "u8", "u16"}));
  WBuf &b = sketchBuf(n, -1);
  std::string V = b.version;
  Sc m = def("n", "sub " + n.name + " 1", n.dtype);
  bool par = chance(70);
  Sc i = open(m, par);
  std::string c = fresh("c"), view0 = V;
  if (!par) emit(c + " = carry " + V), view0 = c;
  Sc k = chance(70) ? i : def("a", "add " + i.name + " 1", i.dtype);
  std::string p = view(b, view0, k.name), s = fresh("s"), last = s;
  emit(s + " = store " + p + " 1");
  if (!par) emit((last = fresh("nb")) + " = after " + c + " " + s);
  close();
  std::string e = fresh("e");
  emit(e + " = end " + i.name + " " + last);
  sequence(b, e);
  ++memOps_;
}

// Correct (or one off) programs with negative coefficients: b[c - i],
// b[neg i + c], b[(i * 2) idiv 2], b[(i * -1) + c], in several dtypes.
void WrapGen::negative() {
  int64_t n = 1 + pick(6);
  WBuf &b = sketchBuf({std::to_string(n), "lit"}, n);
  std::string V = b.version;
  int64_t cnt = n + (chance(80) ? 0 : 1);
  Sc i = open(count(cnt), true);
  Sc x = chance(50) ? i : as(i, one(std::vector<std::string>{"i32", "i16", "i8", "u32"}));
  std::string c = lit(x.dtype, {n - 1});
  switch (pick(4)) {
    case 0: x = def("a", "sub " + c + " " + x.name, x.dtype); break;
    case 1: x = def("a", "add " + def("a", "neg " + x.name, x.dtype).name + " " + c, x.dtype); break;
    case 2: x = def("a", "idiv " + def("a", "mul " + x.name + " 2", x.dtype).name + " 2", x.dtype); break;
    default: x = def("a", "add " + def("a", "mul " + x.name + " " + lit(x.dtype, {-1, 4294967295}), x.dtype).name + " " + c, x.dtype); break;
  }
  std::string p = view(b, V, x.name), s = fresh("s");
  emit(s + " = store " + p + " 1");
  close();
  std::string e = fresh("e");
  emit(e + " = end " + i.name + " " + s);
  sequence(b, e);
  ++memOps_;
}

}  // namespace

std::string generateWrapIndices(uint64_t seed, const ArbitraryOptions &opts) { return WrapGen(seed, opts).run(); }

}  // namespace cairn
