// The program's types (sema.hpp): interning type records, the scalar,
// buffer and array types, their names and leaves, which types own or are
// linear, instantiating generic records and sums, resolving written types,
// and the constant values array lengths and generic arguments need.
//
// Assumes what lower/program.cpp assumes: each file parsed, and types nest
// no deeper than the parser lets them be written, so the walks here recurse
// at most that deep.
#include "lower/parser.hpp"
#include "lower/sema.hpp"

namespace cairn::sema {

Ty Program::intern(const TypeRec &r) {
  static_assert(sizeof(Ty) <= 4, "TypeKey packs a Ty in 32 bits");
  const TypeKey key{(uint64_t{static_cast<uint8_t>(r.k)} << 40) | (uint64_t{static_cast<uint8_t>(r.sc)} << 32) |
                        static_cast<uint32_t>(r.elem),
                    r.n, r.inst};
  auto it = interned_.find(key);
  if (it != interned_.end()) return it->second;
  Ty t = static_cast<Ty>(types.size());
  types.push_back(r);
  leafCache_.emplace_back();
  leafState_.push_back(0);
  ownState_.push_back(0);
  errState_.push_back(0);
  interned_[key] = t;
  return t;
}

Ty Program::unit() { return intern(TypeRec{TK::Unit}); }
Ty Program::errorTy() { return intern(TypeRec{TK::Error}); }
Ty Program::scalar(Sc s) {
  // The scalar types are looked up on nearly every expression: remembered
  // here rather than hashed each time (types are never removed).
  Ty &memo = scalarTy_[static_cast<size_t>(s)];
  if (memo != kNoTy) return memo;
  TypeRec r{TK::Scalar};
  r.sc = s;
  return memo = intern(r);
}
Ty Program::buf(Ty elem) {
  TypeRec r{TK::Buf};
  r.elem = elem;
  return intern(r);
}
Ty Program::array(Ty elem, uint64_t n) {
  TypeRec r{TK::Array};
  r.elem = elem;
  r.n = n;
  return intern(r);
}

std::string Program::typeName(Ty t) const {
  if (t == kNoTy || t >= types.size()) return "?";
  const TypeRec &r = types[t];
  switch (r.k) {
    case TK::Error: return "<error>";
    case TK::Unit: return "void";
    case TK::Scalar: return std::string(scName(r.sc));
    case TK::Buf: return "Buf[" + typeName(r.elem) + "]";
    case TK::Array: return typeName(r.elem) + "[" + (r.n ? std::to_string(r.n) : std::string("n")) + "]";
    case TK::Record: return recs[r.inst].name;
    case TK::Sum: return sums[r.inst].name;
  }
  return "?";
}

const std::vector<Leaf> &Program::leaves(Ty t) {
  static const std::vector<Leaf> none;
  if (t >= types.size()) return none;
  if (leafState_[t] == 2) return leafCache_[t];
  if (leafState_[t] == 1) return none;  // a type containing itself by value (reported elsewhere)
  // Generic records can nest new instances by value without end
  // (struct A[T] { x:A[Buf[T]]; }): cap the depth instead of the stack.
  if (leafDepth_ > 64) {
    if (!nestReported_) {
      nestReported_ = true;
      diags_.error(Loc{1, 1}, "E-RECORD-TYPE", "a record type nests more than 64 records deep by value (" + typeName(t) + ")");
    }
    return none;
  }
  struct Depth {
    int &d;
    ~Depth() { --d; }
  } depth{++leafDepth_};
  leafState_[t] = 1;
  std::vector<Leaf> out;
  const TypeRec r = types[t];
  switch (r.k) {
    case TK::Scalar: out.push_back({dtypeOf(r.sc), false}); break;
    case TK::Buf: out.push_back({DType::U64, true}); break;
    case TK::Record:
      completeRecord(r.inst);
      out = recs[r.inst].leaves;
      break;
    case TK::Sum:
      completeSum(r.inst);
      out = sums[r.inst].leaves;
      break;
    default: break;
  }
  leafCache_[t] = std::move(out);
  leafState_[t] = 2;
  return leafCache_[t];
}

bool Program::hasError(Ty t) const {
  // A type's arguments never change once interned, so the answer is
  // remembered (asked of every scalar expression the lowerer builds).
  if (t < errState_.size() && errState_[t] != 0) return errState_[t] == 2;
  bool err = hasErrorWalk(t);
  if (t < errState_.size()) errState_[t] = err ? 2 : 1;
  return err;
}

bool Program::hasErrorWalk(Ty t) const {
  for (int depth = 0; depth < 64 && t < types.size(); ++depth) {
    const TypeRec &r = types[t];
    if (r.k == TK::Error) return true;
    if (r.k == TK::Buf || r.k == TK::Array) {
      t = r.elem;
      continue;
    }
    const std::vector<Ty> *args = r.k == TK::Record ? &recs[r.inst].args : r.k == TK::Sum ? &sums[r.inst].args : nullptr;
    if (args)
      for (Ty a : *args)
        if (hasError(a)) return true;
    return false;
  }
  return false;
}

bool Program::holdsOwner(Ty t) {
  // Asked of nearly every value the lowerer moves or copies: remembered
  // once the type's leaves are final (leafState_ 2).
  if (t < leafState_.size() && leafState_[t] == 2 && ownState_[t] != 0) return ownState_[t] == 2;
  bool own = false;
  for (const Leaf &l : leaves(t))
    if (l.own) own = true;
  if (t < leafState_.size() && leafState_[t] == 2) ownState_[t] = own ? 2 : 1;
  return own;
}

bool Program::isLinear(Ty t) {
  const TypeRec &r = types[t];
  if (r.k == TK::Record) {
    completeRecord(r.inst);
    if (recs[r.inst].linear) return true;
    for (const Field &f : recs[r.inst].fields)
      if (isLinear(f.ty)) return true;
  }
  if (r.k == TK::Sum) {  // a sum that may carry a linear value is linear
    completeSum(r.inst);
    for (const Variant &v : sums[r.inst].variants)
      if (v.payload != kNoTy && isLinear(v.payload)) return true;
  }
  return false;
}

bool Program::isCopy(Ty t) { return !holdsOwner(t) && !isLinear(t); }

Ty Program::recordOf(ItemRef item, const std::vector<Ty> &args, uint32_t useFile, Loc useLoc) {
  const ast::Item &it = this->item(item);
  if (args.size() != it.generics.size()) {
    error(useFile, useLoc, "E-ARITY",
          it.name + " takes " + std::to_string(it.generics.size()) + " generic argument(s), got " +
              std::to_string(args.size()));
    return errorTy();
  }
  std::string key = std::to_string(item.file) + ":" + std::to_string(item.id.v);
  for (Ty a : args) key += "," + std::to_string(a);
  bool isSum = it.kind == ast::ItemKind::Enum;
  auto &index = isSum ? sumIndex_ : recIndex_;
  auto found = index.find(key);
  uint32_t idx;
  if (found != index.end()) {
    idx = found->second;
  } else {
    std::string name = it.name;
    if (!args.empty()) {
      name += "[";
      for (size_t i = 0; i < args.size(); ++i) name += (i ? ", " : "") + typeName(args[i]);
      name += "]";
    }
    if (isSum) {
      idx = static_cast<uint32_t>(sums.size());
      sums.push_back(SumInst{item, args, name, {}, {}, false});
    } else {
      idx = static_cast<uint32_t>(recs.size());
      RecInst ri;
      ri.item = item;
      ri.args = args;
      ri.name = name;
      ri.linear = it.isLinear;
      recs.push_back(std::move(ri));
    }
    index[key] = idx;
  }
  TypeRec r{isSum ? TK::Sum : TK::Record};
  r.inst = idx;
  return intern(r);
}

Ty Program::sumOf(ItemRef item, const std::vector<Ty> &args, uint32_t useFile, Loc useLoc) {
  return recordOf(item, args, useFile, useLoc);
}

static GenericEnv envOf(const ast::Item &it, const std::vector<Ty> &args) {
  GenericEnv env;
  for (size_t i = 0; i < it.generics.size() && i < args.size(); ++i) env.types[it.generics[i].name] = args[i];
  return env;
}

void Program::completeRecord(uint32_t idx) {
  if (recs[idx].done) return;
  recs[idx].done = true;
  ItemRef item = recs[idx].item;
  const ast::Item &it = this->item(item);
  GenericEnv env = envOf(it, recs[idx].args);
  std::vector<Field> fields;
  std::vector<Leaf> lv;
  for (const auto &f : it.fields) {
    const ast::TypeNode &ftn = files[item.file]->ast.type(f.type);
    if (ftn.kind == ast::TypeKind::View) {
      error(item.file, ftn.span.loc(), "E-RECORD-TYPE",
            "A record field cannot be a borrow: " + it.name + "." + f.name +
                " would keep a view past the call that lent it. Hold an owner (Buf) or a value.");
      fields.push_back(Field{f.name, errorTy(), static_cast<uint32_t>(lv.size())});
      continue;
    }
    Ty ft = resolveType(item.file, f.type, env);
    const TypeRec &fr = types[ft];
    if (fr.k == TK::Array) {
      error(item.file, f.span.loc(), "E-UNSUPPORTED",
            "a fixed array field (" + f.name + ":" + typeName(ft) + ") is not supported by `cairn run` yet; use a Buf");
      ft = errorTy();
    } else if (fr.k == TK::Unit) {
      error(item.file, f.span.loc(), "E-RECORD-TYPE", "field " + f.name + " has no value type");
      ft = errorTy();
    }
    if (leafState_[ft] == 1) {
      error(item.file, f.span.loc(), "E-RECORD-TYPE",
            "Record fields cannot contain their own type by value; reach it through a Buf.");
      ft = errorTy();
    }
    Field fd{f.name, ft, static_cast<uint32_t>(lv.size())};
    for (const Leaf &l : leaves(ft)) lv.push_back(l);
    fields.push_back(fd);
  }
  RecInst &ri = recs[idx];
  ri.fields = std::move(fields);
  ri.leaves = std::move(lv);
  if (it.hasLends) {
    auto fieldIdx = [&](const std::string &n) {
      for (size_t i = 0; i < ri.fields.size(); ++i)
        if (ri.fields[i].name == n) return static_cast<int>(i);
      return -1;
    };
    ri.lendsField = fieldIdx(it.lendsField);
    bool ok = ri.lendsField >= 0 && types[ri.fields[ri.lendsField].ty].k == TK::Buf;
    auto bound = [&](ast::ExprId e, int &field, uint64_t &lit) {
      if (!e.valid()) return false;
      const ast::Expr &x = files[item.file]->ast.expr(e);
      if (x.kind == ast::ExprKind::Int) {
        lit = x.intValue;
        return true;
      }
      if (x.kind == ast::ExprKind::Name) {
        field = fieldIdx(x.text);
        return field >= 0 && types[ri.fields[field].ty].k == TK::Scalar &&
               types[ri.fields[field].ty].sc == Sc::Usize;
      }
      return false;
    };
    ok = ok && bound(it.lendsLo, ri.loField, ri.loLit) && bound(it.lendsHi, ri.hiField, ri.hiLit);
    if (!ok) {
      // Name the first bound that is wrong, and what it is.
      std::string why;
      for (ast::ExprId b : {it.lendsLo, it.lendsHi}) {
        if (!b.valid() || !why.empty()) continue;
        const ast::Expr &x = files[item.file]->ast.expr(b);
        if (x.kind == ast::ExprKind::Int) continue;
        int fi = x.kind == ast::ExprKind::Name ? fieldIdx(x.text) : -1;
        if (fi < 0) why = dumpExprText(item, b) + " is not a field of " + it.name;
        else if (!(types[ri.fields[fi].ty].k == TK::Scalar && types[ri.fields[fi].ty].sc == Sc::Usize))
          why = x.text + " is " + typeName(ri.fields[fi].ty);
      }
      if (why.empty()) why = it.lendsField + " is not a Buf field of " + it.name;
      error(item.file, it.span.loc(), "E-LENDS",
            "A lent view's bounds are literals or usize fields of " + it.name + "; " + why + ".");
    } else {
      ri.lends = true;
    }
  }
}

std::string Program::dumpExprText(ItemRef item, ast::ExprId e) const {
  const ast::Expr &x = files[item.file]->ast.expr(e);
  return x.text.empty() ? std::string("the bound") : x.text;
}

void Program::completeSum(uint32_t idx) {
  if (sums[idx].done) return;
  sums[idx].done = true;
  ItemRef item = sums[idx].item;
  const ast::Item &it = this->item(item);
  GenericEnv env = envOf(it, sums[idx].args);
  std::vector<Variant> vs;
  std::vector<Leaf> lv{{DType::U32, false}};
  for (const auto &v : it.variants) {
    Variant var{v.name, kNoTy, static_cast<uint32_t>(lv.size())};
    if (v.payload.valid()) {
      var.payload = resolveType(item.file, v.payload, env);
      if (leafState_[var.payload] == 1) {
        error(item.file, v.span.loc(), "E-RECORD-TYPE", "a sum cannot contain itself by value; reach it through a Buf");
        var.payload = errorTy();
      }
      for (const Leaf &l : leaves(var.payload)) lv.push_back(l);
    }
    vs.push_back(var);
  }
  sums[idx].variants = std::move(vs);
  sums[idx].leaves = std::move(lv);
}

Ty Program::resolveType(uint32_t f, ast::TypeId tid, const GenericEnv &env) {
  if (!tid.valid()) return unit();
  const ast::TypeNode &t = files[f]->ast.type(tid);
  Loc loc = t.span.loc();
  switch (t.kind) {
    case ast::TypeKind::Named: {
      if (auto g = env.types.find(t.name); g != env.types.end() && t.args.empty()) return g->second;
      Sc sc;
      if (t.args.empty() && parseSc(t.name, sc)) return scalar(sc);
      auto typeArg = [&](size_t i) -> Ty {
        if (i >= t.args.size() || !t.args[i].type.valid()) {
          error(f, loc, "E-TYPE", "expected a type argument in " + t.name);
          return errorTy();
        }
        return resolveType(f, t.args[i].type, env);
      };
      if (t.name == "Buf") {
        if (t.args.size() != 1) {
          error(f, loc, "E-TYPE", "Buf takes one type argument: Buf[T]");
          return errorTy();
        }
        Ty e = typeArg(0);
        if (types[e].k == TK::Array) {
          error(f, loc, "E-UNSUPPORTED", "a Buf of fixed arrays is not supported by `cairn run` yet");
          return errorTy();
        }
        return buf(e);
      }
      if (t.name == "Array") {
        if (t.args.size() != 2) {
          error(f, loc, "E-TYPE", "Array takes a type and a length: Array[T, N]");
          return errorTy();
        }
        Ty e = typeArg(0);
        uint64_t n = 0;
        const ast::GenericArg &ga = t.args[1];
        bool ok = false;
        if (ga.expr.valid()) ok = constValue(f, ga.expr, env, n);
        else if (ga.type.valid()) {
          const ast::TypeNode &nt = files[f]->ast.type(ga.type);
          if (auto nat = env.nats.find(nt.name); nat != env.nats.end()) {
            n = nat->second;
            ok = true;
          } else if (ItemRef c = lookup(f, nt.name); c.valid() && item(c).kind == ast::ItemKind::Const) {
            ok = constValue(c.file, item(c).value, GenericEnv{}, n);
          }
        }
        if (!ok) {
          error(f, loc, "E-EXTENT", "the length of an Array must be a constant natural");
          return errorTy();
        }
        return array(e, n);
      }
      ItemRef r;
      auto dot = t.name.find('.');
      if (dot != std::string::npos) r = lookupQualified(f, t.name.substr(0, dot), t.name.substr(dot + 1));
      else r = lookup(f, t.name);
      if (!r.valid() || (item(r).kind != ast::ItemKind::Struct && item(r).kind != ast::ItemKind::Enum)) {
        error(f, loc, "E-NAME", "unknown type " + t.name);
        return errorTy();
      }
      std::vector<Ty> args;
      for (size_t i = 0; i < t.args.size(); ++i) args.push_back(typeArg(i));
      return recordOf(r, args, f, loc);
    }
    case ast::TypeKind::Storage: {
      Ty e = resolveType(f, t.elem, env);
      uint64_t n = 0;
      if (t.extent.valid() && !constValue(f, t.extent, env, n)) n = 0;  // dynamic: the declaration reads it
      return array(e, n);
    }
    case ast::TypeKind::View:
    case ast::TypeKind::Fn:
    case ast::TypeKind::Dyn:
      error(f, loc, "E-TYPE", "a borrow or function type is only allowed as a parameter type here");
      return errorTy();
    case ast::TypeKind::Error: return errorTy();
  }
  return errorTy();
}

// Constants: literals, other constants, + - * / % and shifts over u64, and
// layout methods through layoutConst. A const item is evaluated once and
// memoized; meeting one that is being evaluated is a cycle, which fails.
// The depth bound caps the recursion on a deeply nested expression.
bool Program::constValue(uint32_t f, ast::ExprId eid, const GenericEnv &env, uint64_t &out, int depth) {
  if (!eid.valid() || depth > 1024) return false;
  const ast::Expr &e = files[f]->ast.expr(eid);
  switch (e.kind) {
    case ast::ExprKind::Int:
      if (e.intOverflow) return false;
      out = e.intValue;
      return true;
    case ast::ExprKind::Name: {
      if (auto nat = env.nats.find(e.text); nat != env.nats.end()) {
        out = nat->second;
        return true;
      }
      ItemRef c = lookup(f, e.text);
      if (!c.valid() || item(c).kind != ast::ItemKind::Const) return false;
      ConstMemo &m = constMemo_[{c.file, c.id.v}];
      if (m.state == 1 || m.state == 3) return false;
      if (m.state == 2) {
        out = m.value;
        return true;
      }
      m.state = 1;
      uint64_t v = 0;
      bool ok = constValue(c.file, item(c).value, GenericEnv{}, v, depth + 1);
      ConstMemo &done = constMemo_[{c.file, c.id.v}];
      done.state = ok ? 2 : 3;
      done.value = v;
      out = v;
      return ok;
    }
    case ast::ExprKind::Binary: {
      uint64_t a, b;
      if (!constValue(f, e.a, env, a, depth + 1) || !constValue(f, e.b, env, b, depth + 1)) return false;
      switch (e.binOp) {
        case ast::BinOp::Add: out = a + b; return out >= a;
        case ast::BinOp::Sub: out = a - b; return a >= b;
        case ast::BinOp::Mul: out = a * b; return a == 0 || out / a == b;
        case ast::BinOp::Div: if (b == 0) return false; out = a / b; return true;
        case ast::BinOp::Rem: if (b == 0) return false; out = a % b; return true;
        case ast::BinOp::Shl: if (b >= 64) return false; out = a << b; return true;
        case ast::BinOp::Shr: if (b >= 64) return false; out = a >> b; return true;
        default: return false;
      }
    }
    case ast::ExprKind::Call: {
      // usize(N) and friends around a constant; L.cosize() of a layout
      const ast::Expr &c = files[f]->ast.expr(e.a);
      Sc sc;
      if (c.kind == ast::ExprKind::Name && parseSc(c.text, sc) && e.args.size() == 1)
        return constValue(f, e.args[0], env, out, depth + 1);
      if (c.kind == ast::ExprKind::Field && layoutConst) return layoutConst(f, eid, out);
      return false;
    }
    default: return false;
  }
}

}  // namespace cairn::sema
