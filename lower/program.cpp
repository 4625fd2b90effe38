// The program's files and names: the scalar names, source files and their
// lines, loading imports from std/, and looking names up. Its types (interning,
// resolving written types, instantiating generic records and sums) are
// lower/types.cpp. See sema.hpp for the representation.
//
// Assumes each file parsed (its ast is whatever the parser recovered; items
// that failed to parse are simply missing). Never recurses on input depth
// beyond the parser's own nesting limit: types nest as deep as they were
// written, which the parser caps.
#include <fstream>
#include <sstream>

#include "lower/parser.hpp"
#include "lower/sema.hpp"

namespace cairn::sema {

namespace {
struct ScRow {
  Sc sc;
  std::string_view name;  // a view: parseSc compares lengths first, no strlen
  DType dt;
};
constexpr ScRow kScalars[] = {
    {Sc::Bool, "bool", DType::Bool}, {Sc::U8, "u8", DType::U8},      {Sc::U16, "u16", DType::U16},
    {Sc::U32, "u32", DType::U32},    {Sc::U64, "u64", DType::U64},   {Sc::Usize, "usize", DType::U64},
    {Sc::I8, "i8", DType::I8},       {Sc::I16, "i16", DType::I16},   {Sc::I32, "i32", DType::I32},
    {Sc::I64, "i64", DType::I64},    {Sc::F32, "f32", DType::F32},   {Sc::F64, "f64", DType::F64},
};
}  // namespace

DType dtypeOf(Sc s) { return kScalars[static_cast<int>(s)].dt; }
std::string_view scName(Sc s) { return kScalars[static_cast<int>(s)].name; }
bool parseSc(std::string_view s, Sc &out) {
  // Every scalar name is 2 to 5 characters and starts with b, u, i or f:
  // most identifiers are refused before any compare.
  if (s.size() < 2 || s.size() > 5 || (s[0] != 'b' && s[0] != 'u' && s[0] != 'i' && s[0] != 'f')) return false;
  for (const auto &r : kScalars)
    if (s == r.name) {
      out = r.sc;
      return true;
    }
  if (s == "isize") {
    out = Sc::I64;
    return true;
  }
  return false;
}

Diagnostic &Program::error(uint32_t file, Loc loc, const char *code, std::string msg) {
  // The same error at the same place is reported once (a type resolved
  // for the signature and again for a call, say).
  std::string key = std::to_string(file) + ":" + std::to_string(loc.line) + ":" + std::to_string(loc.col) + code + msg;
  if (!reported_.insert(key).second) {
    static Diagnostic sink;
    sink = Diagnostic{};
    return sink;
  }
  Diagnostic &d = diags_.error(loc, code, std::move(msg));
  if (file < files.size()) d.file = files[file]->path;
  return d;
}

const std::vector<size_t> &SourceFile::lineStarts() {
  if (!lineStarts_.empty()) return lineStarts_;
  lineStarts_.push_back(0);
  if (text.find('\r') == std::string::npos) {
    // Only "\n" ends lines: memchr from one to the next.
    for (size_t i = text.find('\n'); i != std::string::npos; i = text.find('\n', i + 1)) lineStarts_.push_back(i + 1);
    return lineStarts_;
  }
  for (size_t i = 0; i < text.size(); ++i)
    if (text[i] == '\n' || (text[i] == '\r' && (i + 1 == text.size() || text[i + 1] != '\n'))) lineStarts_.push_back(i + 1);
  return lineStarts_;
}

size_t SourceFile::offset(uint32_t line, uint32_t col) {
  const std::vector<size_t> &starts = lineStarts();
  if (line == 0) return 0;
  if (line > starts.size()) return text.size();
  return std::min(text.size(), starts[line - 1] + (col ? col - 1 : 0));
}

std::string_view SourceFile::lineText(uint32_t line) {
  const std::vector<size_t> &starts = lineStarts();
  if (line == 0 || line > starts.size()) return {};
  // A line runs to the next line's start, less its line end: "\n", "\r\n"
  // or a lone "\r"; the last line runs to the end of the text.
  size_t b = starts[line - 1], e = text.size();
  if (line < starts.size()) {
    e = starts[line] - 1;
    if (text[e] == '\n' && e > b && text[e - 1] == '\r') --e;
  }
  return std::string_view(text).substr(b, e - b);
}

// ---------------------------------------------------------------- loading

static bool readFile(const std::string &path, std::string &out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream ss;
  ss << in.rdbuf();
  out = ss.str();
  return true;
}

bool Program::load(const std::string &path, std::string text, const std::string &stdDir) {
  auto sf = std::make_unique<SourceFile>();
  sf->path = path;
  sf->text = std::move(text);
  uint32_t idx = static_cast<uint32_t>(files.size());
  files.push_back(std::move(sf));
  size_t before = diags_.size();
  {
    Diags local;
    parseCairn(files[idx]->text, idx, files[idx]->ast, local);
    for (const auto &d : local.list()) {
      Diagnostic &nd = diags_.error(d.loc, d.rule, d.message);
      nd.notes = d.notes;
      nd.end = d.end;
      nd.file = files[idx]->path;
    }
  }
  // Items by name; imports.
  SourceFile &f = *files[idx];
  for (ast::ItemId id : f.ast.top) {
    const ast::Item &it = f.ast.item(id);
    if (it.kind == ast::ItemKind::Module) {
      std::string m;
      for (size_t i = 0; i < it.path.size(); ++i) m += (i ? "." : "") + it.path[i];
      if (f.moduleName.empty()) f.moduleName = m;
      continue;
    }
    if (it.kind == ast::ItemKind::Import) continue;
    if (it.name.empty()) continue;
    if (Sc sc; parseSc(it.name, sc) && it.kind != ast::ItemKind::Impl) {
      // `u64(x)` converts and `u64` is a type everywhere: an item so named
      // could never be reached.
      error(idx, it.span.loc(), "E-NAME", it.name + " is a scalar type; an item cannot take its name");
      continue;
    }
    auto [pos, fresh] = f.items.emplace(it.name, ItemRef{idx, id});
    if (!fresh && it.kind != ast::ItemKind::Opaque && it.kind != ast::ItemKind::Plan &&
        it.kind != ast::ItemKind::Impl)
      error(idx, it.span.loc(), "E-DUPLICATE", it.name + " is declared twice")
          .note(item(pos->second).span.loc(), "first declared here", f.path);
  }
  for (ast::ItemId id : files[idx]->ast.top) {
    const ast::Item it = files[idx]->ast.item(id);  // copy: files may grow
    if (it.kind != ast::ItemKind::Import) continue;
    std::string modName;
    if (!loadModule(it.path, idx, it.span.loc(), stdDir, modName)) continue;
    std::string alias = it.alias.empty() ? it.path.back() : it.alias;
    files[idx]->aliases[alias] = modName;
    uint32_t mf = moduleFile_[modName];
    for (const auto &n : it.names) {
      auto found = files[mf]->items.find(n);
      if (found == files[mf]->items.end()) {
        error(idx, it.span.loc(), "E-NAME", "module " + modName + " has no item named " + n);
        continue;
      }
      files[idx]->imported[n] = found->second;
    }
  }
  return diags_.size() == before;
}

bool Program::loadModule(const std::vector<std::string> &path, uint32_t fromFile, Loc loc,
                         const std::string &stdDir, std::string &moduleName) {
  moduleName.clear();
  for (size_t i = 0; i < path.size(); ++i) moduleName += (i ? "." : "") + path[i];
  if (moduleFile_.count(moduleName)) return true;
  if (path.size() != 2 || path[0] != "std") {
    error(fromFile, loc, "E-IMPORT",
          "cannot import " + moduleName + ": only std.* modules can be imported by a single-file program");
    return false;
  }
  for (char c : path[1])
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) {
      error(fromFile, loc, "E-IMPORT", "no module named " + moduleName);
      return false;
    }
  std::string file = stdDir + "/" + path[1] + ".cairn";
  std::string text;
  if (!readFile(file, text)) {
    error(fromFile, loc, "E-IMPORT", "no module named " + moduleName + " (looked for " + file + ")");
    return false;
  }
  if (files.size() > 64) {
    error(fromFile, loc, "E-IMPORT", "too many modules");
    return false;
  }
  moduleFile_[moduleName] = static_cast<uint32_t>(files.size());
  uint32_t idx = static_cast<uint32_t>(files.size());
  load(file, std::move(text), stdDir);
  files[idx]->moduleName = moduleName;
  return true;
}

