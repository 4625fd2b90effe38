// Random valid .uir programs, and fragments that break one rule each.
//
// The generator keeps, for every scalar it made, the newest store its value
// depends on (`dep`, a store counter); every version knows the store that
// made it and the one that overwrote it. A load of an overwritten version is
// emitted only when its index's `dep` is older than the overwrite, which is
// exactly when the load could run before it: valid by construction, so the
// property "generated programs are accepted" tests the oracle, not luck.
#include "tools/progen.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "ir/diag.hpp"
#include "ir/parser.hpp"
#include "oracle/oracle.hpp"

namespace cairn {

namespace {

struct Scalar {
  std::string name;
  std::string dtype;
  int dep;  // newest store counter it depends on (-1: none)
};

struct Version {
  std::string name;
  int made;       // store counter that made it (-1: the buffer itself)
  int overwrite;  // store counter that overwrote it (INT32_MAX: none yet)
};

struct Buf {
  std::string dtype;
  int size;
  std::string sizeRef;  // the size as an operand: a literal, or the i64 scalar of a dynamic size
  std::vector<Version> versions;  // back() is current
};

bool isFloatName(const std::string &t) { return t == "f32" || t == "f64"; }
bool isUnsignedName(const std::string &t) { return t[0] == 'u'; }

class Gen {
 public:
  Gen(uint64_t seed, const GenOptions &o) : rng_(seed), o_(o) {}

  GeneratedProgram run() {
    out_.text = "# generated valid program\n";
    const char *ints[] = {"i32", "i64", "u8", "i16", "u32", "u64", "i8"};
    const char *floats[] = {"f32", "f64"};
    for (int k = 0; k < o_.buffers; ++k) {
      Buf b;
      b.dtype = (o_.floats && pick(4) == 0) ? floats[pick(2)] : ints[pick(7)];
      b.size = 1 + pick(6);
      std::string name = "%b" + std::to_string(k);
      b.sizeRef = std::to_string(b.size);
      if (o_.dynamic && pick(3) == 0) {  // a dynamic size: zero-initialised
        b.sizeRef = "%sz" + std::to_string(k);
        emit(b.sizeRef + " = const " + std::to_string(b.size) + " dtype=i64");
        emit(name + " = buffer " + b.sizeRef + " dtype=" + b.dtype + " slot=" + std::to_string(k));
      } else {
        std::string data;
        for (int i = 0; i < b.size; ++i) data += (i ? " " : "") + literal(b.dtype);
        emit(name + " = buffer " + std::to_string(b.size) + " dtype=" + b.dtype + " slot=" + std::to_string(k) + " data=[" + data + "]");
      }
      b.versions.push_back({name, -1, INT32_MAX});
      bufs_.push_back(b);
    }
    for (int s = 0; s < o_.steps; ++s) {
      int what = pick(o_.loops ? 10 : 7);
      if (o_.scratch && what == 7 && pick(2)) scratchFill();  // draws only with scratch: old seeds stay put
      else if (what <= 1) load();
      else if (what <= 3) store();
      else if (what <= 6) alu();
      else if (what == 7) parallelMap();
      else if (what == 8) serialSum();
      else reduce();
    }
    return out_;
  }

 private:
  int pick(int n) { return static_cast<int>(rng_() % static_cast<uint64_t>(n)); }
  std::string fresh(const char *p) { return "%" + std::string(p) + std::to_string(counter_++); }
  void emit(const std::string &line) { out_.text += line + "\n"; }

  std::string literal(const std::string &t) {
    if (t == "bool") return pick(2) ? "true" : "false";
    if (isFloatName(t)) {
      const char *f[] = {"0.5", "-2.0", "3.25", "1e30", "-0.0", "inf", "nan", "7.0", "-1e-5", "100.0"};
      return f[pick(10)];
    }
    if (t == "u8") { const char *v[] = {"0", "1", "255", "128", "7"}; return v[pick(5)]; }
    if (t == "u16") { const char *v[] = {"0", "1", "65535", "32768", "300"}; return v[pick(5)]; }
    if (t == "i8") { const char *v[] = {"0", "1", "-128", "127", "-1"}; return v[pick(5)]; }
    if (t == "i16") { const char *v[] = {"0", "-32768", "32767", "-1", "300"}; return v[pick(5)]; }
    if (t == "u32") { const char *v[] = {"0", "1", "4294967295", "65536", "12345"}; return v[pick(5)]; }
    if (t == "u64") { const char *v[] = {"0", "1", "18446744073709551615", "9223372036854775808", "42"}; return v[pick(5)]; }
    if (t == "i64") { const char *v[] = {"0", "-1", "-9223372036854775808", "9223372036854775807", "-7"}; return v[pick(5)]; }
    const char *v[] = {"0", "1", "-2147483648", "2147483647", "-5", "13"};
    return v[pick(6)];
  }

