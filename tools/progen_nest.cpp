// generateNested: valid flat graphs made of loop nests, for the compiled
// back ends' campaigns (`cairn fuzz --gen nest`, backends c and cuda). The
// std generator (tools/progen.cpp) writes loops one level deep; the CUDA
// back end places work by nesting (docs/uir.md, "Emitted CUDA"), so these
// programs have what its placement table distinguishes:
//   map       a parallel map over a buffer (a kernel), maybe trapping
//             (idiv by a loaded value) in some lanes;
//   reduce    a parallel reduce of every op the dtype takes, its result
//             stored into element 0 (a kernel, a block tree, the spill);
//   host      a serial loop with a carry whose body is a parallel map using
//             the serial index, with a reduce over the serial loop (a host
//             loop, kernel arguments, a spill accumulator);
//   lane      a parallel loop whose lanes run an inner serial or parallel
//             reduce over another buffer (loops inside a kernel's lane);
//   serial    straight-line code on one element (a one-thread kernel);
// each over a literal count or a count loaded from slot 0 and clamped to
// the buffer (a count the host reads back; 0 and negative values too).
// Every random draw is its own statement, so a seed gives one program on
// every compiler (tools/progen.cpp explains why).
#include <random>
#include <string>
#include <vector>

#include "tools/progen.hpp"

namespace cairn {

namespace {

struct Buf {
  std::string cur, dtype;  // the current version's name
  int size = 0;
};

class NestGen {
 public:
  explicit NestGen(uint64_t seed) : rng_(seed * 0x9e3779b97f4a7c15ull + 0x632be59bd9b4e019ull) {}

  std::string run() {
    int lo = pick(9) - 2;  // the count in slot 0: -2 .. 6, or larger
    int big = pick(3);
    const int n0 = big ? lo : 20 + pick(30);
    line("%nb = buffer 1 dtype=i64 slot=0 data=[" + std::to_string(n0) + "]");
    line("%nq = shrink %nb 0 shape=[]");
    line("%nv = load %nq");
    const int nbufs = 2 + pick(2);
    for (int k = 0; k < nbufs; ++k) {
      Buf b;
      b.dtype = kTypes[pick(kTypeCount)];
      b.size = 2 + pick(40);
      b.cur = "%b" + std::to_string(k);
      std::string data;
      for (int i = 0; i < b.size; ++i) data += (i ? " " : "") + value(b.dtype);
      line(b.cur + " = buffer " + std::to_string(b.size) + " dtype=" + b.dtype + " slot=" + std::to_string(k + 1) +
           " data=[" + data + "]");
      bufs_.push_back(b);
    }
    const int blocks = 2 + pick(4);
    for (int s = 0; s < blocks; ++s) {
      const int what = pick(5);
      Buf &b = bufs_[static_cast<size_t>(pick(nbufs))];
      if (what == 0) map(b);
      else if (what == 1) reduce(b);
      else if (what == 2) host(b);
      else if (what == 3) lane(b, bufs_[static_cast<size_t>((&b - bufs_.data() + 1) % nbufs)]);
      else serial(b);
    }
    return out_;
  }

 private:
  static constexpr const char *kTypes[] = {"i8", "u8", "i16", "u16", "i32", "u32", "i64", "u64", "f32", "f64"};
  static constexpr int kTypeCount = 10;

  int pick(int n) { return static_cast<int>(rng_() % static_cast<uint64_t>(n)); }
  std::string fresh(const char *p) { return "%" + std::string(p) + std::to_string(counter_++); }
  void line(const std::string &l) { out_ += l + "\n"; }
  static bool isFloat(const std::string &t) { return t[0] == 'f'; }
  static bool isSigned(const std::string &t) { return t[0] == 'i' || t[0] == 'f'; }

  std::string value(const std::string &t) {
    int v = pick(7);
    if (isSigned(t)) v -= 2;
    std::string s = std::to_string(v);
    return isFloat(t) ? s + (pick(2) ? ".5" : ".0") : s;
  }
  // A count for a loop over b: a literal, or slot 0's value clamped to b.
  std::string count(const Buf &b) {
    if (pick(2)) return std::to_string(b.size);
    std::string c0 = fresh("c"), c1 = fresh("c");
    line(c0 + " = max %nv 0");
    line(c1 + " = min " + c0 + " " + std::to_string(b.size));
    return c1;
  }
  std::string aluOp(const std::string &t) {
    static const char *ints[] = {"add", "sub", "mul", "xor", "and", "or", "max", "min"};
    static const char *floats[] = {"add", "sub", "mul", "max", "min"};
    return isFloat(t) ? floats[pick(5)] : ints[pick(8)];
  }
  std::string reduceOp(const std::string &t) {
    static const char *ints[] = {"add", "mul", "max", "min", "and", "or", "xor"};
    static const char *floats[] = {"add", "mul", "max", "min"};
    return isFloat(t) ? floats[pick(4)] : ints[pick(7)];
  }
  std::string lit(const std::string &t) {
    std::string v = std::to_string(1 + pick(3));
    return isFloat(t) ? v + ".0" : v;
  }
  void after(Buf &b, const std::string &event) {
    std::string v = fresh("v");
    line(v + " = after " + b.cur + " " + event);
    b.cur = v;
  }

