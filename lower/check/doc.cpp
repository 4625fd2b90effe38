// `cairn doc` and the build receipt, from the effect rows of checkProgram.
//
// The doc is Markdown: one section per function of the checked file, its
// signature as written and its row beside it
// (`fn fill(n:usize, out:rw<u8>[n], value:u8)  // effects: write:out`). A
// generic function lists the row of each instance the program makes. The
// receipt is JSON: the source file's sha256 (OpenSSL's libcrypto, loaded
// only for a receipt: ir/lazy_lib.hpp) and, per function
// instance, its sorted effects, the instances it calls and its number of
// unsafe blocks.
#include <openssl/evp.h>

#include <cstdio>
#include <nlohmann/json.hpp>

#include "ir/lazy_lib.hpp"

#include "lower/check/check.hpp"
#include "lower/fn.hpp"

namespace cairn::check {

static std::string signature(sema::SourceFile &sf, const ast::Item &it) {
  const std::string &t = sf.text;
  auto offset = [&](uint32_t line, uint32_t col) { return sf.offset(line, col); };
  size_t b = offset(it.span.line, it.span.col);
  size_t e = offset(it.span.endLine, it.span.endCol);
  if (it.body.valid()) e = offset(sf.ast.stmt(it.body).span.line, sf.ast.stmt(it.body).span.col);
  else if (it.exprBody.valid()) e = offset(sf.ast.expr(it.exprBody).span.line, sf.ast.expr(it.exprBody).span.col);
  std::string s = e > b ? t.substr(b, e - b) : it.name;
  while (!s.empty() && (std::isspace(static_cast<unsigned char>(s.back())) || s.back() == '=' || s.back() == ';'))
    s.pop_back();
  std::string out;
  for (char c : s) {
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
    if (c == ' ' && !out.empty() && out.back() == ' ') continue;
    out += c;
  }
  return out;
}

static std::string rowText(const FnRow &r) {
  if (r.effects.empty()) return "none";
  std::string s;
  for (const std::string &l : r.effects) s += (s.empty() ? "" : ", ") + l;
  return s;
}

std::string renderDoc(lower::Lowering &L, const std::vector<FnRow> &rows) {
  sema::Program &P = L.prog;
  sema::SourceFile &sf = *P.files[0];
  std::string out = "# " + sf.path + "\n";
  for (ast::ItemId id : sf.ast.top) {
    const ast::Item &it = sf.ast.item(id);
    if (it.kind != ast::ItemKind::Fn) continue;
    out += "\n## " + it.name + "\n\n```cairn\n";
    bool any = false;
    for (size_t i = 0; i < L.fns.size() && i < rows.size(); ++i) {
      if (L.fns[i].item.file != 0 || !(L.fns[i].item.id == id)) continue;
      any = true;
      std::string sig = signature(sf, it);
      if (!it.generics.empty()) sig += "  // as " + L.fns[i].name;
      out += sig + "  // effects: " + rowText(rows[i]) + "\n";
    }
    if (!any) out += signature(sf, it) + "  // effects: (generic; no instance is made)\n";
    out += "```\n";
  }
  return out;
}

#ifndef CAIRN_LIBCRYPTO_SONAME
#define CAIRN_LIBCRYPTO_SONAME "libcrypto.so.3"
#endif

// The sha256 of data in hex; false after saying why when libcrypto cannot
// be loaded.
static bool sha256(const std::string &data, std::string &hex, std::string &why) {
  static LazyLib crypto{CAIRN_LIBCRYPTO_SONAME, "libcrypto.so"};
  auto digest = crypto.get<decltype(&EVP_Digest)>("EVP_Digest", why);
  auto sha = digest ? crypto.get<decltype(&EVP_sha256)>("EVP_sha256", why) : nullptr;
  if (!sha) return false;
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  if (!digest(data.data(), data.size(), md, &n, sha(), nullptr)) {
    why = "EVP_Digest failed";
    return false;
  }
  char buf[3];
  hex.clear();
  for (unsigned int i = 0; i < n; ++i) {
    std::snprintf(buf, sizeof buf, "%02x", md[i]);
    hex += buf;
  }
  return true;
}

std::string renderReceipt(lower::Lowering &L, const std::vector<FnRow> &rows, std::string &why) {
  sema::Program &P = L.prog;
  nlohmann::ordered_json j;
  std::string digest;
  if (!sha256(P.files[0]->text, digest, why)) return "";
  j["source"] = P.files[0]->path;
  j["source_sha256"] = digest;
  nlohmann::ordered_json fns = nlohmann::ordered_json::object();
  std::map<std::string, size_t> order;
  for (size_t i = 0; i < L.fns.size() && i < rows.size(); ++i) order[L.fns[i].name] = i;
  for (const auto &[name, i] : order) {
    const FnRow &r = rows[i];
    fns[name] = {{"effects", std::vector<std::string>(r.effects.begin(), r.effects.end())},
                 {"calls", std::vector<std::string>(r.calls.begin(), r.calls.end())},
                 {"unsafe_blocks", r.unsafeBlocks}};
  }
  j["functions"] = fns;
  return j.dump(2) + "\n";
}

}  // namespace cairn::check
