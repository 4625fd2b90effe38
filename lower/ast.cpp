// Operator spellings and the S-expression dump of the syntax tree.
//
// Dump format: every node is `(kind field...)`; names print bare, string
// literals print quoted with C escapes for bytes outside printable ASCII,
// absent optional children print as `_`. Items are one per line. The
// recursion here follows the tree, whose height the parser bounds
// (parser.hpp, kMaxDepth), so it cannot overflow the stack.
#include "lower/ast.hpp"

#include <cstdio>

namespace cairn::ast {

std::string_view placementName(Placement p) {
  switch (p) {
    case Placement::None: return "";
    case Placement::Host: return "host";
    case Placement::Pinned: return "pinned";
    case Placement::Unified: return "unified";
    case Placement::Device: return "device";
  }
  return "";
}

std::string_view unOpText(UnOp op) {
  switch (op) {
    case UnOp::Neg: return "-";
    case UnOp::Not: return "!";
    case UnOp::BitNot: return "~";
  }
  return "?";
}

std::string_view binOpText(BinOp op) {
  static constexpr std::string_view kText[] = {"*", "/", "%", "+", "-", "<<", ">>", "<", "<=", ">", ">=",
                                               "==", "!=", "&", "^", "|", "&&", "||"};
  return kText[static_cast<unsigned>(op)];
}

std::string_view assignOpText(AssignOp op) {
  static constexpr std::string_view kText[] = {"=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>="};
  return kText[static_cast<unsigned>(op)];
}

namespace {

class Dumper {
 public:
  explicit Dumper(const Module &m) : m_(m) {}
  std::string out;

  void quoted(std::string_view s) {
    out += '"';
    for (unsigned char c : s) {
      if (c == '"' || c == '\\') {
        out += '\\';
        out += char(c);
      } else if (c >= 0x20 && c < 0x7f) {
        out += char(c);
      } else {
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\x%02x", c);
        out += buf;
      }
    }
    out += '"';
  }

  void garg(const GenericArg &g) {
    if (g.type.valid()) type(g.type);
    else expr(g.expr);
  }
  void gargs(const std::vector<GenericArg> &gs) {
    out += '[';
    for (size_t i = 0; i < gs.size(); ++i) {
      if (i) out += ' ';
      garg(gs[i]);
    }
    out += ']';
  }

  void type(TypeId id) {
    if (!id.valid()) { out += '_'; return; }
    const TypeNode &t = m_.type(id);
    auto placement = [&] {
      if (t.placement != Placement::None) { out += " @"; out += placementName(t.placement); }
    };
    switch (t.kind) {
      case TypeKind::Named:
        if (t.args.empty() && !t.extent.valid()) { out += t.name; return; }
        out += "(type "; out += t.name;
        if (!t.args.empty()) { out += ' '; gargs(t.args); }
        if (t.extent.valid()) { out += " (extent "; expr(t.extent); out += ')'; }
        out += ')';
        return;
      case TypeKind::View:
        out += t.writable ? "(rw " : "(ro ";
        type(t.elem);
        if (t.extent.valid()) { out += ' '; expr(t.extent); }
        placement();
        out += ')';
        return;
      case TypeKind::Storage:
        out += "(storage "; type(t.elem); out += ' '; expr(t.extent); placement(); out += ')';
        return;
      case TypeKind::Fn:
        out += "(fn (";
        for (size_t i = 0; i < t.params.size(); ++i) { if (i) out += ' '; type(t.params[i]); }
        out += ") "; type(t.ret); out += ')';
        return;
      case TypeKind::Dyn: out += "(dyn "; out += t.name; out += ')'; return;
      case TypeKind::Error: out += "(error-type)"; return;
    }
  }

  void params(const std::vector<Param> &ps) {
    out += '(';
    for (size_t i = 0; i < ps.size(); ++i) {
      if (i) out += ' ';
      out += '('; out += ps[i].name; out += ' '; type(ps[i].type); out += ')';
    }
    out += ')';
  }

