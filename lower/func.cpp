// Functions: instances of fn items (monomorphized per generic arguments),
// their graph signatures, the lowering of each body, and the front end's
// entry point `lowerCairn`, whose pipeline reads top to bottom:
//   load (parse the file and its std imports) -> find main -> instantiate
//   what main reaches, lowering each body once -> (the caller validates).
#include <algorithm>
#include <cstdlib>
#include <map>

#include "ir/data_dir.hpp"
#include "ir/parser.hpp"
#include "lower/check/check.hpp"
#include "lower/check/items.hpp"
#include "lower/fn.hpp"
#include "lower/lower.hpp"

namespace cairn {

std::string defaultStdDir() {
  if (const char *e = std::getenv("CAIRN_STD"); e && *e) return e;
  if (std::string d = installedDataDir("std"); !d.empty()) return d;
#ifdef CAIRN_STD_DIR
  return CAIRN_STD_DIR;
#else
  return "std";
#endif
}

namespace lower {

static std::string mangle(sema::Program &P, const ast::Item &it, const sema::SourceFile &sf,
                          const sema::GenericEnv &env) {
  std::string n;
  if (!sf.moduleName.empty()) {
    std::string m = sf.moduleName;
    if (m.rfind("std.", 0) == 0) m = m.substr(4);
    n = m + ".";
  }
  n += it.name;
  for (const auto &gp : it.generics) {
    std::string a;
    if (auto t = env.types.find(gp.name); t != env.types.end()) a = P.typeName(t->second);
    else if (auto k = env.nats.find(gp.name); k != env.nats.end()) a = std::to_string(k->second);
    std::string clean;
    for (char c : a) clean += (std::isalnum(static_cast<unsigned char>(c)) || c == '_') ? c : '_';
    n += "." + clean;
  }
  return n;
}

int Lowering::instance(sema::ItemRef r, const sema::GenericEnv &env, uint32_t useFile, Loc useLoc) {
  const ast::Item &it = prog.item(r);
  // Most calls name a function without generic arguments: found by its
  // item alone, without building the key.
  bool plain = env.types.empty() && env.nats.empty();
  uint64_t plainKey = (uint64_t{r.file} << 32) | r.id.v;
  if (plain)
    if (auto f = plainIndex.find(plainKey); f != plainIndex.end()) return static_cast<int>(f->second);
  std::string key = std::to_string(r.file) + ":" + std::to_string(r.id.v);
  for (const auto &[k, v] : env.types) key += "," + k + "=" + std::to_string(v);
  for (const auto &[k, v] : env.nats) key += "," + k + "#" + std::to_string(v);
  if (auto f = fnIndex.find(key); f != fnIndex.end()) return static_cast<int>(f->second);
  for (const auto &gp : it.generics)
    if (!env.types.count(gp.name) && !env.nats.count(gp.name)) {
      prog.error(useFile, useLoc, "E-INFER", "cannot infer the generic argument " + gp.name + " of " + it.name +
                                                  ": write it out, as " + it.name + "[...](...)");
      return -1;
    }
  if (!env.types.empty() || !env.nats.empty()) ++genericInstances;
  if (genericInstances > 5000) {
    prog.error(useFile, useLoc, "E-LIMIT", "more than 5000 instances of generic functions (does one instantiate itself at ever larger types?)");
    return -1;
  }
  FnInst fi;
  fi.item = r;
  fi.env = env;
  fi.name = mangle(prog, it, *prog.files[r.file], env);
  Function fn;
  fn.name = fi.name;
  fn.external = it.isExtern;
  fn.symbol = it.isExtern ? (it.symbol.empty() ? it.name : it.symbol) : std::string();
  fn.loc = it.span.loc();
  uint32_t irp = 0;
  const ast::Module &A = prog.files[r.file]->ast;
  for (const ast::Param &p : it.params) {
    FnInst::P pi;
    pi.name = p.name;
    const ast::TypeNode &tn = A.type(p.type);
    Ty elem;
    if (tn.kind == ast::TypeKind::View) {
      elem = prog.resolveType(r.file, tn.elem, env);
      pi.rw = tn.writable;
      pi.k = tn.extent.valid() ? FnInst::P::Array : FnInst::P::Borrow;
      if (tn.extent.valid()) {
        const ast::Expr &x = A.expr(tn.extent);
        uint64_t lit;
        if (x.kind == ast::ExprKind::Name && !prog.constValue(r.file, tn.extent, env, lit)) {
          pi.extentName = x.text;
          // An extent is an earlier usize parameter (an extern's may come later,
          // as C puts a pointer before its length).
          int at = -1;
          for (size_t k = 0; k < it.params.size(); ++k)
            if (it.params[k].name == x.text) at = static_cast<int>(k);
          size_t self = fi.params.size();
          bool usize = at >= 0 && A.type(it.params[at].type).kind == ast::TypeKind::Named &&
                       A.type(it.params[at].type).name == "usize";
          if (at < 0 || !usize || (!it.isExtern && static_cast<size_t>(at) > self))
            prog.error(r.file, x.span.loc(), "E-EXTENT",
                       "An extent is a literal, a constant or an earlier immutable usize parameter; " + x.text +
                           (at < 0 ? " is none of these" : !usize ? " is not a usize" : " comes after " + p.name));
        }
        else if (prog.constValue(r.file, tn.extent, env, lit)) pi.extentLit = lit;
      }
      pi.device = tn.placement == ast::Placement::Device || tn.placement == ast::Placement::Unified ||
                  tn.placement == ast::Placement::Pinned;
    } else {
      elem = prog.resolveType(r.file, p.type, env);
      const sema::TypeRec &tr = prog.type(elem);
      if (tr.k == sema::TK::Array) {
        // A fixed array by value travels as a read-only view of a copy.
        prog.error(r.file, p.span.loc(), "E-UNSUPPORTED",
                   "an array parameter by value is not supported by `cairn run` yet; take a view ro<T>[n]");
      }
    }
    pi.ty = elem;
    pi.first = irp;
    for (const sema::Leaf &l : prog.leaves(elem)) {
      ParamSig ps;
      ps.type = l.dt;
      ps.mode = pi.k == FnInst::P::Value ? ParamSig::Mode::Scalar : pi.rw ? ParamSig::Mode::Rw : ParamSig::Mode::Ro;
      fn.sig.params.push_back(ps);
      ++irp;
    }
    pi.count = irp - pi.first;
    fi.params.push_back(pi);
  }
  if (it.ret.valid() && A.type(it.ret).kind == ast::TypeKind::View)
    prog.error(r.file, A.type(it.ret).span.loc(), "E-ESCAPE",
               "A borrow cannot be returned: " + it.name +
                   " would hand out a view that outlives the call. Return an owner (Buf, a record) or a value.");
  // Polymorphic recursion (f[T] calling f[Pair[T]]) makes ever deeper types.
  for (const auto &[name, t] : env.types)
    if (std::string tn = prog.typeName(t); std::count(tn.begin(), tn.end(), '[') > 16 || tn.size() > 400) {
      prog.error(useFile, useLoc, "E-LIMIT",
                 "instantiating " + it.name + " at a type nested too deeply (" + prog.typeName(t).substr(0, 60) +
                     "...): a generic function that calls itself at a larger type never ends");
      return -1;
    }
  bool escapes = it.ret.valid() && A.type(it.ret).kind == ast::TypeKind::View;
  fi.ret = escapes ? prog.errorTy() : it.ret.valid() ? prog.resolveType(r.file, it.ret, env) : prog.unit();
  const sema::TypeRec &rt = prog.type(fi.ret);
  if (rt.k == sema::TK::Record || rt.k == sema::TK::Sum) {
    fi.sret = true;
    fi.sretFirst = irp;
    for (const sema::Leaf &l : prog.leaves(fi.ret)) fn.sig.params.push_back(ParamSig{l.dt, ParamSig::Mode::Rw});
  } else if (rt.k == sema::TK::Scalar || rt.k == sema::TK::Buf) {
    fn.sig.ret = prog.leaves(fi.ret)[0].dt;
  } else if (rt.k == sema::TK::Array) {
    prog.error(r.file, it.span.loc(), "E-UNSUPPORTED",
               "returning a fixed array is not supported by `cairn run` yet; return a Buf or a record");
    fi.ret = prog.errorTy();
  }
  if (it.isExtern && fi.sret)
    prog.error(r.file, it.span.loc(), "E-EXTERN", "an extern function cannot return a record");
  fi.funcIndex = static_cast<int>(mod.funcs.size());
  mod.funcs.push_back(std::move(fn));
  uint32_t idx = static_cast<uint32_t>(fns.size());
  fns.push_back(std::move(fi));
  facts.emplace_back();
  fnIndex[key] = idx;
  if (plain) plainIndex[plainKey] = idx;
  if (!it.isExtern) pending.push_back(idx);
  return static_cast<int>(idx);
}

void Lowering::lowerAll() {
  while (!pending.empty() && !diags.full()) {
    uint32_t i = pending.back();
    pending.pop_back();
    if (fns[i].lowered) continue;
    fns[i].lowered = true;
    FnLowerer fl(*this, i);
    fl.run();
  }
}

// ---------------------------------------------------------------- one body

FnLowerer::FnLowerer(Lowering &l, uint32_t fnIdx)
    : L(l), P(l.prog), F(l.fns[fnIdx]), facts(&l.facts[fnIdx]), file(F.item.file), A(P.files[file]->ast) {
  if (L.returnMemo.size() <= file) L.returnMemo.resize(file + 1);
  L.returnMemo[file].resize(A.stmts.size(), 0);  // the AST is whole before any function lowers
  returnMemo_ = L.returnMemo[file].data();
}

// The extent of array parameter p as a graph value: its extent parameter
// (bound before p, an immutable usize) or its literal; none when it has
// neither.
NodeId FnLowerer::extentOf(const FnInst::P &p) {
  if (p.extentLit) return u64c(p.extentLit);
  if (p.extentName.empty()) return NodeId::none();
  const Local *l = findLocal(p.extentName);
  if (!l || l->k != Local::Value || l->val.leaves.size() != 1) return NodeId::none();
  return l->val.leaves[0];
}

// The parameters' graph nodes, then a local for each (values, cells for
// owners and records, arrays and borrows over their vparams).
void FnLowerer::bindParams() {
  std::vector<Leaves> paramLeaves;
  for (const FnInst::P &p : F.params) {
    Leaves leaves;
    const auto &lv = P.leaves(p.ty);
    for (uint32_t k = 0; k < p.count; ++k) {
      Op op = p.k == FnInst::P::Value ? Op::Param : Op::VParam;
      leaves.push_back(node(op, {Opnd::ofU64(p.first + k)}, lv[k].dt, p.k == FnInst::P::Value ? NodeHint("p") : NodeHint("view")));
    }
    paramLeaves.push_back(std::move(leaves));
  }
  // An extent parameter that a read-write array has is that array's `len`
  // in the body (its caller checked they are equal): a loop `for i in 0..n`
  // then counts the array's length, which proves its accesses in bounds
  // (exec/proven.hpp); a read-write array cannot be read through a part.
  std::map<std::string, NodeId> witness;
  for (size_t i = 0; i < F.params.size(); ++i) {
    const FnInst::P &p = F.params[i];
    if (p.k == FnInst::P::Array && p.rw && !p.extentName.empty() && p.count > 0 && !witness.count(p.extentName))
      witness[p.extentName] = node(Op::Len, {paramLeaves[i][0]}, DType::None, "n");
  }
  for (size_t i = 0; i < F.params.size(); ++i) {
    const FnInst::P &p = F.params[i];
    Leaves leaves = paramLeaves[i];
    if (auto w = witness.find(p.name); w != witness.end() && p.k == FnInst::P::Value && leaves.size() == 1)
      leaves[0] = w->second;
    bindLocal(paramLocal(p, leaves, witness));
  }
}

// The local of parameter p, over its nodes `leaves`.
Local FnLowerer::paramLocal(const FnInst::P &p, const Leaves &leaves, const std::map<std::string, NodeId> &witness) {
  const auto &lv = P.leaves(p.ty);
  Local loc;
  loc.name = p.name;
  loc.ty = p.ty;
  loc.loc = P.item(F.item).span.loc();
  if (p.k == FnInst::P::Value) {
    if (P.isCopy(p.ty) && P.type(p.ty).k == sema::TK::Scalar) {
      loc.k = Local::Value;
      loc.val = Val{p.ty, leaves};
    } else {
      // Owners and records live in cells: a move out of them leaves zeros.
      loc.k = Local::Place;
      loc.place = cellPlace(p.ty, p.name, true, "arg");
      storePlace(loc.place, Val{p.ty, leaves});
      loc.mut = true;
      loc.owns = true;  // a parameter by value is this function's to release
    }
  } else {
    Cols cols;
    const NodeId extent = p.k == FnInst::P::Array && !p.rw ? extentOf(p) : NodeId::none();
    for (uint32_t k = 0; k < p.count; ++k) {
      // A read-only array of extent n is read through `part V 0 n`: its
      // caller checked len(V) == n, so the part never traps, and its
      // length is n in the graph itself, which proves `for i in 0..n {
      // ... xs[i] ... }` in bounds (exec/proven.hpp).
      NodeId root = extent.valid() ? node(Op::Part, {leaves[k], u64c(0), extent}, DType::None, "view") : leaves[k];
      Col c;
      c.k = Col::Cell;
      c.storage = addStorage(Storage{root, root, lv[k].dt, 0, p.name, p.rw});
      c.dt = lv[k].dt;
      cols.push_back(c);
    }
    if (p.k == FnInst::P::Array) {
      loc.k = Local::Array;
      loc.arr.elem = p.ty;
      loc.arr.cols = cols;
      loc.arr.writable = p.rw;
      const NodeId root = cols.empty() ? NodeId::none() : storages[cols[0].storage].root;
      const auto w = p.rw ? witness.find(p.extentName) : witness.end();
      if (cols.empty()) loc.arr.len = u64c(0);
      else if (w != witness.end() && g->operands(w->second)[0].node() == root) loc.arr.len = w->second;
      else loc.arr.len = node(Op::Len, {root}, DType::None, "n");
    } else {
      loc.k = Local::Place;
      loc.place.ty = p.ty;
      loc.place.leaves = cols;
      loc.place.writable = p.rw;
      loc.mut = p.rw;
    }
  }
  return loc;
}

void FnLowerer::run() {
  // Built here and moved into the module at the end: lowering this body
  // instantiates other functions, which grows Module::funcs.
  g = &body_;
  origin = &origin_;
  struct Commit {
    FnLowerer &f;
    ~Commit() {
      Function &fn = f.L.mod.funcs[f.F.funcIndex];
      fn.body = std::move(f.body_);
      fn.origin = std::move(f.origin_);
    }
  } commit{*this};
  struct CountErrors {
    FnLowerer &f;
    size_t before;
    ~CountErrors() { f.facts->errors = f.L.diags.size() - before; }
  } countErrors{*this, L.diags.size()};
  const ast::Item &it = P.item(F.item);
  cur = it.span.loc();
  reserveBody(it.span);
  facts->reserve(it.exprLo, it.exprHi, it.stmtLo, it.stmtHi);
  if (it.isKernel || it.placement == ast::Placement::Device || it.launchThreads.valid()) {
    unsupported(it.span.loc(), "device code (" + it.name + ")");
    return;
  }
  for (const FnInst::P &p : F.params)
    if (p.device) {
      unsupported(it.span.loc(), "device memory (" + it.name + "'s parameter " + p.name + ")");
      return;
    }
  if (it.ret.valid() && A.type(it.ret).kind == ast::TypeKind::View) {
    node(Op::Ret, {}, DType::None, "ret");  // E-ESCAPE was reported: its body would only repeat it
    return;
  }
  pushScope();
  bindParams();
  if (F.sret) {
    const auto &lv = P.leaves(F.ret);
    for (uint32_t k = 0; k < lv.size(); ++k) {
      NodeId v = node(Op::VParam, {Opnd::ofU64(F.sretFirst + k)}, lv[k].dt, "out");
      sretStorages.push_back(addStorage(Storage{v, v, lv[k].dt, 0, "", true}));
    }
  }
  const sema::TypeRec &rt = P.type(F.ret);
  if (it.exprBody.valid()) {
    Val v = moveOrCopy(it.exprBody, F.ret);
    if (v.ok() && v.ty != F.ret && P.type(F.ret).k != sema::TK::Error) {
      error(A.expr(it.exprBody).span.loc(), "E-TYPE-MISMATCH",
            "Expected " + P.typeName(F.ret) + ", got " + P.typeName(v.ty) + ".");
      v = Val{};
    }
    if (!v.ok()) v = zeroVal(F.ret);
    popScope();
    if (F.sret) {
      storeSret(v);
      node(Op::Ret, {}, DType::None, "ret");
    } else if (rt.k == sema::TK::Unit || v.leaves.empty()) {
      node(Op::Ret, {}, DType::None, "ret");
    } else {
      node(Op::Ret, {v.leaves[0]}, DType::None, "ret");
    }
  } else if (it.body.valid()) {
    if (hasReturn(it.body)) {
      if (!tailReturns(it.body, true)) {  // else no statement runs after a return (FnLowerer::stmts)
        newCell(DType::Bool, "", true, "returned");
        retFlag = static_cast<int>(storages.size() - 1);
      }
      if (!F.sret && rt.k != sema::TK::Unit) retCell = cellPlace(F.ret, "", true, "result");
    }
    if (rt.k != sema::TK::Unit && rt.k != sema::TK::Error && !alwaysReturns(it.body))
      error(it.span.loc(), "E-RETURN", "Not all paths of " + it.name + " return.");
    block(it.body);
    popScope();
    if (retCell.ok() && !retCell.leaves.empty()) {
      Val v = loadPlace(retCell);
      node(Op::Ret, {v.leaves[0]}, DType::None, "ret");
    } else if (!F.sret && !P.leaves(F.ret).empty()) {
      // Never reached when every path returns (E-RETURN otherwise).
      node(Op::Ret, {konst(P.leaves(F.ret)[0].dt, 0)}, DType::None, "ret");
    } else {
      node(Op::Ret, {}, DType::None, "ret");
    }
  } else {
    error(it.span.loc(), "E-BODY", it.name + " has no body");
  }
  Diags rd;
  buildRegions(*g, rd);
  for (const auto &d : rd.list())
    P.error(file, it.span.loc(), "E-INTERNAL", "lowering " + it.name + " built unbalanced regions: " + d.message);
}

}  // namespace lower

// ---------------------------------------------------------------- entry

// The pipeline: load and parse (sema::Program), type and lower every
// function main reaches (and, for `cairn check`, every function of the
// file), then the checking layer (lower/check/) over the typed bodies.
bool lowerCairn(const std::string &path, std::string_view text, Module &out, Diags &diags,
                const LowerOptions &opts) {
  size_t before = diags.size();
  sema::Program prog(diags);
  std::string stdDir = opts.stdDir.empty() ? defaultStdDir() : opts.stdDir;
  prog.load(path, std::string(text), stdDir);
  if (diags.size() != before) return false;
  check::ItemCheck checks(prog);  // layouts, asm lanes, align, stack, const (lower/check/)
  if (!checks.run()) return false;
  out = Module{};
  for (const auto &f : prog.files) out.files.push_back(f->path);
  lower::Lowering L(prog, out, diags);
  L.lineComments = opts.lineComments;
  sema::ItemRef mainRef = prog.lookup(0, "main");
  bool haveMain = mainRef.valid() && prog.item(mainRef).kind == ast::ItemKind::Fn && mainRef.file == 0;
  if (!haveMain && !opts.checkAll) {
    diags.error(Loc{1, 1}, "E-MAIN", "the program has no `fn main() -> i32`");
    return false;
  }
  if (haveMain) {
    const ast::Item &mi = prog.item(mainRef);
    if (!mi.params.empty() || !mi.ret.valid() || prog.resolveType(0, mi.ret, {}) != prog.scalar(sema::Sc::I32)) {
      prog.error(0, mi.span.loc(), "E-MAIN", "main takes no parameters and returns i32: fn main() -> i32");
      return false;
    }
    L.instance(mainRef, {}, 0, mi.span.loc());
    L.lowerAll();
  }
  if (opts.checkAll) {
    for (ast::ItemId id : prog.files[0]->ast.top) {
      const ast::Item &it = prog.files[0]->ast.item(id);
      sema::ItemRef ref{0, id};
      if ((it.kind == ast::ItemKind::Struct || it.kind == ast::ItemKind::Enum) && it.generics.empty())
        prog.leaves(prog.recordOf(ref, {}, 0, it.span.loc()));
      if (it.kind != ast::ItemKind::Fn || !it.generics.empty() ||
          (!it.isExtern && !it.body.valid() && !it.exprBody.valid()))
        continue;
      size_t n = L.fns.size();
      int k = L.instance(ref, {}, 0, it.span.loc());
      if (k >= 0 && L.fns.size() > n) L.fns[k].checkOnly = true;
    }
    L.lowerAll();
  }
  std::vector<check::FnRow> rows;
  check::checkProgram(L, diags, &rows, opts.moves);
  if (diags.size() != before) return false;
  if (opts.doc) *opts.doc = check::renderDoc(L, rows);
  if (opts.receipt) {
    std::string why;
    *opts.receipt = check::renderReceipt(L, rows, why);
    if (opts.receiptError) *opts.receiptError = why;
  }
  return true;
}

}  // namespace cairn