// ---------------------------------------------------------------- names

ItemRef Program::lookup(uint32_t f, const std::string &name) const {
  const SourceFile &sf = *files[f];
  if (auto it = sf.items.find(name); it != sf.items.end()) return it->second;
  if (auto it = sf.imported.find(name); it != sf.imported.end()) return it->second;
  return {};
}

ItemRef Program::lookupQualified(uint32_t f, const std::string &alias, const std::string &name) const {
  const SourceFile &sf = *files[f];
  auto a = sf.aliases.find(alias);
  if (a == sf.aliases.end()) return {};
  auto mf = moduleFile_.find(a->second);
  if (mf == moduleFile_.end()) return {};
  const SourceFile &m = *files[mf->second];
  if (auto it = m.items.find(name); it != m.items.end()) return it->second;
  return {};
}

bool Program::isModuleAlias(uint32_t f, const std::string &name) const {
  return files[f]->aliases.count(name) != 0;
}

ItemRef Program::methodOf(Ty t, const std::string &name) const {
  const TypeRec &r = types[t];
  ItemRef decl;
  if (r.k == TK::Record) decl = recs[r.inst].item;
  else if (r.k == TK::Sum) decl = sums[r.inst].item;
  else return {};
  const SourceFile &sf = *files[decl.file];
  if (auto it = sf.items.find(name); it != sf.items.end())
    if (sf.ast.item(it->second.id).kind == ast::ItemKind::Fn) return it->second;
  return {};
}

}  // namespace cairn::sema