  // A scalar of dtype t: an existing one, or a new const.
  Scalar scalarOf(const std::string &t) {
    std::vector<size_t> c;
    for (size_t i = 0; i < pool_.size(); ++i)
      if (pool_[i].dtype == t) c.push_back(i);
    if (!c.empty() && pick(4) != 0) return pool_[c[static_cast<size_t>(pick(static_cast<int>(c.size())))]];
    Scalar s{fresh("c"), t, -1};
    emit(s.name + " = const " + literal(t) + " dtype=" + t);
    pool_.push_back(s);
    return s;
  }

  // An index into b: a literal, or an integer scalar masked with max + mod
  // (after a cast to i64) as the lesson does; into a dynamic size, always
  // `mod` by the size scalar. `dep` gets its dependency.
  std::string index(const Buf &b, int &dep) {
    int n = b.size;
    dep = -1;
    std::vector<size_t> c;
    for (size_t i = 0; i < pool_.size(); ++i)
      if (!isFloatName(pool_[i].dtype)) c.push_back(i);
    if (c.empty() || pick(2) == 0) {
      std::string k = std::to_string(pick(n));
      if (b.sizeRef[0] != '%') return k;
      std::string r = fresh("k");
      emit(r + " = mod " + k + " " + b.sizeRef);
      return r;
    }
    const Scalar &s = pool_[c[static_cast<size_t>(pick(static_cast<int>(c.size())))]];
    dep = s.dep;
    std::string x = s.name;
    if (s.dtype != "i64") {
      std::string y = fresh("w");
      emit(y + " = cast " + x + " dtype=i64");
      x = y;
    }
    std::string m = fresh("m"), k = fresh("k");
    emit(m + " = max " + x + " 0");
    emit(k + " = mod " + m + " " + b.sizeRef);
    return k;
  }

  void load() {
    Buf &b = bufs_[static_cast<size_t>(pick(static_cast<int>(bufs_.size())))];
    int dep;
    // allOps: now and then an unmasked index through checked_shrink, which
    // traps when it is out of range (valid: the check happens at run time).
    bool checked = o_.allOps && pick(10) == 0;
    std::string idx = checked ? rawIndex(b, dep) : index(b, dep);
    // Any version whose overwrite is newer than the index's dependency.
    std::vector<size_t> ok;
    for (size_t i = 0; i < b.versions.size(); ++i)
      if (b.versions[i].overwrite > dep) ok.push_back(i);
    const Version &v = b.versions[ok[static_cast<size_t>(pick(static_cast<int>(ok.size())))]];
    std::string view = fresh("v"), x = fresh("x");
    emit(view + (checked ? " = checked_shrink " : " = shrink ") + v.name + " " + idx + " shape=[]");
    emit(x + " = load " + view);
    pool_.push_back({x, b.dtype, std::max(dep, v.made)});
    ++out_.loads;
  }

  // An index that may be out of range: an integer scalar as i64, or a
  // literal up to one past the end.
  std::string rawIndex(const Buf &b, int &dep) {
    dep = -1;
    std::vector<size_t> c;
    for (size_t i = 0; i < pool_.size(); ++i)
      if (!isFloatName(pool_[i].dtype) && pool_[i].dtype != "bool") c.push_back(i);
    if (c.empty() || pick(3) == 0) return std::to_string(pick(b.size + 1));
    const Scalar &x = pool_[c[static_cast<size_t>(pick(static_cast<int>(c.size())))]];
    dep = x.dep;
    if (x.dtype == "i64") return x.name;
    std::string w = fresh("w");
    emit(w + " = cast " + x.name + " dtype=i64");
    return w;
  }

  void newVersion(Buf &b, const std::string &event) {
    int c = ++stores_;
    b.versions.back().overwrite = c;
    std::string nv = fresh("n");
    emit(nv + " = after " + b.versions.back().name + " " + event);
    b.versions.push_back({nv, c, INT32_MAX});
  }

