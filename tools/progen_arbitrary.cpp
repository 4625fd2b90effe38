// Arbitrary small .uir programs, valid or not (see progen.hpp).
//
// Unlike generateValid, nothing here tries to be correct: loads pick any
// version (old ones too), stores sometimes go into a version that already
// has one, `after`s are sometimes missing, doubled or name another version,
// indices are sometimes unmasked, half-masked or one past the end, parallel
// loops sometimes store at i+1 or 2*i or read a neighbour, serial loops
// sometimes read the version they overwrite. What it does keep is the
// structure layer's rules (dtypes, kinds, loop scoping), so that the
// ordering and bounds rules, which the referee decides, are what varies.
// Index sources are mostly narrow (8- and 16-bit loads, loop indices), so
// the referee can enumerate every value and its verdict is exact.
#include <algorithm>
#include <string>
#include <vector>

#include "tools/progen.hpp"

namespace cairn {

namespace {

struct Buf {
  std::string name, dtype, size;  // size: a literal, or the name of an i64 scalar
  int n;                          // its value
  std::vector<std::string> versions;  // back() is the newest
};

struct Val {
  std::string name, dtype;
};

bool floaty(const std::string &t) { return t[0] == 'f'; }
int dtypeBits(const std::string &t) { return t == "u8" || t == "i8" ? 8 : t == "u16" || t == "i16" ? 16 : 32; }

class Wild {
 public:
  Wild(uint64_t seed, const ArbitraryOptions &o) : rng_(seed), o_(o) {}

  std::string run() {
    out_ = "# arbitrary program\n";
    int nb = 1 + pick(o_.buffers);
    const char *types[] = {"u8", "i8", "i16", "i32", "u16", "i64", "f32"};
    for (int k = 0; k < nb; ++k) {
      Buf b;
      b.name = "%b" + std::to_string(k);
      b.dtype = types[pick(o_.floats ? 7 : 6)];
      b.n = 1 + pick(6);
      const Buf *from = nullptr;  // a narrow buffer to load a dynamic size from
      for (const Buf &o : bufs_)
        if (!floaty(o.dtype) && o.size[0] != '%' && dtypeBits(o.dtype) <= 16) from = &o;
      if (o_.dynamic && pick(4) == 0) {
        b.size = "%sz" + std::to_string(k);
        if (from && chance(50)) {  // a size nobody knows: only symbolic reasoning proves views in it
          std::string p = fresh("p"), x = fresh("x");
          emit(p + " = shrink " + from->name + " 0 shape=[]");
          emit(x + " = load " + p);
          emit(b.size + " = cast " + x + " dtype=i64");
          pool_.push_back({x, from->dtype});
        } else {
          emit(b.size + " = const " + std::to_string(b.n) + " dtype=i64");
        }
        emit(b.name + " = buffer " + b.size + " dtype=" + b.dtype + " slot=" + std::to_string(k));
      } else {
        b.size = std::to_string(b.n);
        std::string data;
        for (int i = 0; i < b.n; ++i) data += (i ? " " : "") + lit(b.dtype);
        emit(b.name + " = buffer " + b.size + " dtype=" + b.dtype + " slot=" + std::to_string(k) + " data=[" + data + "]");
      }
      b.versions.push_back(b.name);
      bufs_.push_back(b);
    }
    for (int s = 0; s < o_.steps && memOps_ < o_.maxMemOps; ++s) {
      switch (pick(16)) {
        case 0: case 1: case 2: load(); break;
        case 3: case 4: case 5: store(); break;
        case 6: case 7: alu(); break;
        case 8: case 9: parallel(); break;
        case 10: serial(); break;
        case 11: nested(); break;
        case 12: twoStores(); break;
        case 13: rows(); break;
        default: reduce(); break;
      }
    }
    return out_;
  }

 private:
  int pick(int n) { return static_cast<int>(rng_() % static_cast<uint64_t>(n)); }
  bool chance(int pct) { return pick(100) < pct; }
  std::string fresh(const char *p) { return "%" + std::string(p) + std::to_string(counter_++); }
  void emit(const std::string &l) { out_ += std::string(static_cast<size_t>(depth_ * 2), ' ') + l + "\n"; }
  Buf &anyBuf() { return bufs_[static_cast<size_t>(pick(static_cast<int>(bufs_.size())))]; }