  void expr(ExprId id) {
    if (!id.valid()) { out += '_'; return; }
    const Expr &e = m_.expr(id);
    switch (e.kind) {
      case ExprKind::Int:
        out += e.isChar ? "(char " : "";
        out += e.intOverflow ? e.text : std::to_string(e.intValue);
        if (e.isChar) out += ')';
        return;
      case ExprKind::Float: out += "(float "; out += e.text; out += ')'; return;
      case ExprKind::Bool: out += e.boolValue ? "true" : "false"; return;
      case ExprKind::Str: quoted(e.text); return;
      case ExprKind::Name: out += e.text; return;
      case ExprKind::Zeroed: out += "zeroed"; return;
      case ExprKind::Unary: out += '('; out += unOpText(e.unOp); out += ' '; expr(e.a); out += ')'; return;
      case ExprKind::Binary:
        out += '('; out += binOpText(e.binOp); out += ' '; expr(e.a); out += ' '; expr(e.b); out += ')';
        return;
      case ExprKind::Call:
        out += "(call "; expr(e.a);
        for (ExprId a : e.args) { out += ' '; expr(a); }
        out += ')';
        return;
      case ExprKind::Inst: out += "(inst "; expr(e.a); out += ' '; gargs(m_.moreOf(e).gargs); out += ')'; return;
      case ExprKind::Field: out += "(. "; expr(e.a); out += ' '; out += e.text; out += ')'; return;
      case ExprKind::Index: out += "(index "; expr(e.a); out += ' '; expr(e.b); out += ')'; return;
      case ExprKind::Part:
        out += "(part "; expr(e.a); out += ' '; expr(e.b); out += ' '; expr(e.c); out += ')';
        return;
      case ExprKind::Try: out += "(try "; expr(e.a); out += ')'; return;
      case ExprKind::Closure:
        out += "(closure "; params(m_.moreOf(e).params); out += ' '; type(m_.moreOf(e).retType); out += ' ';
        stmt(m_.moreOf(e).body); out += ')';
        return;
      case ExprKind::Error: out += "(error-expr)"; return;
    }
  }

  void effects(const std::vector<EffectLabel> &es) {
    out += "(effects";
    for (const auto &l : es) {
      out += ' '; out += l.name;
      if (!l.arg.empty()) { out += ':'; out += l.arg; }
    }
    out += ')';
  }

  void names(std::string_view head, const std::vector<std::string> &ns, char sep = ' ') {
    out += '('; out += head;
    for (size_t i = 0; i < ns.size(); ++i) {
      if (i) out += sep;
      else if (!head.empty()) out += ' ';
      out += ns[i];
    }
    out += ')';
  }

  void block(const Stmt &s) {
    out += "(block";
    for (StmtId c : s.stmts) { out += ' '; stmt(c); }
    out += ')';
  }

  void stmt(StmtId id) {
    if (!id.valid()) { out += '_'; return; }
    const Stmt &s = m_.stmt(id);
    const StmtMore &x = m_.moreOf(s);
    switch (s.kind) {
      case StmtKind::Let:
        out += s.isMut ? "(let-mut " : "(let "; out += s.name; out += ' '; type(s.type); out += ' ';
        expr(s.value); out += ')';
        return;
      case StmtKind::Unpack:
        out += s.isMut ? "(unpack-mut " : "(unpack ";
        names("", x.path, '.'); out += ' '; names("", x.names); out += ' '; expr(s.value); out += ')';
        return;
      case StmtKind::Storage:
        out += s.isBuffer ? "(buffer " : "(stack "; out += s.name; out += ' '; type(s.type); out += ' ';
        expr(s.value); out += ')';
        return;
      case StmtKind::Assign:
        out += "(assign "; out += assignOpText(s.assignOp); out += ' '; expr(s.target); out += ' ';
        expr(s.value); out += ')';
        return;
      case StmtKind::Expr: out += "(expr "; expr(s.value); out += ')'; return;
      case StmtKind::If:
        out += "(if "; expr(s.cond); out += ' '; stmt(s.body); out += ' '; stmt(s.elseBody); out += ')';
        return;
      case StmtKind::While: out += "(while "; expr(s.cond); out += ' '; stmt(s.body); out += ')'; return;
      case StmtKind::ForRange:
        out += "(for "; out += s.name; out += ' '; expr(s.value); out += ' '; expr(s.cond); out += ' ';
        stmt(s.body); out += ')';
        return;
      case StmtKind::ForEach:
        out += "(for-each "; out += s.name; out += ' '; expr(s.value); out += ' '; stmt(s.body); out += ')';
        return;
      case StmtKind::Parallel:
        out += "(parallel "; out += s.name; out += ' '; expr(s.value);
        if (!x.after.empty()) { out += ' '; names("after", x.after); }
        out += ' '; stmt(s.body); out += ')';
        return;
      case StmtKind::Break: out += "(break)"; return;
      case StmtKind::Continue: out += "(continue)"; return;
      case StmtKind::Return: out += "(return "; expr(s.value); out += ')'; return;
      case StmtKind::Defer: out += "(defer "; expr(s.value); out += ')'; return;
      case StmtKind::Block: block(s); return;
      case StmtKind::Unsafe: out += "(unsafe "; stmt(s.body); out += ')'; return;
      case StmtKind::Match:
        out += "(match "; expr(s.value);
        for (const MatchArm &a : x.arms) {
          out += ' '; names("arm", a.path, '.');
          if (a.hasBinding) { out += ' '; out += a.binding; }
          out += ' '; stmt(a.body);
        }
        out += ')';
        return;
      case StmtKind::Asm:
        out += "(asm "; out += x.asmTarget;
        if (!x.asmArch.empty()) { out += ' '; out += x.asmArch; }
        if (x.asmVolatile) out += " volatile";
        out += ' '; quoted(x.asmTemplate);
        for (const AsmOperand &o : x.asmOperands) {
          out += ' ';
          if (o.isOut) {
            out += "(out "; out += o.name; out += ' '; type(o.type);
            if (o.value.valid()) { out += ' '; expr(o.value); }
            out += ')';
          } else {
            expr(o.value);
          }
        }
        if (!x.clobbers.empty()) { out += ' '; names("clobbers", x.clobbers); }
        if (!x.effects.empty()) { out += ' '; effects(x.effects); }
        out += ')';
        return;
      case StmtKind::Error: out += "(error-stmt)"; return;
    }
  }