  void store() {
    Buf &b = bufs_[static_cast<size_t>(pick(static_cast<int>(bufs_.size())))];
    int dep;
    std::string idx = index(b, dep);
    std::string val = pick(3) == 0 ? literal(b.dtype) : scalarOf(b.dtype).name;
    std::string view = fresh("v"), s = fresh("s");
    emit(view + " = shrink " + b.versions.back().name + " " + idx + " shape=[]");
    emit(s + " = store " + view + " " + val);
    newVersion(b, s);
    ++out_.stores;
  }

  void alu() {
    if (pool_.empty()) return load();
    const Scalar a = pool_[static_cast<size_t>(pick(static_cast<int>(pool_.size())))];
    // Only `allOps` makes bools, and draws more only then: old seeds stay put.
    if (a.dtype == "bool" || (o_.allOps && pick(2) == 0)) return aluEdge(a);
    Scalar b = scalarOf(a.dtype);
    std::string r = fresh("a");
    int dep = std::max(a.dep, b.dep);
    if (isFloatName(a.dtype)) {
      const char *bin[] = {"add", "sub", "mul", "fdiv", "max", "min"};
      const char *un[] = {"neg", "recip", "sqrt", "exp2", "log2", "sin", "trunc"};
      int w = pick(5);
      if (w == 0) {
        emit(r + " = " + un[pick(7)] + " " + a.name);
      } else if (w == 1) {
        std::string c = fresh("q");
        emit(c + " = cmplt " + a.name + " " + b.name);
        emit(r + " = where " + c + " " + a.name + " " + b.name);
      } else if (w == 2) {
        emit(r + " = cast " + a.name + " dtype=i32");
        pool_.push_back({r, "i32", dep});
        return;
      } else {
        emit(r + " = " + bin[pick(6)] + " " + a.name + " " + b.name);
      }
    } else {
      const char *bin[] = {"add", "sub", "mul", "max", "min", "and", "or", "xor", "shl", "shr"};
      int w = pick(6);
      if (w == 0) {  // division by a divisor forced odd, so never zero
        std::string d = fresh("d");
        emit(d + " = or " + b.name + " 1");
        emit(r + " = " + (pick(2) ? "idiv " : "mod ") + a.name + " " + d);
      } else if (w == 1) {
        const char *to[] = {"i64", "u8", "i16", "u32", "f64", "f32"};
        std::string t = to[pick(o_.floats ? 6 : 4)];
        emit(r + " = cast " + a.name + " dtype=" + t);
        pool_.push_back({r, t, dep});
        return;
      } else if (w == 2) {
        emit(r + " = neg " + a.name);
      } else {
        emit(r + " = " + bin[pick(10)] + " " + a.name + " " + b.name);
      }
    }
    pool_.push_back({r, a.dtype, dep});
  }

  static int widthOf(const std::string &t) { return t == "i8" || t == "u8" ? 8 : t == "i16" || t == "u16" ? 16 : t == "i32" || t == "u32" ? 32 : 64; }
  static std::string maxLit(const std::string &t) {
    bool u = isUnsignedName(t);
    switch (widthOf(t)) {
      case 8: return u ? "255" : "127";
      case 16: return u ? "65535" : "32767";
      case 32: return u ? "4294967295" : "2147483647";
      default: return u ? "18446744073709551615" : "9223372036854775807";
    }
  }
  static std::string minLit(const std::string &t) {
    if (isUnsignedName(t)) return "0";
    switch (widthOf(t)) {
      case 8: return "-128";
      case 16: return "-32768";
      case 32: return "-2147483648";
      default: return "-9223372036854775808";
    }
  }