  std::string lit(const std::string &t) {
    if (floaty(t)) { const char *f[] = {"0.5", "-2.0", "nan", "inf", "3.0"}; return f[pick(5)]; }
    if (t[0] == 'u') return std::to_string(pick(t == "u8" ? 256 : 70000) % (t == "u8" ? 256 : 65536));
    const char *v[] = {"0", "1", "-1", "2", "3", "-7", "5", "127"};
    return v[pick(8)];
  }

  // An integer scalar from the pool (narrow ones preferred), or none.
  const Val *intScalar() {
    std::vector<const Val *> c;
    for (const Val &v : pool_)
      if (!floaty(v.dtype)) c.push_back(&v);
    if (c.empty()) return nullptr;
    return c[static_cast<size_t>(pick(static_cast<int>(c.size())))];
  }

  // An index into b: usually in range, sometimes not. The masks are those
  // a user writes (max + mod, min, and, shr, idiv, where), some of them off
  // by one; into a dynamic size they refer to the size scalar.
  std::string index(const Buf &b) {
    bool dyn = b.size[0] == '%';
    const Val *x = intScalar();
    if (!x || chance(dyn ? 15 : 40)) {
      if (!dyn) return std::to_string(chance(85) ? pick(b.n) : b.n);
      std::string k = fresh("k");
      emit(k + " = mod " + std::to_string(pick(4)) + " " + b.size);  // valid while size >= 1; 0 traps
      return k;
    }
    std::string v = x->name;
    if (x->dtype != "i64") emit((v = fresh("w")) + " = cast " + x->name + " dtype=i64");
    std::string m = fresh("m"), k = fresh("k"), t = fresh("t");
    std::string last = dyn ? fresh("z") : std::to_string(b.n - 1);  // the last index
    if (dyn) emit(last + " = sub " + b.size + " 1");
    auto masked = [&] {
      emit(m + " = max " + v + " 0");
      emit(k + " = mod " + m + " " + b.size);
    };
    switch (pick(14)) {
      case 0: return v;                                            // unmasked
      case 1: emit(k + " = mod " + v + " " + b.size); return k;    // negative for a negative value
      case 2: emit(k + " = max " + v + " 0"); return k;            // no upper bound
      case 3:
        emit(m + " = max " + v + " 0");
        if (chance(50)) emit(k + " = min " + last + " " + m);
        else emit(k + " = min " + m + " " + (dyn || chance(70) ? last : std::to_string(b.n)));
        return k;
      case 4: masked(); emit(t + " = add " + k + " 1"); return t;  // one past the end
      case 5: masked(); emit(t + " = sub " + k + " 1"); return t;  // -1 at 0
      case 6:
        if (dyn) break;
        emit(k + " = and " + v + " " + std::to_string(b.n - 1 + (chance(80) ? 0 : 1)));
        return k;
      case 7: {
        if (dyn || x->dtype[0] != 'u' || dtypeBits(x->dtype) > 16) break;
        std::string y = fresh("y");
        emit(y + " = shr " + x->name + " " + std::to_string(dtypeBits(x->dtype) - 1 - pick(3)));
        emit(k + " = cast " + y + " dtype=i64");
        return k;
      }
      case 8:  // mod by size - 1, then + 1: in [1, size - 1]
        emit(m + " = max " + v + " 0");
        emit(t + " = mod " + m + " " + (dyn ? last : std::to_string(b.n > 1 ? b.n - 1 : 1)));
        emit(k + " = add " + t + " 1");
        return k;
      case 9: {
        masked();
        std::string c = fresh("q");
        emit(c + " = cmplt " + k + " 1");
        emit(t + " = where " + c + " " + k + " " + (chance(80) ? "0" : dyn ? b.size : std::to_string(b.n)));
        return t;
      }
      case 10:
        emit(m + " = max " + v + " 0");
        emit(k + " = idiv " + m + " " + std::to_string(chance(50) ? 64 : 8192));
        return k;
      default: break;
    }
    masked();
    return k;
  }

  void load() {
    Buf &b = anyBuf();
    const std::string &v = chance(70) ? b.versions.back() : b.versions[static_cast<size_t>(pick(static_cast<int>(b.versions.size())))];
    std::string idx = index(b), p = fresh("p"), x = fresh("x");
    emit(p + " = shrink " + v + " " + idx + " shape=[]");
    emit(x + " = load " + p);
    pool_.push_back({x, b.dtype});
    ++memOps_;
  }

