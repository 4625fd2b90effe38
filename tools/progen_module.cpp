// Random valid modules (tools/progen_module.hpp): values, views and the
// straight-line statements -- constants, ALU ops, casts, checked
// arithmetic and casts, loads, stores, prints, guards, parts and lengths.
// Loops, calls, the heap and whole functions are progen_module_ctl.cpp;
// the invariants both keep are in progen_module_impl.hpp.
#include <algorithm>
#include <cctype>

#include "tools/progen_module_impl.hpp"

namespace cairn {

ModuleGenOptions moduleGenOptions(uint64_t seed) {
  std::mt19937_64 r(seed * 0x9e3779b97f4a7c15ull + 0x51);
  ModuleGenOptions o;
  o.funcs = 1 + static_cast<int>(r() % 5);
  o.steps = 4 + static_cast<int>(r() % 11);
  o.maxDepth = 1 + static_cast<int>(r() % 4);
  o.traps = r() % 2 == 0;
  return o;
}

std::string generateModule(uint64_t seed, const ModuleGenOptions &opts) { return modgen::ModGen(seed, opts).run(); }

namespace modgen {

namespace {
const char *kDtypes[] = {"bool", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "f32", "f64"};
const char *kInts[] = {"i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64"};

int bitsOf(const std::string &t) { return t == "bool" ? 1 : std::stoi(t.substr(1)); }
}  // namespace

bool isFloatDt(const std::string &t) { return t == "f32" || t == "f64"; }
bool isIntDt(const std::string &t) { return t[0] == 'i' || t[0] == 'u'; }

ModGen::ModGen(uint64_t seed, const ModuleGenOptions &o) : rng_(seed), o_(o) {}

void ModGen::emit(const std::string &line) {
  out_ += std::string(2 * scopes_.size(), ' ') + line + "\n";
  cost_ += mult();
}

bool ModGen::unsafe() {
  if (trapsLeft_ <= 0 || !chance(25)) return false;
  --trapsLeft_;
  return true;
}

std::string ModGen::anyDtype() { return kDtypes[pick(11)]; }
std::string ModGen::intDtype() { return kInts[pick(8)]; }

std::string ModGen::smallLiteral(const std::string &dt, int hi) {
  if (dt == "bool") return pick(2) ? "true" : "false";
  std::string s = std::to_string(pick(hi + 1));
  return isFloatDt(dt) ? s + ".0" : s;
}

// Zero, extremes, small and random values of dt (floats: dyadic values that
// fit both widths, infinities, NaN, negative zero).
std::string ModGen::literal(const std::string &dt) {
  if (dt == "bool") return pick(2) ? "true" : "false";
  if (isFloatDt(dt)) {
    const char *fs[] = {"0.0", "-0.0", "1.5", "-2.25", "0.125", "1024.0", "-3.0", "inf", "-inf", "nan", "16777216.0", "0.5", "7.0"};
    return fs[pick(13)];
  }
  int bits = bitsOf(dt);
  bool sign = dt[0] == 'i';
  uint64_t r = rng_() >> (64 - bits);
  switch (pick(8)) {
    case 0: return "0";
    case 1: return sign ? "-" + std::to_string((uint64_t{1} << (bits - 1))) : "0";  // MIN
    case 2: return std::to_string(sign ? (uint64_t{1} << (bits - 1)) - 1 : (bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1));
    case 3: return sign ? "-1" : "1";
    case 4:
    case 5: return smallLiteral(dt);
    default:
      if (!sign) return std::to_string(r);
      if (r >> (bits - 1)) return "-" + std::to_string(((~r) & ((bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1))) + 1);
      return std::to_string(r);
  }
}

Val &ModGen::addVal(const std::string &name, const std::string &dt, bool small) {
  vals_.push_back({name, dt, small});
  return vals_.back();
}

Val ModGen::valOf(const std::string &dt) {
  std::vector<size_t> c;
  for (size_t k = 0; k < vals_.size(); ++k)
    if (vals_[k].dt == dt) c.push_back(k);
  if (!c.empty() && chance(75)) return vals_[c[static_cast<size_t>(pick(static_cast<int>(c.size())))]];
  std::string n = fresh("c");
  if (!vals_.empty() && chance(40)) {
    Val src = vals_[static_cast<size_t>(pick(static_cast<int>(vals_.size())))];
    emit(n + " = cast " + src.name + " dtype=" + dt);
    return addVal(n, dt, src.small && dt != "bool" && (isIntDt(src.dt) || isFloatDt(src.dt)));
  }
  std::string lit = literal(dt);
  emit(n + " = const " + lit + " dtype=" + dt);
  bool small = dt != "bool" && lit.find_first_not_of("0123456789.") == std::string::npos && std::stod(lit) <= 11;
  return addVal(n, dt, small);
}

Val ModGen::smallOf(const std::string &dt) {
  std::vector<size_t> c;
  for (size_t k = 0; k < vals_.size(); ++k)
    if (vals_[k].dt == dt && vals_[k].small) c.push_back(k);
  if (!c.empty() && chance(70)) return vals_[c[static_cast<size_t>(pick(static_cast<int>(c.size())))]];
  std::string n = fresh("s");
  if (isIntDt(dt) && chance(50)) {
    Val x = valOf(dt);
    emit(n + " = and " + x.name + " " + std::to_string(pick(2) ? 7 : 3));
  } else if (isFloatDt(dt) && chance(50)) {
    Val x = smallOf(intDtype());
    emit(n + " = cast " + x.name + " dtype=" + dt);
  } else {
    emit(n + " = const " + smallLiteral(dt) + " dtype=" + dt);
  }
  return addVal(n, dt, dt != "bool");
}

Val ModGen::anyVal() { return vals_.empty() || chance(20) ? valOf(anyDtype()) : vals_[static_cast<size_t>(pick(static_cast<int>(vals_.size())))]; }

Val ModGen::boolVal() {
  Val a = anyVal();
  if (a.dt == "bool" && chance(50)) return a;
  const char *cmps[] = {"cmplt", "cmpeq", "cmpne"};
  std::string n = fresh("q");
  const char *cmp = cmps[pick(3)];  // one draw per statement: C++ leaves the order of operands unspecified
  std::string b = chance(50) ? literal(a.dt) : valOf(a.dt).name;
  emit(n + " = " + cmp + " " + a.name + " " + b);
  return addVal(n, "bool");
}

// ---- views ------------------------------------------------------------------

int ModGen::findView(const std::string &dt, int minLen, bool writable, const std::vector<int> &avoidIds) {
  std::vector<int> c;
  for (size_t k = 0; k < views_.size(); ++k) {
    const View &v = views_[k];
    if (v.hidden || v.dt != dt || v.len < minLen || (writable && !v.writable)) continue;
    if (std::find(avoidIds.begin(), avoidIds.end(), v.id) != avoidIds.end()) continue;
    c.push_back(static_cast<int>(k));
  }
  return c.empty() ? -1 : c[static_cast<size_t>(pick(static_cast<int>(c.size())))];
}

int ModGen::anyView(bool writable) {
  std::vector<int> c;
  for (size_t k = 0; k < views_.size(); ++k)
    if (!views_[k].hidden && views_[k].len > 0 && (!writable || views_[k].writable)) c.push_back(static_cast<int>(k));
  return c.empty() ? -1 : c[static_cast<size_t>(pick(static_cast<int>(c.size())))];
}

std::string ModGen::bufferData(const std::string &dt, int len) {
  std::string d;
  for (int i = 0; i < len; ++i)
    d += (i ? " " : "") + (dt == "u8" && chance(80) ? std::to_string(32 + pick(95)) : literal(dt));
  return d;
}

// A local buffer of len elements (dynamic: its size an integer scalar known
// to be len + 1 at least... at most 12, so only `len` is assumed).
size_t ModGen::newBuffer(const std::string &dt, int len, bool dynamic) {
  std::string n = fresh("b");
  if (dynamic) {
    Val s = smallOf(intDtype());
    std::string sz = fresh("n");
    emit(sz + " = add " + s.name + " " + std::to_string(len));
    emit(n + " = buffer " + sz + " dtype=" + dt);
  } else if (chance(60)) {
    emit(n + " = buffer " + std::to_string(len) + " dtype=" + dt + " data=[" + bufferData(dt, len) + "]");
  } else {
    emit(n + " = buffer " + std::to_string(len) + " dtype=" + dt);
  }
  View v;
  v.cur = n;
  v.dt = dt;
  v.id = nextId_++;
  v.len = len;
  v.dynamic = dynamic;
  views_.push_back(v);
  return views_.size() - 1;
}

// An index into v: in range (a literal below its length, or the index of a
// len loop over it), or with mayTrap one that may not be.
std::string ModGen::indexOf(const View &v, bool mayTrap) {
  if (mayTrap) return chance(50) ? std::to_string(v.len + pick(3)) : smallOf(pick(2) ? "i64" : "u32").name;
  for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it)
    if (it->lenView == v.id && chance(70)) return it->index;
  return std::to_string(pick(v.len));
}

// Stores value at index into view vi, then its after.
void ModGen::write(size_t vi, const std::string &value, const std::string &index) {
  View &v = views_[vi];
  std::string p = fresh("p"), s = fresh("st"), a = fresh("v");
  emit(p + " = " + (v.dynamic || !std::isdigit(static_cast<unsigned char>(index[0])) ? "checked_shrink " : "shrink ") + v.cur + " " +
       index + " shape=[]");
  emit(s + " = store " + p + " " + value);
  emit(a + " = after " + v.cur + " " + s);
  views_[vi].cur = a;
}

// ---- statements -------------------------------------------------------------------

void ModGen::constStmt() { valOf(anyDtype()); }

void ModGen::aluStmt() {
  Val a = anyVal();
  std::string n = fresh("x");
  bool fl = isFloatDt(a.dt), bo = a.dt == "bool";
  auto other = [&] { return chance(30) ? literal(a.dt) : valOf(a.dt).name; };
  if (chance(25)) {  // unary
    if (fl) {
      std::vector<std::string> u = {"neg", "recip", "sqrt", "trunc"};
      if (o_.transcendentals) u.insert(u.end(), {"exp2", "log2", "sin"});
      emit(n + " = " + u[static_cast<size_t>(pick(static_cast<int>(u.size())))] + " " + a.name);
    } else {
      emit(n + " = neg " + a.name);
    }
    addVal(n, a.dt);
    return;
  }
  if (chance(10)) {
    Val c = boolVal();
    emit(n + " = where " + c.name + " " + a.name + " " + valOf(a.dt).name);
    addVal(n, a.dt);
    return;
  }
  std::vector<std::string> ops = {"cmplt", "cmpeq", "cmpne"};
  if (bo) ops.insert(ops.end(), {"and", "or", "xor"});
  else ops.insert(ops.end(), {"add", "sub", "mul", "max", "min"});
  if (fl) ops.push_back("fdiv");
  if (isIntDt(a.dt)) ops.insert(ops.end(), {"and", "or", "xor", "shl", "shr", "idiv", "mod"});
  std::string op = ops[static_cast<size_t>(pick(static_cast<int>(ops.size())))];
  std::string b = other();
  if ((op == "idiv" || op == "mod") && !unsafe()) {  // a divisor that is not 0
    std::string d = fresh("d");
    emit(d + " = or " + valOf(a.dt).name + " 1");
    b = d;
  }
  emit(n + " = " + op + " " + a.name + " " + b);
  addVal(n, op[0] == 'c' ? "bool" : a.dt);
}

void ModGen::castStmt() {
  Val a = anyVal();
  std::string t = anyDtype(), n = fresh("k");
  emit(n + " = cast " + a.name + " dtype=" + t);
  addVal(n, t, a.small && isIntDt(t) && a.dt != "bool");
}

// checked_* arithmetic: on small values so that it cannot overflow, or
// (spending a trap) on any values.
void ModGen::checkedStmt() {
  const char *ops[] = {"checked_add", "checked_sub", "checked_mul", "checked_div", "checked_mod"};
  std::string op = ops[pick(5)], dt = intDtype(), n = fresh("y");
  if (unsafe()) {
    Val a = valOf(dt);
    emit(n + " = " + op + " " + a.name + " " + (chance(50) ? literal(dt) : valOf(dt).name));
    addVal(n, dt);
    return;
  }
  Val a = smallOf(dt), b = smallOf(dt);
  std::string bb = b.name;
  if (op == "checked_div" || op == "checked_mod") {
    bb = fresh("d");
    emit(bb + " = or " + b.name + " 1");
  } else if (op == "checked_sub" && dt[0] == 'u') {  // max - min
    std::string hi = fresh("h"), lo = fresh("l");
    emit(hi + " = max " + a.name + " " + b.name);
    emit(lo + " = min " + a.name + " " + b.name);
    emit(n + " = checked_sub " + hi + " " + lo);
    addVal(n, dt);
    return;
  }
  emit(n + " = " + op + " " + a.name + " " + bb);
  addVal(n, dt, op == "checked_div" || op == "checked_mod");
}

void ModGen::checkedCastStmt() {
  std::string t = intDtype(), n = fresh("w");
  if (unsafe()) {
    Val a = anyVal();
    emit(n + " = checked_cast " + a.name + " dtype=" + t);
    addVal(n, t);
    return;
  }
  const char *from[] = {"i8", "u16", "i64", "u64", "f32", "f64", "bool", "u8"};
  std::string f = from[pick(8)];
  Val a = f == "bool" ? boolVal() : smallOf(f);
  emit(n + " = checked_cast " + a.name + " dtype=" + t);
  addVal(n, t, a.dt != "bool");
}

void ModGen::loadStmt() {
  int vi = anyView(false);
  if (vi < 0) {
    std::string dt = anyDtype();
    vi = static_cast<int>(newBuffer(dt, 1 + pick(6)));
  }
  View v = views_[static_cast<size_t>(vi)];
  bool trap = (v.dynamic || chance(20)) && unsafe();
  std::string idx = indexOf(v, trap);
  std::string p = fresh("p"), x = fresh("ld");
  bool checked = trap || v.dynamic || !std::isdigit(static_cast<unsigned char>(idx[0]));
  emit(p + " = " + (checked ? "checked_shrink " : "shrink ") + v.cur + " " + idx + " shape=[]");
  emit(x + " = load " + p);
  addVal(x, v.dt);
}

void ModGen::storeStmt() {
  int vi = anyView(true);
  if (vi < 0) {
    std::string dt = anyDtype();
    int len = 1 + pick(6);
    vi = static_cast<int>(newBuffer(dt, len, chance(20)));
  }
  const View &v = views_[static_cast<size_t>(vi)];
  std::string value = chance(30) ? literal(v.dt) : valOf(v.dt).name;
  std::string idx = indexOf(views_[static_cast<size_t>(vi)], v.dynamic && unsafe());
  write(static_cast<size_t>(vi), value, idx);
}

void ModGen::printStmt() {
  if (chance(35)) {
    int vi = findView("u8", 0, false, {});
    if (vi < 0 && chance(50)) vi = static_cast<int>(newBuffer("u8", 1 + pick(6)));
    if (vi >= 0) {
      emit(fresh("pr") + " = print " + views_[static_cast<size_t>(vi)].cur);
      return;
    }
  }
  Val x = chance(50) ? valOf(anyDtype()) : anyVal();
  emit(fresh("pr") + " = print " + x.name);
}

void ModGen::guardStmt() {
  std::string c = fresh("g");
  if (unsafe()) {
    Val b = boolVal();
    c = b.name;
  } else {
    Val s = smallOf(intDtype());
    emit(c + " = cmplt " + s.name + " 12");
  }
  const char *msgs[] = {"guard failed", "index too big", "a \\\"quoted\\\" # check", "tab\\x09and \\\\ slash", "n > 0"};
  emit(fresh("gd") + " = guard " + c + " msg=\"" + msgs[pick(5)] + "\"");
}

// A part of a view, used at once: printed, measured, read or written
// through (written: the parent's after).
void ModGen::partStmt() {
  int vi = anyView(false);
  if (vi < 0) return;
  View v = views_[static_cast<size_t>(vi)];
  int lo = pick(v.len + 1), hi = lo + pick(v.len - lo + 1);
  std::string los = std::to_string(lo), his = std::to_string(hi);
  if (unsafe()) chance(50) ? (his = std::to_string(v.len + 1 + pick(2))) : (los = std::to_string(hi + 1));
  std::string p = fresh("pt");
  emit(p + " = part " + v.cur + " " + los + " " + his);
  int use = pick(4);
  if (use == 0 && v.dt == "u8") {
    emit(fresh("pr") + " = print " + p);
  } else if (use == 1 || hi == lo) {
    std::string l = fresh("len");
    emit(l + " = len " + p);
    addVal(l, "u64", true);
  } else if (use == 2 || !v.writable) {
    std::string q = fresh("p"), x = fresh("ld");
    emit(q + " = checked_shrink " + p + " " + std::to_string(pick(hi - lo)) + " shape=[]");
    emit(x + " = load " + q);
    addVal(x, v.dt);
  } else {
    std::string value = valOf(v.dt).name;
    std::string q = fresh("p"), s = fresh("st"), a = fresh("v");
    emit(q + " = checked_shrink " + p + " " + std::to_string(pick(hi - lo)) + " shape=[]");
    emit(s + " = store " + q + " " + value);
    emit(a + " = after " + views_[static_cast<size_t>(vi)].cur + " " + s);
    views_[static_cast<size_t>(vi)].cur = a;
  }
}

void ModGen::lenStmt() {
  int vi = anyView(false);
  if (vi < 0) return;
  std::string l = fresh("len");
  emit(l + " = len " + views_[static_cast<size_t>(vi)].cur);
  addVal(l, "u64", views_[static_cast<size_t>(vi)].len <= 8 && !views_[static_cast<size_t>(vi)].dynamic);
}

// One statement at loop depth `depth` (0: the function's top level).
void ModGen::statement(int depth) {
  bool inMain = self_ + 1 == fns_.size();
  int r = pick(inMain ? 26 : 23);
  switch (r) {
    case 0: constStmt(); return;
    case 1: case 2: aluStmt(); return;
    case 3: castStmt(); return;
    case 4: checkedStmt(); return;
    case 5: checkedCastStmt(); return;
    case 6: loadStmt(); return;
    case 7: case 8: storeStmt(); return;
    case 9: printStmt(); return;
    case 10: guardStmt(); return;
    case 11: partStmt(); return;
    case 12: lenStmt(); return;
    case 13: {
      std::string dt = anyDtype();
      int len = chance(10) ? 60 + pick(20) : 1 + pick(8);  // 65+: not a frame buffer
      newBuffer(dt, len, chance(25));
      return;
    }
    case 14: heapStmt(); return;
    case 15: if (depth < 3) loopStmt(depth); return;
    case 16: if (depth < 3) ifStmt(depth); return;
    case 17: if (depth < 3) untilStmt(depth); return;
    case 18: if (depth < 3) lenLoopStmt(depth); return;
    case 19: parallelStmt(); return;
    case 20: if (depth == 0) recursionStmt(); else aluStmt(); return;
    default: callStmt(depth); return;
  }
}

}  // namespace modgen
}  // namespace cairn