  // The rest of the ALU (allOps): comparisons and `where` on every dtype,
  // bool logic, casts to every dtype (float to int saturates, NaN gives 0),
  // shifts by edge amounts (0, w-1, w, w+1, 2w-1, -1: taken modulo w),
  // MIN idiv/mod -1, wrapping at the extremes, and floats meeting NaN,
  // infinities, -0 and overflow.
  void aluEdge(const Scalar &a) {
    const std::string t = a.dtype;
    Scalar b = scalarOf(t);
    int dep = std::max(a.dep, b.dep);
    std::string r = fresh("a");
    auto push = [&](const std::string &dt) { pool_.push_back({r, dt, dep}); };
    const char *cmp[] = {"cmplt", "cmpne", "cmpeq"};
    int w = pick(6);
    if (t == "bool") {
      const char *ops[] = {"and", "or", "xor", "max", "min", "cmpeq", "cmpne", "cmplt"};
      if (w == 0) {
        emit(r + " = neg " + a.name);
      } else if (w == 1) {
        const char *to[] = {"i8", "u8", "i32", "u64", "f32", "f64"};
        std::string d = to[pick(o_.floats ? 6 : 4)];
        emit(r + " = cast " + a.name + " dtype=" + d);
        return push(d);
      } else if (w == 2) {
        emit(r + " = where " + a.name + " " + b.name + " " + (pick(2) ? "true" : "false"));
      } else {
        emit(r + " = " + ops[pick(8)] + " " + a.name + " " + b.name);
      }
      return push("bool");
    }
    if (w == 0) {
      emit(r + " = " + cmp[pick(3)] + " " + a.name + " " + b.name);
      return push("bool");
    }
    if (w == 1) {
      std::string c = fresh("q");
      emit(c + " = " + cmp[pick(3)] + " " + a.name + " " + b.name);
      emit(r + " = where " + c + " " + b.name + " " + a.name);
      return push(t);
    }
    if (w == 2) {
      const char *to[] = {"bool", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "f32", "f64"};
      std::string d = to[pick(o_.floats ? 11 : 9)];
      emit(r + " = cast " + a.name + " dtype=" + d);
      return push(d);
    }
    if (isFloatName(t)) {
      const char *sp[] = {"nan", "inf", "-inf", "-0.0", "0.0", "1e308", "-1.0"};
      const char *ops[] = {"add", "sub", "mul", "fdiv", "max", "min", "cmplt", "cmpeq", "cmpne"};
      int k = pick(9);
      std::string l = sp[pick(7)];
      if (t == "f32" && l == "1e308") l = "3e38";
      emit(r + " = " + ops[k] + " " + (pick(2) ? a.name + " " + l : l + " " + a.name));
      return push(k >= 6 ? "bool" : t);
    }
    int bits = widthOf(t);
    bool sgn = !isUnsignedName(t);
    if (w == 3) {
      std::vector<int> amt = {0, 1, bits - 1, bits, bits + 1, 2 * bits - 1};
      if (sgn) amt.push_back(-1);
      const char *op = pick(2) ? "shl " : "shr ";  // one draw per statement: C++ leaves the order of operands unspecified
      int by = amt[static_cast<size_t>(pick(static_cast<int>(amt.size())))];
      emit(r + " = " + op + a.name + " " + std::to_string(by));
      return push(t);
    }
    if (w == 4) {
      std::string x = a.name;
      if (sgn && pick(2)) {
        x = fresh("c");
        emit(x + " = const " + minLit(t) + " dtype=" + t);
      }
      // A divisor that may be 0 now and then: the program traps there.
      std::string d = pick(6) == 0 ? b.name : sgn ? "-1" : maxLit(t);
      emit(r + " = " + (pick(2) ? "idiv " : "mod ") + x + " " + d);
      return push(t);
    }
    const char *ops[] = {"add", "sub", "mul"};
    const char *op = ops[pick(3)];
    std::string lit = pick(2) ? maxLit(t) : sgn ? minLit(t) : "2";
    emit(r + " = " + op + " " + a.name + " " + lit);
    push(t);
  }

  // A loop bound of n over buffer b: a literal; with `dynamic`, the size
  // scalar (minus a constant), or a const of some integer dtype. `t` gets
  // the index's dtype.
  std::string bound(const Buf &b, int n, std::string &t) {
    t = "i64";
    if (!o_.dynamic) return std::to_string(n);
    if (b.sizeRef[0] == '%') {
      if (n == b.size) return b.sizeRef;
      std::string m = fresh("lb");
      emit(m + " = sub " + b.sizeRef + " " + std::to_string(b.size - n));
      return m;
    }
    if (pick(2)) return std::to_string(n);
    const char *ts[] = {"i64", "i32", "u8", "u16", "i16", "u32", "i8", "u64"};
    t = ts[pick(8)];
    std::string m = fresh("lb");
    emit(m + " = const " + std::to_string(n) + " dtype=" + t);
    return m;
  }