  void map(Buf &b) {
    std::string c = count(b), i = fresh("i"), p = fresh("p"), x = fresh("x"), y = fresh("y"), s = fresh("s"), e = fresh("e");
    line(i + " = range " + c + " parallel");
    line("  " + p + " = shrink " + b.cur + " " + i + " shape=[]");
    line("  " + x + " = load " + p);
    const std::string op = aluOp(b.dtype), l = lit(b.dtype);
    line("  " + y + " = " + op + " " + x + " " + l);
    std::string val = y;
    const int trap = pick(4);
    if (trap == 0 && !isFloat(b.dtype)) {  // traps in the lanes whose element is 0
      val = fresh("z");
      line("  " + val + " = idiv " + y + " " + x);
    }
    line("  " + s + " = store " + p + " " + val);
    line(e + " = end " + i + " " + s);
    after(b, e);
  }

  void reduce(Buf &b) {
    std::string c = count(b), i = fresh("i"), p = fresh("p"), x = fresh("x"), e = fresh("e"), t = fresh("t");
    line(i + " = range " + c + " parallel");
    line("  " + p + " = shrink " + b.cur + " " + i + " shape=[]");
    line("  " + x + " = load " + p);
    line(e + " = end " + i);
    line(t + " = reduce " + reduceOp(b.dtype) + " " + e + " " + x);
    storeAt(b, 0, t);
  }
  void storeAt(Buf &b, int at, const std::string &val) {
    std::string q = fresh("q"), s = fresh("s");
    line(q + " = shrink " + b.cur + " " + std::to_string(at) + " shape=[]");
    line(s + " = store " + q + " " + val);
    after(b, s);
  }

  void host(Buf &b) {
    std::string r = pick(2) ? std::to_string(1 + pick(6)) : fresh("r");
    if (r[0] == '%') {  // slot 0's value clamped to [0, 6]
      std::string r0 = fresh("r");
      line(r0 + " = max %nv 0");
      line(r + " = min " + r0 + " 6");
    }
    std::string j = fresh("j"), bc = fresh("bc"), jc = fresh("jc"), w = fresh("w"), i = fresh("i"), p = fresh("p"),
                x = fresh("x"), y = fresh("y"), s = fresh("s"), e = fresh("e"), bn = fresh("bn"), ee = fresh("ee");
    line(j + " = range " + r);
    line("  " + bc + " = carry " + b.cur);
    line("  " + jc + " = cast " + j + " dtype=" + b.dtype);
    const std::string op = aluOp(b.dtype), l = lit(b.dtype);
    line("  " + w + " = " + op + " " + jc + " " + l);
    line("  " + i + " = range " + std::to_string(b.size) + " parallel");
    line("    " + p + " = shrink " + bc + " " + i + " shape=[]");
    line("    " + x + " = load " + p);
    line("    " + y + " = " + aluOp(b.dtype) + " " + x + " " + w);
    line("    " + s + " = store " + p + " " + y);
    line("  " + e + " = end " + i + " " + s);
    line("  " + bn + " = after " + bc + " " + e);
    line(ee + " = end " + j + " " + bn);
    after(b, ee);
    if (pick(2)) {
      std::string t = fresh("t");
      line(t + " = reduce " + reduceOp(b.dtype) + " " + ee + " " + w);
      storeAt(b, b.size - 1, t);
    }
  }

  void lane(Buf &b, const Buf &src) {
    std::string c = count(b), i = fresh("i"), p = fresh("p"), k = fresh("k"), q = fresh("q"), y = fresh("y"),
                ek = fresh("ek"), t = fresh("t"), tc = fresh("tc"), s = fresh("s"), e = fresh("e");
    const bool inner = pick(2);
    line(i + " = range " + c + " parallel");
    line("  " + p + " = shrink " + b.cur + " " + i + " shape=[]");
    line("  " + k + " = range " + std::to_string(src.size) + (inner ? " parallel" : ""));
    line("    " + q + " = shrink " + src.cur + " " + k + " shape=[]");
    line("    " + y + " = load " + q);
    line("  " + ek + " = end " + k);
    line("  " + t + " = reduce " + reduceOp(src.dtype) + " " + ek + " " + y);
    line("  " + tc + " = cast " + t + " dtype=" + b.dtype);
    line("  " + s + " = store " + p + " " + tc);
    line(e + " = end " + i + " " + s);
    after(b, e);
  }

  void serial(Buf &b) {
    std::string q = fresh("q"), x = fresh("x"), y = fresh("y");
    line(q + " = shrink " + b.cur + " 1 shape=[]");
    line(x + " = load " + q);
    const std::string op = aluOp(b.dtype), l = lit(b.dtype);
    line(y + " = " + op + " " + x + " " + l);
    std::string s = fresh("s");
    line(s + " = store " + q + " " + y);
    after(b, s);
  }

  std::mt19937_64 rng_;
  std::string out_;
  std::vector<Buf> bufs_;
  int counter_ = 0;
};

}  // namespace

std::string generateNested(uint64_t seed) { return NestGen(seed).run(); }

}  // namespace cairn
