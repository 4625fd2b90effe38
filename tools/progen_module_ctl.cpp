// Random valid modules (tools/progen_module.hpp): loops, calls, the heap
// and whole functions. A body is opened by `openBody` (carrying or
// freezing the views around it) and closed by `closeBody` (freeing its
// heap objects, its `end`, the carried views' `after`s, maybe a
// `reduce`). Termination: a function calls only functions written before
// it, and itself only inside `if depth > 0` with `depth - 1` (callers pass
// at most maxDepth); loop counts are literals or values masked to 0..3,
// `until` loops stop at an index literal, and the iterations a body is
// nested in are capped. `cost` estimates the lines a function runs; a call
// is written only while the caller's budget allows the callee's.
#include "tools/progen_module_impl.hpp"

namespace cairn::modgen {

namespace {
constexpr long kMaxMult = 48;  // iterations a body may be nested in
}

void ModGen::openBody(long iterations, const std::string &index, bool parallel) {
  Scope s;
  s.vals = vals_.size();
  s.views = views_.size();
  s.heaps = heaps_.size();
  s.mult = mult() * iterations;
  s.index = index;
  s.parallel = parallel;
  scopes_.push_back(s);
  for (size_t k = 0; k < s.views; ++k) {
    View &v = views_[k];
    if (v.hidden || !v.writable) continue;
    if (!parallel && chance(60)) {
      View in = v;
      in.cur = fresh("cy");
      emit(in.cur + " = carry " + v.cur);
      v.hidden = true;
      scopes_.back().carried.push_back(k);
      views_.push_back(in);
      scopes_.back().carriedAt.push_back(views_.size() - 1);
    } else {
      v.writable = false;
      scopes_.back().frozen.push_back(k);
    }
  }
}

// Closes the innermost body: its frees, `end INDEX` with the carried
// versions (a parallel loop: `stores`, into view `target`), the afters and
// maybe a reduce.
void ModGen::closeBody(const std::string &index, const std::vector<std::string> &stores, int target) {
  Scope s = scopes_.back();
  freeHeaps();
  std::string ops;
  for (size_t at : s.carriedAt) ops += " " + views_[at].cur;
  for (const auto &st : stores) ops += " " + st;
  std::vector<Val> body(vals_.begin() + static_cast<long>(s.vals), vals_.end());
  vals_.resize(s.vals);
  views_.resize(s.views);
  heaps_.resize(s.heaps);
  scopes_.pop_back();
  for (size_t k : s.frozen) views_[k].writable = true;
  std::string e = fresh("e");
  emit(e + " = end " + index + ops);
  for (size_t k : s.carried) {
    std::string a = fresh("v");
    emit(a + " = after " + views_[k].cur + " " + e);
    views_[k].cur = a;
    views_[k].hidden = false;
  }
  if (target >= 0 && !stores.empty()) {
    std::string a = fresh("v");
    emit(a + " = after " + views_[static_cast<size_t>(target)].cur + " " + e);
    views_[static_cast<size_t>(target)].cur = a;
  }
  if (body.empty() || !chance(50)) return;
  const Val &x = body[static_cast<size_t>(pick(static_cast<int>(body.size())))];
  std::vector<std::string> rops = {"max", "min"};
  if (x.dt != "bool") rops.insert(rops.end(), {"add", "mul"});
  if (!isFloatDt(x.dt)) rops.insert(rops.end(), {"and", "or", "xor"});
  std::string r = fresh("r");
  emit(r + " = reduce " + rops[static_cast<size_t>(pick(static_cast<int>(rops.size())))] + " " + e + " " + x.name);
  addVal(r, x.dt);
}

void ModGen::block(int n, int depth) {
  for (int k = 0; k < n; ++k) statement(depth);
}

void ModGen::loopStmt(int depth) {
  long n = 1 + pick(3);
  std::string cnt = std::to_string(n), idt = "i64";
  if (chance(40)) {
    Val s = smallOf(intDtype());
    cnt = fresh("m");
    emit(cnt + " = and " + s.name + " 3");
    n = 3;
    idt = s.dt;
  } else if (chance(20)) {  // a signed count that may be negative: no iteration
    const char *sd[] = {"i8", "i16", "i32", "i64"};
    Val s = valOf(sd[pick(4)]);
    cnt = fresh("m");
    emit(cnt + " = min " + s.name + " 3");
    n = 3;
    idt = s.dt;
  }
  if (mult() * n > kMaxMult) return;
  std::string i = fresh("i");
  emit(i + " = range " + cnt);
  openBody(n, i, false);
  addVal(i, idt, true);
  block(1 + pick(4), depth + 1);
  closeBody(i, {}, -1);
}

void ModGen::ifStmt(int depth) {
  Val c = boolVal();
  std::string k = fresh("if"), i = fresh("i");
  emit(k + " = cast " + c.name + " dtype=u64");
  emit(i + " = range " + k);
  openBody(1, i, false);
  addVal(i, "u64", true);
  block(1 + pick(4), depth + 1);
  closeBody(i, {}, -1);
}

// A `while` (range over the largest u64) or a counted loop that `until`
// may end early; either way it stops at index K at the latest.
void ModGen::untilStmt(int depth) {
  int k = pick(4);
  bool forever = chance(60);
  long n = forever ? k + 1 : 6;
  if (mult() * n > kMaxMult) return;
  std::string cnt = "6", idt = "i64";
  if (forever) {
    cnt = fresh("max");
    emit(cnt + " = const 18446744073709551615 dtype=u64");
    idt = "u64";
  }
  std::string i = fresh("i");
  emit(i + " = range " + cnt);
  openBody(n, i, false);
  addVal(i, idt, true);
  auto stop = [&] {
    std::string c = fresh("q");
    if (!forever && chance(50)) c = boolVal().name;
    else emit(c + " = cmpeq " + i + " " + std::to_string(k));
    emit(fresh("u") + " = until " + c);
  };
  bool early = chance(30);
  if (early) stop();
  block(1 + pick(3), depth + 1);
  if (!early) stop();
  closeBody(i, {}, -1);
}

// A loop over the elements of a view (`range (len V)`): its index is in
// range of V and of the copies carried from it.
void ModGen::lenLoopStmt(int depth) {
  int vi = anyView(false);
  if (vi < 0 || mult() * 20 > kMaxMult) return;
  std::string n = fresh("len"), i = fresh("i");
  int id = views_[static_cast<size_t>(vi)].id;
  emit(n + " = len " + views_[static_cast<size_t>(vi)].cur);
  emit(i + " = range " + n);
  openBody(20, i, false);
  scopes_.back().lenView = id;
  addVal(i, "u64");
  block(1 + pick(3), depth + 1);
  closeBody(i, {}, -1);
}

// A parallel loop: each lane reads what it likes from views frozen around
// it and writes lane i of one buffer; maybe a reduction.
void ModGen::parallelStmt() {
  if (mult() > 16 || scopes_.back().parallel) return;
  int t = -1;
  for (size_t k = 0; k < views_.size(); ++k)
    if (!views_[k].hidden && views_[k].writable && !views_[k].dynamic && views_[k].len > 0 && (t < 0 || chance(50)))
      t = static_cast<int>(k);
  bool store = t >= 0 && chance(85);
  int n = t >= 0 ? 1 + pick(views_[static_cast<size_t>(t)].len) : 1 + pick(6);
  std::string i = fresh("i");
  emit(i + " = range " + std::to_string(n) + " parallel");
  openBody(n, i, true);
  if (t >= 0) views_[static_cast<size_t>(t)].hidden = true;
  addVal(i, "i64", true);
  for (int k = 1 + pick(3); k > 0; --k) {
    int r = pick(4);
    if (r == 0) constStmt();
    else if (r == 1) castStmt();
    else if (r == 2 && anyView(false) >= 0) loadStmt();
    else if (r == 3 && chance(30)) callStmt(1);
    else aluStmt();
  }
  std::vector<std::string> stores;
  if (store) {
    const View v = views_[static_cast<size_t>(t)];
    std::string p = fresh("p"), s = fresh("st");
    emit(p + " = shrink " + v.cur + " " + i + " shape=[]");
    std::string value = valOf(v.dt).name;
    if (chance(40)) {
      std::string o = fresh("ld"), x = fresh("x");
      emit(o + " = load " + p);
      emit(x + " = " + (v.dt == "bool" ? "xor " : "max ") + o + " " + value);
      addVal(x, v.dt);
      value = x;
    }
    emit(s + " = store " + p + " " + value);
    stores.push_back(s);
  }
  if (t >= 0) views_[static_cast<size_t>(t)].hidden = false;
  closeBody(i, stores, store ? t : -1);
}

// In a parallel body only callees without `rw` parameters (nothing the
// lanes share is written).
void ModGen::callStmt(int) {
  bool par = scopes_.back().parallel;
  std::vector<size_t> c;
  for (size_t k = 0; k < self_; ++k) {
    bool rw = false;
    for (const Param &p : fns_[k].params) rw = rw || p.mode == 2;
    if (fns_[k].cost * mult() <= budget_ - cost_ && !(par && rw)) c.push_back(k);
  }
  if (c.empty()) return;
  size_t fi = c[static_cast<size_t>(pick(static_cast<int>(c.size())))];
  for (size_t k : c)
    if (!fns_[k].called && chance(50)) fi = k;
  call(fi, {});
}

// Calls fns_[fi]: scalars (those given in scalarArgs first), and views the
// caller has -- whole or a part of one -- or fresh buffers; each `rw`
// argument's call_write and after.
void ModGen::call(size_t fi, const std::vector<std::string> &scalarArgs) {
  const Fn f = fns_[fi];
  std::vector<std::string> args;
  std::vector<int> ids;
  std::vector<std::pair<size_t, size_t>> writes;  // (argument, view)
  for (size_t k = 0; k < f.params.size(); ++k) {
    const Param &p = f.params[k];
    if (k < scalarArgs.size()) {
      args.push_back(scalarArgs[k]);
      continue;
    }
    if (p.mode == 0) {
      if (f.recursive && k == 0) args.push_back(std::to_string(pick(o_.maxDepth + 1)));
      else args.push_back(chance(30) ? literal(p.dt) : valOf(p.dt).name);
      continue;
    }
    int vi = findView(p.dt, p.minLen, p.mode == 2, ids);
    if (vi < 0) {
      int len = p.minLen + pick(3);
      vi = static_cast<int>(newBuffer(p.dt, len, chance(15)));
    }
    const View v = views_[static_cast<size_t>(vi)];
    ids.push_back(v.id);
    std::string a = v.cur;
    if (v.len > p.minLen && chance(35)) {
      int lo = pick(v.len - p.minLen + 1);
      int hi = lo + p.minLen + pick(v.len - lo - p.minLen + 1);
      a = fresh("pt");
      emit(a + " = part " + v.cur + " " + std::to_string(lo) + " " + std::to_string(hi));
    }
    args.push_back(a);
    if (p.mode == 2) writes.emplace_back(k, static_cast<size_t>(vi));
  }
  std::string c = fresh("call"), line = c + " = call";
  for (const auto &a : args) line += " " + a;
  bool value = !f.ret.empty() && chance(80);
  emit(line + " fn=" + f.name + (value ? " dtype=" + f.ret : ""));
  cost_ += mult() * f.cost;
  fns_[fi].called = true;
  for (auto [k, vi] : writes) {
    std::string w = fresh("cw"), a = fresh("v");
    emit(w + " = call_write " + c + " " + std::to_string(k));
    emit(a + " = after " + views_[vi].cur + " " + w);
    views_[vi].cur = a;
  }
  if (value) addVal(c, f.ret);
}

// The recursive call: `if depth > 0 { self(depth - 1, ...) }`, once.
void ModGen::recursionStmt() {
  Fn &f = fns_[self_];
  if (!f.recursive || recursed_) return;
  recursed_ = true;
  std::string d = "%a0", pos = fresh("pos"), k = fresh("if"), i = fresh("i");
  emit(pos + " = cmplt 0 " + d);
  emit(k + " = cast " + pos + " dtype=u64");
  emit(i + " = range " + k);
  openBody(1, i, false);
  std::string d1 = fresh("dn");
  emit(d1 + " = sub " + d + " 1");
  if (chance(40)) block(1, 1);
  call(self_, {d1});
  if (chance(40)) block(1, 1);
  closeBody(i, {}, -1);
}

// A heap object, maybe owning a second one through its `own` column, and
// maybe a deref of handle 0 (an empty view). Freed when the scope closes.
void ModGen::heapStmt() {
  if (scopes_.back().parallel) return;
  std::string dt = anyDtype(), h = fresh("h"), n = std::to_string(1 + pick(6));
  int len = std::stoi(n);
  if (chance(25)) {
    Val s = smallOf("u64");
    n = fresh("n");
    emit(n + " = add " + s.name + " 1");
    len = 1;
  }
  bool own = chance(40);
  emit(h + " = alloc " + n + " cols=[" + dt + (own ? " own" : "") + (chance(30) ? " " + anyDtype() : "") + "]");
  heaps_.push_back(h);
  auto deref = [&](const std::string &obj, const std::string &t, int l) {
    View v;
    v.cur = fresh("o");
    emit(v.cur + " = deref " + obj + " 0 dtype=" + t);
    v.dt = t;
    v.id = nextId_++;
    v.len = l;
    v.dynamic = true;
    views_.push_back(v);
  };
  deref(h, dt, len);
  if (own) {
    std::string c = fresh("h"), ct = anyDtype(), oc = fresh("own"), p = fresh("p"), s = fresh("st"), a = fresh("v");
    int cl = 1 + pick(4);
    emit(c + " = alloc " + std::to_string(cl) + " cols=[" + ct + "]");
    emit(oc + " = deref " + h + " 1 dtype=u64");
    emit(p + " = checked_shrink " + oc + " " + std::to_string(pick(len)) + " shape=[]");
    emit(s + " = store " + p + " " + c);
    emit(a + " = after " + oc + " " + s);
    deref(c, ct, cl);
  }
  if (chance(20)) {
    View v;
    v.cur = fresh("z");
    v.dt = chance(50) ? "u8" : dt;
    emit(v.cur + " = deref 0 0 dtype=" + v.dt);
    v.id = nextId_++;
    v.writable = false;
    v.dynamic = true;
    views_.push_back(v);
    std::string l = fresh("len");
    emit(l + " = len " + v.cur);
    addVal(l, "u64", true);
  }
}

void ModGen::freeHeaps() {
  for (size_t k = scopes_.back().heaps; k < heaps_.size(); ++k) emit(fresh("fr") + " = free " + heaps_[k]);
}

Fn ModGen::signature(int k) {
  const char *names[] = {"f", "g_", "mod.h", "step"};
  Fn f;
  f.name = names[k % 4] + std::to_string(k);
  f.recursive = chance(35);
  if (f.recursive) {
    const char *ds[] = {"i32", "u8", "i64", "u16"};
    f.params.push_back({ds[pick(4)], 0, 0});
  }
  for (int n = pick(4); n > 0; --n) {
    Param p;
    p.mode = pick(10) < 4 ? 0 : pick(2) ? 1 : 2;
    p.dt = p.mode && chance(25) ? "u8" : anyDtype();
    p.minLen = p.mode ? 1 + pick(4) : 0;
    f.params.push_back(p);
  }
  f.ret = chance(70) ? anyDtype() : "";
  return f;
}

void ModGen::function(size_t fi, bool isMain) {
  self_ = fi;
  const Fn f = fns_[fi];
  vals_.clear();
  views_.clear();
  heaps_.clear();
  scopes_.assign(1, Scope{});
  cost_ = 0;
  next_ = 0;
  recursed_ = false;
  budget_ = isMain ? 8000 : f.recursive ? 800 / (o_.maxDepth + 1) : 900;
  out_ += "func " + f.name + "(";
  for (size_t k = 0; k < f.params.size(); ++k) {
    const Param &p = f.params[k];
    out_ += (k ? ", " : "") + std::string(p.mode == 1 ? "ro " : p.mode == 2 ? "rw " : "") + p.dt + (p.mode ? "[]" : "");
  }
  out_ += ")" + (f.ret.empty() ? std::string() : " -> " + f.ret) + "\n";
  for (size_t k = 0; k < f.params.size(); ++k) {
    const Param &p = f.params[k];
    std::string a = "%a" + std::to_string(k);
    emit(a + " = " + (p.mode ? "vparam " : "param ") + std::to_string(k) + " dtype=" + p.dt);
    if (!p.mode) {
      addVal(a, p.dt, f.recursive && k == 0);
      continue;
    }
    View v;
    v.cur = a;
    v.dt = p.dt;
    v.id = nextId_++;
    v.len = p.minLen;
    v.writable = p.mode == 2;
    v.dynamic = true;
    views_.push_back(v);
  }
  block(o_.steps + (isMain ? 4 : 0), 0);
  recursionStmt();
  if (isMain)
    for (size_t k = 0; k < fi; ++k)
      if (!fns_[k].called) call(k, {});
  freeHeaps();
  if (!f.ret.empty()) {
    Val r = valOf(f.ret);
    if (isMain) {
      std::string m = fresh("rv");
      emit(m + " = and " + r.name + " 63");
      r.name = m;
    }
    emit(fresh("ret") + " = ret " + r.name);
  } else if (chance(50)) {
    emit(fresh("ret") + " = ret");
  }
  fns_[fi].cost = cost_ * (f.recursive ? o_.maxDepth + 1 : 1);
}

std::string ModGen::run() {
  trapsLeft_ = o_.traps && chance(60) ? 1 + pick(2) : 0;
  out_ = "# generated module\n";
  for (int k = 0; k < o_.funcs; ++k) fns_.push_back(signature(k));
  Fn m;
  m.name = "main";
  m.ret = "i32";
  fns_.push_back(m);
  for (size_t k = 0; k < fns_.size(); ++k) function(k, k + 1 == fns_.size());
  return out_;
}

}  // namespace cairn::modgen