  // Sequences event e that writes version v of b: usually right.
  void sequence(Buf &b, const std::string &v, const std::string &e) {
    int how = pick(100);
    if (how < 8) return;  // no after
    if (how < 15) {       // an after naming another version
      Buf &o = anyBuf();
      const std::string &w = o.versions[static_cast<size_t>(pick(static_cast<int>(o.versions.size())))];
      std::string n = fresh("n");
      emit(n + " = after " + w + " " + e);
      o.versions.insert(o.versions.begin(), n);  // a version, though never the newest
      return;
    }
    std::string n = fresh("n");
    emit(n + " = after " + v + " " + e);
    if (how < 20) emit(fresh("n") + " = after " + v + " " + e);  // twice
    b.versions.push_back(n);
  }

  void store() {
    Buf &b = anyBuf();
    std::string v = chance(80) ? b.versions.back() : b.versions[static_cast<size_t>(pick(static_cast<int>(b.versions.size())))];
    std::string idx = index(b), p = fresh("p"), s = fresh("s");
    emit(p + " = shrink " + v + " " + idx + " shape=[]");
    emit(s + " = store " + p + " " + value(b.dtype));
    ++memOps_;
    sequence(b, v, s);
  }

  std::string value(const std::string &t) {
    for (const Val &v : pool_)
      if (v.dtype == t && chance(50)) return v.name;
    return lit(t);
  }

  void alu() {
    const Val *x = intScalar();
    if (!x) return load();
    Val a = *x;
    std::string r = fresh("a");
    switch (pick(6)) {
      case 0: emit(r + " = add " + a.name + " " + lit(a.dtype)); break;
      case 1: emit(r + " = neg " + a.name); break;
      case 2: emit(r + " = shr " + a.name + " " + std::to_string(pick(3))); break;
      case 3: emit(r + " = and " + a.name + " 3"); break;
      case 4: {
        const char *to[] = {"u8", "i8", "i16", "i32"};
        std::string t = to[pick(4)];
        emit(r + " = cast " + a.name + " dtype=" + t);
        pool_.push_back({r, t});
        return;
      }
      default: emit(r + " = sub " + a.name + " " + a.name); break;
    }
    pool_.push_back({r, a.dtype});
  }

  // The last index of b (a literal, or `sub SIZE 1`).
  std::string lastOf(const Buf &b) {
    if (b.size[0] != '%') return std::to_string(b.n - 1);
    std::string z = fresh("z");
    emit(z + " = sub " + b.size + " 1");
    return z;
  }

  // A bound for a loop over b: its size, or one off, literal or dynamic.
  std::string bound(const Buf &b) {
    int n = b.n + (chance(80) ? 0 : (chance(50) ? 1 : -1));
    if (b.size[0] == '%' && chance(90)) {
      if (chance(80)) return b.size;
      std::string c = fresh("c");
      emit(c + " = " + (chance(50) ? "sub " : "add ") + b.size + " 1");
      return c;
    }
    if (o_.dynamic && chance(30)) {
      std::string c = fresh("c");
      emit(c + " = const " + std::to_string(n) + " dtype=i64");
      return c;
    }
    return std::to_string(n < 0 ? 0 : n);
  }