  // b[i] = f(b[i], a[min(i, |a|-1)]) for every i, in parallel.
  void parallelMap() {
    Buf &b = bufs_[static_cast<size_t>(pick(static_cast<int>(bufs_.size())))];
    const Buf &a = bufs_[static_cast<size_t>(pick(static_cast<int>(bufs_.size())))];
    if (&a != &b && a.dtype != b.dtype) return alu();
    std::string i = fresh("i"), p = fresh("p"), x = fresh("x"), y = fresh("y"), s = fresh("s"), e = fresh("e");
    std::string bt;
    emit(i + " = range " + bound(b, b.size, bt) + " parallel");
    emit(p + " = shrink " + b.versions.back().name + " " + i + " shape=[]");
    emit(x + " = load " + p);
    std::string other = x;
    if (&a != &b) {
      std::string j = fresh("j"), q = fresh("p");
      other = fresh("x");
      if (a.sizeRef[0] != '%') {
        emit(j + " = min " + i + " " + std::to_string(a.size - 1));
      } else {  // the first operand of `min` bounds it: sz - 1 fits a buffer of size sz
        std::string am = fresh("am"), iw = i;
        emit(am + " = sub " + a.sizeRef + " 1");
        if (bt != "i64") emit((iw = fresh("w")) + " = cast " + i + " dtype=i64");
        emit(j + " = min " + am + " " + iw);
      }
      emit(q + " = shrink " + a.versions.back().name + " " + j + " shape=[]");
      emit(other + " = load " + q);
    }
    const char *ops[] = {"add", "max", "mul", "sub"};
    emit(y + " = " + ops[pick(4)] + " " + x + " " + other);
    emit(s + " = store " + p + " " + y);
    emit(e + " = end " + i + " " + s);
    newVersion(b, e);
  }

  // A fresh buffer without a slot, t[i] = i (cast to its dtype) in
  // parallel: for every i, or (one time in four) all but the last, whose
  // zero later reads see. Later steps use it like the slot buffers.
  void scratchFill() {
    const char *types[] = {"i32", "i64", "u8", "i16", "u32", "u64", "i8", "f32", "f64"};
    Buf b;
    b.dtype = types[pick(o_.floats ? 9 : 7)];
    b.size = 1 + pick(6);
    b.sizeRef = std::to_string(b.size);
    std::string name = fresh("t");
    if (o_.dynamic && pick(2)) {
      b.sizeRef = fresh("tsz");
      emit(b.sizeRef + " = const " + std::to_string(b.size) + " dtype=i64");
    }
    emit(name + " = buffer " + b.sizeRef + " dtype=" + b.dtype);
    std::string i = fresh("i"), p = fresh("p"), v = fresh("v"), s = fresh("s"), e = fresh("e"), bt;
    bool all = b.size == 1 || pick(4) != 0;
    emit(i + " = range " + (all ? b.sizeRef : bound(b, b.size - 1, bt)) + " parallel");
    emit(p + " = shrink " + name + " " + i + " shape=[]");
    emit(v + " = cast " + i + " dtype=" + b.dtype);
    emit(s + " = store " + p + " " + v);
    emit(e + " = end " + i + " " + s);
    b.versions.push_back({name, -1, INT32_MAX});
    bufs_.push_back(b);
    newVersion(bufs_.back(), e);
  }

  // b[k+1] = b[k] + b[k+1] for k = 0 .. n-2, in place, serially.
  void serialSum() {
    Buf &b = bufs_[static_cast<size_t>(pick(static_cast<int>(bufs_.size())))];
    if (b.size < 2) return store();
    std::string i = fresh("i"), c = fresh("c"), p = fresh("p"), x = fresh("x"), j = fresh("j"), q = fresh("q"), y = fresh("y"),
                z = fresh("z"), s = fresh("s"), nb = fresh("nb"), e = fresh("e");
    std::string bt;
    emit(i + " = range " + bound(b, b.size - 1, bt));
    emit(c + " = carry " + b.versions.back().name);
    emit(p + " = shrink " + c + " " + i + " shape=[]");
    emit(x + " = load " + p);
    emit(j + " = add " + i + " 1");
    emit(q + " = shrink " + c + " " + j + " shape=[]");
    emit(y + " = load " + q);
    emit(z + " = add " + x + " " + y);
    emit(s + " = store " + q + " " + z);
    emit(nb + " = after " + c + " " + s);
    emit(e + " = end " + i + " " + nb);
    newVersion(b, e);
  }

  void reduce() {
    const Buf &b = bufs_[static_cast<size_t>(pick(static_cast<int>(bufs_.size())))];
    std::string i = fresh("i"), p = fresh("p"), x = fresh("x"), e = fresh("e"), r = fresh("r");
    std::string bt, n = bound(b, b.size, bt);
    emit(i + " = range " + n + (pick(2) ? " parallel" : ""));
    emit(p + " = shrink " + b.versions.back().name + " " + i + " shape=[]");
    emit(x + " = load " + p);
    emit(e + " = end " + i);
    const char *ops[] = {"add", "max", "min", "mul"};
    emit(r + " = reduce " + ops[pick(4)] + " " + e + " " + x);
    pool_.push_back({r, b.dtype, b.versions.back().made});
  }

