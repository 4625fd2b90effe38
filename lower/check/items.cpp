// Checks of records and function bodies that need no lowering:
//   E-ALIGN        struct S align(n): n a constant power of two, 8 to 65536;
//   E-STACK-LIMIT  one function's `stack` declarations hold at most 65536
//                  bytes together (in 128 bits, so that a huge extent
//                  cannot wrap), reported at the declaration that passes
//                  the limit, with a note at each of the others;
//   E-ASM-LANE     typed PTX in device code (a kernel fn, a function with a
//                  @device or @unified view or result, or a parallel region)
//                  declares only read, write and fence.
// Every function of every file is walked, reached from main or not; trait
// and impl members too (for E-ASM-LANE only). A generic function's stack is
// not summed (its element types are not known until it is instantiated).
#include <map>

#include "lower/check/items.hpp"

namespace cairn::check {

namespace {
constexpr uint64_t kStackLimit = 65536;

template <class Fn>
void forEachStmt(const ast::Module &A, ast::StmtId id, Fn &&fn, int depth = 0) {
  if (!id.valid() || depth > 512) return;
  const ast::Stmt &s = A.stmt(id);
  fn(s);
  forEachStmt(A, s.body, fn, depth + 1);
  forEachStmt(A, s.elseBody, fn, depth + 1);
  for (ast::StmtId k : s.stmts) forEachStmt(A, k, fn, depth + 1);
  for (const ast::MatchArm &arm : A.moreOf(s).arms) forEachStmt(A, arm.body, fn, depth + 1);
}

bool isDeviceView(const ast::Module &A, ast::TypeId t) {
  if (!t.valid()) return false;
  const ast::TypeNode &tn = A.type(t);
  return (tn.kind == ast::TypeKind::View || tn.kind == ast::TypeKind::Storage) &&
         (tn.placement == ast::Placement::Device || tn.placement == ast::Placement::Unified);
}
}  // namespace

void ItemCheck::checkAligns() {
  for (uint32_t f = 0; f < P.files.size(); ++f)
    for (ast::ItemId id : P.files[f]->ast.top) {
      const ast::Item &it = P.files[f]->ast.item(id);
      if (it.kind != ast::ItemKind::Struct || !it.align.valid()) continue;
      Loc loc = P.files[f]->ast.expr(it.align).span.loc();
      uint64_t n = 0;
      if (!P.constValue(f, it.align, {}, n)) {
        P.error(f, loc, "E-ALIGN", "align(n) of " + it.name + " takes a constant: a power of two from 8 to 65536.");
        continue;
      }
      if (n < 8 || n > 65536 || (n & (n - 1)) != 0)
        P.error(f, loc, "E-ALIGN", "align(" + std::to_string(n) + ") is not a power of two from 8 to 65536.");
    }
}

// E-DUPLICATE inside one item: two fields of a record, two variants of a
// sum, two parameters or two generic parameters of one name.
void ItemCheck::checkDuplicates() {
  for (uint32_t f = 0; f < P.files.size(); ++f)
    for (ast::ItemId id : P.files[f]->ast.top) {
      const ast::Item &it = P.files[f]->ast.item(id);
      auto check = [&](const std::string &what, const std::string &name, const ast::Span &at,
                       std::map<std::string, ast::Span> &seen) {
        auto [prev, fresh] = seen.emplace(name, at);
        if (fresh) return;
        P.error(f, at.loc(), "E-DUPLICATE", it.name + " has two " + what + "s named " + name + "; give each its own name.")
            .note(prev->second.loc(), "the first " + name);
      };
      std::map<std::string, ast::Span> fields, variants, params, generics;
      for (const ast::StructField &x : it.fields) check("field", x.name, x.span, fields);
      for (const ast::Variant &x : it.variants) check("variant", x.name, x.span, variants);
      if (it.kind == ast::ItemKind::Fn)
        for (const ast::Param &x : it.params) check("parameter", x.name, x.span, params);
      for (const ast::GenericParam &x : it.generics) check("generic parameter", x.name, x.span, generics);
    }
}

void ItemCheck::checkFunctions() {
  for (uint32_t f = 0; f < P.files.size(); ++f) {
    const ast::Module &A = P.files[f]->ast;
    // The two walks below look for PTX asm and stack declarations: a file
    // without any (one pass over its statements says so) skips them.
    bool ptxAsm = false, stackDecls = false;
    for (const ast::Stmt &s : A.stmts) {
      ptxAsm = ptxAsm || (s.kind == ast::StmtKind::Asm && A.moreOf(s).asmTarget == "ptx");
      stackDecls = stackDecls || (s.kind == ast::StmtKind::Storage && !s.isBuffer && s.type.valid());
    }
    if (!ptxAsm && !stackDecls) continue;
    // (function, whether its types are known without instantiating anything)
    std::vector<std::pair<ast::ItemId, bool>> fns;
    for (ast::ItemId id : A.top) {
      const ast::Item &it = A.item(id);
      if (it.kind == ast::ItemKind::Fn) fns.push_back({id, it.generics.empty()});
      if (it.kind == ast::ItemKind::Impl || it.kind == ast::ItemKind::Trait)
        for (ast::ItemId m : it.members)
          if (A.item(m).kind == ast::ItemKind::Fn) fns.push_back({m, false});
    }
    for (auto [id, concrete] : fns) {
      const ast::Item &it = A.item(id);
      if (!it.body.valid()) continue;
      bool device = it.isKernel || it.placement == ast::Placement::Device || isDeviceView(A, it.ret);
      for (const ast::Param &p : it.params) device = device || isDeviceView(A, p.type);
      if (ptxAsm) checkAsmLane(f, it.body, device);
      if (concrete && stackDecls) checkStack(f, it);
    }
  }
}

void ItemCheck::checkAsmLane(uint32_t f, ast::StmtId id, bool device) {
  const ast::Module &A = P.files[f]->ast;
  if (!id.valid()) return;
  const ast::Stmt &s = A.stmt(id);
  if (s.kind == ast::StmtKind::Parallel) device = true;
  const ast::StmtMore &more = A.moreOf(s);
  if (s.kind == ast::StmtKind::Asm && more.asmTarget == "ptx" && device)
    for (const ast::EffectLabel &l : more.effects) {
      if (l.name == "read" || l.name == "write" || l.name == "fence") continue;
      Loc loc = l.span.line ? l.span.loc() : s.span.loc();
      P.error(f, loc, "E-ASM-LANE",
              "Typed PTX in device code may declare reads, writes and fence; " + l.name + " is not lane-safe.");
    }
  checkAsmLane(f, s.body, device);
  checkAsmLane(f, s.elseBody, device);
  for (ast::StmtId k : s.stmts) checkAsmLane(f, k, device);
  for (const ast::MatchArm &arm : more.arms) checkAsmLane(f, arm.body, device);
}

// Bytes of one element of type t, by its scalar leaves (records by their
// fields, without padding); ok is false when the type does not resolve.
uint64_t ItemCheck::elemBytes(uint32_t f, ast::TypeId t, bool &ok) {
  sema::Ty ty = P.resolveType(f, t, {});
  ok = !P.hasError(ty) && P.type(ty).k != sema::TK::Unit;
  uint64_t n = 0;
  for (const sema::Leaf &l : P.leaves(ty)) n += dtypeBytes(l.dt);
  return n;
}

void ItemCheck::checkStack(uint32_t f, const ast::Item &fn) {
  const ast::Module &A = P.files[f]->ast;
  struct Decl {
    const ast::Stmt *s;
    unsigned __int128 bytes;
  };
  std::vector<Decl> decls;
  forEachStmt(A, fn.body, [&](const ast::Stmt &s) {
    if (s.kind != ast::StmtKind::Storage || s.isBuffer || !s.type.valid()) return;
    const ast::TypeNode &tn = A.type(s.type);
    uint64_t count = 0;
    bool ok = false;
    if (!tn.extent.valid() || !P.constValue(f, tn.extent, {}, count)) return;  // no constant extent
    uint64_t each = elemBytes(f, tn.elem, ok);
    if (ok) decls.push_back({&s, static_cast<unsigned __int128>(count) * each});
  });
  unsigned __int128 total = 0;
  const Decl *over = nullptr;
  for (const Decl &d : decls) {
    total += d.bytes;
    if (!over && total > kStackLimit) over = &d;
  }
  if (!over) return;
  Diagnostic &diag = P.error(f, over->s->span.loc(), "E-STACK-LIMIT",
                             "The stack declarations of " + fn.name + " hold " +
                                 int128Text(static_cast<__int128>(total)) +
                                 " bytes together; one function's stack declarations hold at most 65536 bytes.");
  for (const Decl &d : decls)
    if (&d != over)
      diag.note(d.s->span.loc(), d.s->name + " holds " + int128Text(static_cast<__int128>(d.bytes)) + " bytes",
                P.files[f]->path);
}

}  // namespace cairn::check