  void parallel() {
    Buf &b = anyBuf();
    Buf &a = anyBuf();
    std::string V = b.versions.back();
    std::string i = fresh("i"), p = fresh("p"), x = fresh("x"), s = fresh("s"), e = fresh("e");
    emit(i + " = range " + bound(b) + " parallel");
    ++depth_;
    std::string at = i;
    int how = pick(10);
    if (how == 0) emit((at = fresh("j")) + " = add " + i + " 1");
    else if (how == 1) emit((at = fresh("j")) + " = mul " + i + " 2");
    else if (how == 2) at = "0";
    emit(p + " = shrink " + V + " " + at + " shape=[]");
    emit(x + " = load " + p);
    std::string y = x;
    if (&a != &b && a.dtype == b.dtype && chance(60)) {
      std::string q = fresh("p"), z = fresh("x"), j = fresh("j");
      emit(j + " = min " + lastOf(a) + " " + i);
      const std::string &av = chance(80) ? a.versions.back() : a.versions[static_cast<size_t>(pick(static_cast<int>(a.versions.size())))];
      emit(q + " = shrink " + av + " " + j + " shape=[]");
      emit(z + " = load " + q);
      emit((y = fresh("y")) + " = add " + x + " " + z);
      ++memOps_;
    } else if (chance(20)) {  // a neighbour of the version being written
      std::string q = fresh("p"), z = fresh("x"), j = fresh("j");
      emit(j + " = add " + i + " 1");
      emit(q + " = shrink " + V + " " + j + " shape=[]");
      emit(z + " = load " + q);
      emit((y = fresh("y")) + " = add " + x + " " + z);
      ++memOps_;
    } else if (!floaty(b.dtype)) {
      emit((y = fresh("y")) + " = add " + x + " 1");
    }
    emit(s + " = store " + p + " " + y);
    --depth_;
    emit(e + " = end " + i + (chance(90) ? " " + s : ""));
    memOps_ += 2;
    sequence(b, V, e);
  }

  void serial() {
    Buf &b = anyBuf();
    std::string V = b.versions.back();
    std::string i = fresh("i"), c = fresh("c"), p = fresh("p"), x = fresh("x"), s = fresh("s"), nb = fresh("nb"), e = fresh("e");
    emit(i + " = range " + bound(b));
    ++depth_;
    emit(c + " = carry " + V);
    emit(p + " = shrink " + (chance(85) ? c : V) + " " + i + " shape=[]");  // sometimes the outer version
    emit(x + " = load " + p);
    std::string q = fresh("q");
    std::string j = fresh("j");
    emit(j + " = min " + lastOf(b) + " " + i);
    emit(q + " = shrink " + c + " " + j + " shape=[]");
    if (chance(8)) {  // a store into the outer version: once per iteration
      std::string r = fresh("p");
      emit(r + " = shrink " + V + " 0 shape=[]");
      emit(fresh("s") + " = store " + r + " " + x);
    }
    emit(s + " = store " + q + " " + (floaty(b.dtype) ? x : value(b.dtype)));
    emit(nb + " = after " + c + " " + s);
    --depth_;
    emit(e + " = end " + i + " " + nb);
    memOps_ += 2;
    sequence(b, V, e);
  }

  // Rows of b in parallel (R x C, C dividing the size), each row either a
  // serial scan carrying b or an inner parallel loop; offsets row*C + j,
  // sometimes off by one or forgetting the row.
  void nested() {
    Buf &b = anyBuf();
    if (floaty(b.dtype) || b.size[0] == '%') return parallel();
    int C = b.n >= 4 ? 2 + pick(b.n / 2 - 1) : 1, R = b.n / C + (chance(85) ? 0 : 1);
    std::string V = b.versions.back();
    std::string i = fresh("i"), r = fresh("r"), j = fresh("j"), o = fresh("o"), p = fresh("p"), x = fresh("x"), s = fresh("s"),
                e = fresh("e"), ej = fresh("e");
    emit(i + " = range " + std::to_string(R) + " parallel");
    ++depth_;
    emit(r + " = mul " + i + " " + std::to_string(C));
    bool serialInner = chance(50);
    emit(j + " = range " + std::to_string(C) + (serialInner ? "" : " parallel"));
    ++depth_;
    std::string view = V, c = fresh("c");
    if (serialInner) emit(c + " = carry " + V), view = c;
    int how = pick(10);
    emit(o + " = " + (how == 0 ? "add " + j + " " + i : "add " + r + " " + j));
    emit(p + " = shrink " + view + " " + o + " shape=[]");
    std::string src = serialInner && chance(10) ? V : view;  // the outer version: read while overwritten
    std::string q = fresh("q");
    emit(q + " = shrink " + src + " " + (how == 1 ? "0" : o) + " shape=[]");
    emit(x + " = load " + q);
    emit(s + " = store " + p + " " + x);
    memOps_ += 2;
    std::string last = s;
    if (serialInner) emit((last = fresh("nb")) + " = after " + c + " " + s);
    --depth_;
    emit(ej + " = end " + j + " " + last);
    --depth_;
    emit(e + " = end " + i + " " + ej);
    sequence(b, V, e);
  }

