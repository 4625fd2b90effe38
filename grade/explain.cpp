// The cycle picture and the error picture of --explain (see explain.hpp).
//
// The arrows are read back from the oracle's notes, whose wording is fixed
// by oracle/order.cpp and docs/uir.md; a note that does not match is
// skipped, so a change of wording degrades the picture, never crashes.
// Graphviz runs as a child process with an argument vector (no shell), on
// files we wrote; it is killed if it outlives its time.
#include "grade/explain.hpp"

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <functional>
#include <regex>
#include <sstream>
#include <thread>
#include <unordered_map>

#include "ir/dot.hpp"
#include "ir/printer.hpp"

extern char **environ;

namespace cairn::grade {

namespace {

std::string esc(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out;
}

// Long lines (a data=[...] list) are cut, as in ir/dot.cpp.
std::string shortText(std::string s) { return s.size() > 70 ? s.substr(0, 67) + "..." : s; }

}  // namespace

std::string cycleDot(const Graph &g, const Diags &d) {
  static const std::regex arrow(R"(^arrow (\d+)/(\d+): %(\S+) \(line (\d+)\) must come before %(\S+) \(line (\d+)\): (.*)$)");
  std::unordered_map<std::string, NodeId> byName;
  for (uint32_t i = 0; i < g.size(); ++i) byName.emplace(std::string(g.name(NodeId{i})), NodeId{i});
  std::ostringstream os;
  os << "digraph cycle {\n"
        "  rankdir=TB;\n"
        "  labelloc=t; fontname=\"monospace\";\n"
        "  label=\"a load of an old buffer version is needed after that version was overwritten\\n"
        "no order satisfies every arrow\";\n"
        "  node [shape=box, style=\"rounded,filled\", fillcolor=\"#f7f7f7\", fontname=\"monospace\", fontsize=10];\n"
        "  edge [fontname=\"monospace\", fontsize=9, arrowsize=0.7];\n";
  int cycles = 0;
  for (const Diagnostic &x : d.list()) {
    if (x.rule != "old-version-order") continue;
    std::string body;
    int arrows = 0;
    std::unordered_map<std::string, size_t> ids;
    auto node = [&](const std::string &name, const std::string &line) {
      auto it = byName.find(name);
      auto [slot, fresh] = ids.emplace(name, ids.size());
      std::string id = "c" + std::to_string(cycles + 1) + "_" + std::to_string(slot->second);
      if (!fresh) return id;
      std::string text = it != byName.end() ? shortText(nodeText(g, it->second)) : "%" + name;
      Op op = it != byName.end() ? g.op(it->second) : Op::Const;
      const char *fill = op == Op::Load ? "#fbb4ae" : op == Op::Store ? "#fed9a6" : op == Op::After ? "#b3cde3" : "#f7f7f7";
      body += "    " + id + " [label=\"" + esc(text) + "\\nline " + line + "\", fillcolor=\"" + fill + "\"];\n";
      return id;
    };
    for (const Note &n : x.notes) {
      std::smatch m;
      if (!std::regex_match(n.message, m, arrow)) continue;
      std::string a = node(m[3], m[4]), b = node(m[5], m[6]);
      std::string why = m[7];
      bool order = why.find(" overwrites") != std::string::npos;
      body += "    " + a + " -> " + b + " [label=\"" + esc(std::string(m[1]) + ". " + (order ? why : "used by")) + "\"" +
              (order ? ", color=\"#d62728\", fontcolor=\"#d62728\", penwidth=2.5, style=dashed" : "") + "];\n";
      ++arrows;
    }
    if (arrows == 0) continue;
    ++cycles;
    os << "  subgraph cluster_" << cycles << " {\n    label=\"cycle " << cycles << ": the load at line " << x.loc.line
       << "\"; style=rounded; color=gray50;\n"
       << body << "  }\n";
  }
  os << "}\n";
  return cycles ? os.str() : "";
}

std::string errorDot(const Graph &g, const Diags &d) {
  DotOptions o;
  for (const Diagnostic &x : d.list()) {
    o.highlightLines.push_back(x.loc.line);
    if (!o.versionsOf.empty()) continue;
    // The buffer of the first node on an error line that has one: follow
    // first operands back to a `buffer`.
    for (uint32_t i = 0; i < g.size() && o.versionsOf.empty(); ++i) {
      if (g.loc(NodeId{i}).line != x.loc.line) continue;
      NodeId n{i};
      for (int guard = 0; guard < 1 << 20 && n.valid(); ++guard) {
        if (g.op(n) == Op::Buffer) {
          o.versionsOf = std::string(g.name(n));
          break;
        }
        auto ops = g.operands(n);
        n = !ops.empty() && !ops[0].isLit() && ops[0].node().v < n.v ? ops[0].node() : NodeId::none();
      }
    }
  }
  return printDot(g, o);
}

bool renderSvg(const std::string &dotPath, const std::string &svgPath, std::string &why, double seconds) {
  std::string a0 = "dot", a1 = "-Tsvg", a3 = "-o";
  char *argv[] = {a0.data(), a1.data(), const_cast<char *>(dotPath.c_str()), a3.data(), const_cast<char *>(svgPath.c_str()),
                  nullptr};
  pid_t pid = 0;
  int rc = posix_spawnp(&pid, "dot", nullptr, nullptr, argv, environ);
  if (rc != 0) {
    why = rc == ENOENT ? "Graphviz `dot` is not installed; render the picture with `dot -Tsvg " + dotPath + "`"
                       : "cannot run Graphviz `dot`: " + std::string(std::strerror(rc));
    return false;
  }
  auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  int status = 0;
  for (;;) {
    pid_t w = waitpid(pid, &status, WNOHANG);
    if (w == pid) break;
    if (w < 0 && errno != EINTR) {
      why = "lost track of Graphviz `dot`";
      return false;
    }
    if (std::chrono::steady_clock::now() > deadline) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      why = "Graphviz `dot` took longer than " + std::to_string(static_cast<int>(seconds)) + " s";
      return false;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    why = "Graphviz `dot` failed on " + dotPath;
    return false;
  }
  return true;
}

}  // namespace cairn::grade