  std::mt19937_64 rng_;
  GenOptions o_;
  GeneratedProgram out_;
  std::vector<Buf> bufs_;
  std::vector<Scalar> pool_;
  int counter_ = 0, stores_ = 0;
};

}  // namespace

GeneratedProgram generateValid(uint64_t seed, const GenOptions &opts) { return Gen(seed, opts).run(); }

const char *breakageRule(Breakage b) {
  switch (b) {
    case Breakage::SecondStore: return "one-store-per-version";
    case Breakage::DroppedAfter: return "store-sequenced";
    case Breakage::WrongAfter: return "after-version";
    case Breakage::OldVersionCycle: return "old-version-order";
    case Breakage::Unbounded: return "bounds";
  }
  return "?";
}

std::string breakProgram(const std::string &valid, Breakage b, uint64_t seed) {
  Graph g;
  Diags d;
  Facts f;
  if (!parseUir(valid, g, d) || !validate(g, f, d)) return valid;  // not ours to break
  // The final versions of the slot buffers with a static size.
  std::vector<NodeId> finals;
  for (uint32_t i = 0; i < g.size(); ++i) {
    NodeId n{i};
    if (f.kind[i] == ResultKind::Version && !f.successor(n).valid() && !g.parent(n).valid() && f.elems[i] > 0 &&
        g.slot(f.storage[i]) >= 0)
      finals.push_back(n);
  }
  if (finals.empty()) return valid;
  std::mt19937_64 rng(seed);
  NodeId v = finals[rng() % finals.size()];
  NodeId other = finals[rng() % finals.size()];
  std::string V = "%" + std::string(g.name(v)), T(dtypeName(f.type[v.v]));
  std::string lit = isFloat(f.type[v.v]) ? "1.0" : "1";
  int64_t n = f.elems[v.v];
  std::string out = valid;
  auto emit = [&](const std::string &l) { out += l + "\n"; };
  switch (b) {
    case Breakage::SecondStore:
      emit("%zz_e = shrink " + V + " 0 shape=[]");
      emit("%zz_s1 = store %zz_e " + lit);
      emit("%zz_n1 = after " + V + " %zz_s1");
      emit("%zz_s2 = store %zz_e " + lit);
      emit("%zz_n2 = after " + V + " %zz_s2");
      break;
    case Breakage::DroppedAfter:
      emit("%zz_e = shrink " + V + " 0 shape=[]");
      emit("%zz_s = store %zz_e " + lit);
      break;
    case Breakage::WrongAfter: {
      // After a version the store did not write: another buffer's, or an
      // older version of this one.
      NodeId w = other != v ? other : NodeId::none();
      if (!w.valid())
        for (uint32_t i = 0; i < g.size() && !w.valid(); ++i)
          if (f.kind[i] == ResultKind::Version && f.storage[i] == f.storage[v.v] && NodeId{i} != v && !g.parent(NodeId{i}).valid())
            w = NodeId{i};
      if (!w.valid()) {  // a buffer with one version: make a second buffer
        emit("%zz_w = buffer 1 dtype=i32");
        w = NodeId::none();
      }
      std::string W = w.valid() ? "%" + std::string(g.name(w)) : "%zz_w";
      emit("%zz_e = shrink " + V + " 0 shape=[]");
      emit("%zz_s = store %zz_e " + lit);
      emit("%zz_n = after " + W + " %zz_s");
      break;
    }
    case Breakage::OldVersionCycle:
      emit("%zz_e = shrink " + V + " 0 shape=[]");
      emit("%zz_s = store %zz_e " + lit);
      emit("%zz_n = after " + V + " %zz_s");
      emit("%zz_f = shrink %zz_n 0 shape=[]");
      emit("%zz_i = load %zz_f");
      emit("%zz_c = cast %zz_i dtype=i64");
      emit("%zz_m = max %zz_c 0");
      emit("%zz_k = mod %zz_m " + std::to_string(n));
      emit("%zz_o = shrink " + V + " %zz_k shape=[]");
      emit("%zz_y = load %zz_o");
      break;
    case Breakage::Unbounded:
      emit("%zz_e = shrink " + V + " 0 shape=[]");
      emit("%zz_i = load %zz_e");
      emit("%zz_c = cast %zz_i dtype=i64");
      emit("%zz_o = shrink " + V + " %zz_c shape=[]");
      emit("%zz_y = load %zz_o");
      break;
  }
  return out;
}

}  // namespace cairn