  // Two stores in one parallel body: into two buffers at i (fine), or into
  // one version (always a second store into it), at 2i and 2i+1, or one
  // element twice, or i and 2i (a clash too).
  void twoStores() {
    Buf &b = anyBuf();
    if (floaty(b.dtype) || b.n < 2 || b.size[0] == '%') return store();
    std::string V = b.versions.back();
    std::string i = fresh("i"), t = fresh("t"), u = fresh("u"), p = fresh("p"), q = fresh("q"), s1 = fresh("s"), s2 = fresh("s"),
                e = fresh("e");
    Buf &a = anyBuf();
    if (&a != &b && chance(50)) {  // two buffers, one after each: fine
      std::string W = a.versions.back();
      int n = std::min(a.n, b.n);
      emit(i + " = range " + std::to_string(n) + " parallel");
      emit("  " + p + " = shrink " + V + " " + i + " shape=[]");
      emit("  " + q + " = shrink " + W + " " + (chance(90) ? i : "0") + " shape=[]");
      emit("  " + s1 + " = store " + p + " " + lit(b.dtype));
      emit("  " + s2 + " = store " + q + " " + lit(a.dtype));
      emit(e + " = end " + i + " " + s1 + " " + s2);
      memOps_ += 2;
      sequence(b, V, e);
      sequence(a, W, e);
      return;
    }
    emit(i + " = range " + std::to_string(b.n / 2) + " parallel");
    ++depth_;
    int how = pick(6);
    emit(t + " = mul " + i + " 2");
    emit(u + " = add " + t + " " + (how == 0 ? "0" : "1"));
    emit(p + " = shrink " + V + " " + (how == 1 ? i : t) + " shape=[]");
    emit(q + " = shrink " + V + " " + u + " shape=[]");
    emit(s1 + " = store " + p + " " + lit(b.dtype));
    emit(s2 + " = store " + q + " " + lit(b.dtype));
    --depth_;
    emit(e + " = end " + i + " " + s1 + " " + s2);
    memOps_ += 2;
    sequence(b, V, e);
  }

  // A 1-D window of b, then an element of it: 2-D views, static bounds.
  void rows() {
    Buf &b = anyBuf();
    if (b.size[0] == '%') return load();
    int w = 1 + pick(b.n), off = pick(b.n - w + 1);  // one draw per full-expression: operand order is unspecified
    off += chance(90) ? 0 : 1;
    std::string V = b.versions.back(), row = fresh("w"), p = fresh("p");
    emit(row + " = shrink " + V + " " + std::to_string(off) + " shape=[" + std::to_string(w) + "]");
    int at = pick(w);
    at += chance(90) ? 0 : 1;
    emit(p + " = shrink " + row + " " + std::to_string(at) + " shape=[]");
    if (chance(50)) {
      emit(fresh("x") + " = load " + p);
    } else {
      std::string s = fresh("s");
      emit(s + " = store " + p + " " + lit(b.dtype));
      sequence(b, V, s);
    }
    ++memOps_;
  }

  void reduce() {
    Buf &b = anyBuf();
    const std::string &V = b.versions[static_cast<size_t>(pick(static_cast<int>(b.versions.size())))];
    std::string i = fresh("i"), p = fresh("p"), x = fresh("x"), e = fresh("e"), r = fresh("r");
    std::string n = bound(b);  // one draw per full-expression: operand order is unspecified
    emit(i + " = range " + n + (chance(50) ? " parallel" : ""));
    ++depth_;
    emit(p + " = shrink " + V + " " + i + " shape=[]");
    emit(x + " = load " + p);
    --depth_;
    emit(e + " = end " + i);
    emit(r + " = reduce " + (floaty(b.dtype) ? "max" : "add") + " " + e + " " + x);
    pool_.push_back({r, b.dtype});
    ++memOps_;
  }

  std::mt19937_64 rng_;
  ArbitraryOptions o_;
  std::string out_;
  std::vector<Buf> bufs_;
  std::vector<Val> pool_;
  int counter_ = 0, depth_ = 0, memOps_ = 0;
};

}  // namespace

std::string generateArbitrary(uint64_t seed, const ArbitraryOptions &opts) {
  if (opts.wrapIndices) return generateWrapIndices(seed, opts);
  return Wild(seed, opts).run();
}

}  // namespace cairn