  void generics(const std::vector<GenericParam> &gs) {
    if (gs.empty()) return;
    out += " [";
    for (size_t i = 0; i < gs.size(); ++i) {
      if (i) out += ' ';
      out += gs[i].name;
      for (const auto &b : gs[i].bounds) { out += ':'; out += b; }
    }
    out += ']';
  }

  void item(ItemId id) {
    const Item &it = m_.item(id);
    out += '(';
    if (it.isPub) out += "pub ";
    switch (it.kind) {
      case ItemKind::Fn:
        if (it.isExtern) out += "extern ";
        if (it.isKernel) out += "kernel ";
        if (it.isUnsafe) out += "unsafe ";
        out += "fn "; out += it.name;
        if (!it.symbol.empty()) { out += ' '; quoted(it.symbol); }
        generics(it.generics);
        out += ' '; params(it.params); out += ' '; type(it.ret);
        if (it.placement != Placement::None) { out += " @"; out += placementName(it.placement); }
        if (it.ceiling == Ceiling::Pure) out += " pure";
        if (it.ceiling == Ceiling::Effects) { out += ' '; effects(it.effects); }
        if (it.launchThreads.valid()) {
          out += " (launch "; expr(it.launchThreads); out += ' '; expr(it.launchBlock); out += ')';
        }
        if (!it.implements.empty()) { out += " (implements "; out += it.implements; out += ')'; }
        if (it.body.valid()) { out += ' '; stmt(it.body); }
        if (it.exprBody.valid()) { out += " (= "; expr(it.exprBody); out += ')'; }
        break;
      case ItemKind::Struct:
        if (it.isLinear) out += "linear ";
        out += "struct "; out += it.name;
        generics(it.generics);
        if (it.isPacked) out += " packed";
        if (it.align.valid()) { out += " (align "; expr(it.align); out += ')'; }
        for (const auto &f : it.fields) { out += " ("; out += f.name; out += ' '; type(f.type); out += ')'; }
        if (it.hasLends) {
          out += " (lends "; out += it.lendsField; out += ' '; expr(it.lendsLo); out += ' '; expr(it.lendsHi);
          out += ')';
        }
        break;
      case ItemKind::Enum:
        out += "enum "; out += it.name;
        generics(it.generics);
        for (const auto &v : it.variants) {
          out += " ("; out += v.name;
          if (v.payload.valid()) { out += ' '; type(v.payload); }
          out += ')';
        }
        break;
      case ItemKind::Const:
        out += "const "; out += it.name; out += ' '; type(it.type); out += ' '; expr(it.value);
        break;
      case ItemKind::Import:
        out += "import "; names("", it.path, '.');
        if (!it.alias.empty()) { out += " as "; out += it.alias; }
        if (!it.names.empty()) { out += ' '; names("", it.names); }
        break;
      case ItemKind::Module: out += "module "; names("", it.path, '.'); break;
      case ItemKind::Layout: out += "layout "; out += it.name; out += ' '; expr(it.value); break;
      case ItemKind::Plan: out += "plan "; out += it.name; out += ' '; out += it.planUse; break;
      case ItemKind::Trait:
      case ItemKind::Impl:
        if (it.kind == ItemKind::Trait) { out += "trait "; out += it.name; }
        else { out += "impl "; out += it.traitName; }
        generics(it.generics);
        if (it.kind == ItemKind::Impl) { out += " for "; type(it.forType); }
        for (ItemId mId : it.members) { out += ' '; item(mId); }
        break;
      case ItemKind::Opaque: out += "opaque "; out += it.name; break;
    }
    out += ')';
  }

 private:
  const Module &m_;
};

}  // namespace

std::string dumpAst(const Module &m) {
  Dumper d(m);
  for (ItemId id : m.top) {
    d.item(id);
    d.out += '\n';
  }
  return std::move(d.out);
}

std::string dumpExpr(const Module &m, ExprId e) {
  Dumper d(m);
  d.expr(e);
  return std::move(d.out);
}

std::string dumpType(const Module &m, TypeId t) {
  Dumper d(m);
  d.type(t);
  return std::move(d.out);
}

}  // namespace cairn::ast
