// The `cairn` command line (CLI11), per shared/CONTRACT.md and the README.
//
//   cairn oracle FILE [--json]       parse + validate
//   cairn run FILE [--slot K=V,...]  parse + validate + interpret
//   cairn fmt FILE [-i | --check]    canonical text
//   cairn dot FILE [-o OUT]          Graphviz picture
//   cairn json FILE [-o OUT]         the JSON form (docs/uir.md)
//   cairn grade EXERCISE SUBMISSION  the course grader (tools/cmd_grade.cpp)
//   cairn lesson check [DIR]         validate lessons (tools/cmd_grade.cpp)
//   cairn emit c FILE [-o OUT]       the program as C (tools/cmd_c.cpp); `run
//                                    --backend c` compiles and runs that C
//   cairn emit cuda FILE [-o OUT]    a flat graph as CUDA (tools/cmd_c.cpp); `run
//                                    --backend cuda [--emulate]` runs it
//   cairn fuzz --seed S --count N    differential fuzzing (tools/cmd_fuzz.cpp)
//   cairn rules [CODE]               the CAIRN diagnostic codes (tools/cmd_rules.cpp)
//
// FILE is .uir text, or the JSON form when it ends in `.json` (or, for `-`,
// standard input, when its first non-blank byte is `{`). Exit status: 0 ok;
// 1 the program is invalid or trapped (or `fmt --check` found it unformatted);
// 2 usage or I/O error; 70 an internal error (tools/main.cpp catches it).
// Everything for the user goes to stdout; diagnostics, traces and errors to
// stderr, so `--json` output is always parseable.
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "exec/interp.hpp"
#include "ir/dot.hpp"
#include "ir/json.hpp"
#include "ir/module.hpp"
#include "ir/parser.hpp"
#include "ir/printer.hpp"
#include "ir/source_map.hpp"
#include "oracle/oracle.hpp"
#include "tools/allocator.hpp"
#include "tools/cmd_grade.hpp"
#include "tools/commands.hpp"

namespace cairn {
namespace {

enum Exit : int { kOk = 0, kInvalid = 1, kUsage = 2 };

constexpr uint64_t kMaxInputBytes = uint64_t{1} << 30;      // 1 GiB of .uir text
constexpr uint64_t kMaxJsonInputBytes = uint64_t{1} << 28;  // 256 MiB: a JSON DOM costs ~10x its text

void usageError(const std::string &msg) { std::cerr << "cairn: error: " << msg << '\n'; }

// ---- input ------------------------------------------------------------------

struct Input {
  std::string path;   // as given; "-" for stdin
  std::string shown;  // the name diagnostics print
  std::string text;
  bool json = false;
};

bool endsWith(const std::string &s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Reads at most `limit` bytes; one more means the input is too large.
bool readAll(std::FILE *f, uint64_t limit, std::string &out, bool &tooLarge) {
  char buf[1 << 16];
  tooLarge = false;
  for (;;) {
    size_t got = std::fread(buf, 1, sizeof buf, f);
    if (got > 0) {
      if (out.size() + got > limit) {
        tooLarge = true;
        return true;
      }
      out.append(buf, got);
    }
    if (got < sizeof buf) return !std::ferror(f);
  }
}

// Reads FILE or stdin; on failure prints why and returns false (exit 2).
bool readInput(const std::string &path, Input &in) {
  in.path = path;
  in.shown = path == "-" ? "<stdin>" : path;
  bool tooLarge = false;
  if (path == "-") {
    if (!readAll(stdin, kMaxInputBytes, in.text, tooLarge)) {
      usageError("cannot read standard input: " + std::string(std::strerror(errno)));
      return false;
    }
    size_t first = in.text.find_first_not_of(" \t\r\n");
    in.json = first != std::string::npos && in.text[first] == '{';
  } else {
    std::error_code ec;
    auto st = std::filesystem::status(path, ec);
    if (ec || !std::filesystem::exists(st)) {
      usageError(path + ": no such file");
      return false;
    }
    if (std::filesystem::is_directory(st)) {
      usageError(path + ": is a directory");
      return false;
    }
    in.json = endsWith(path, ".json");
    uint64_t limit = in.json ? kMaxJsonInputBytes : kMaxInputBytes;
    if (std::filesystem::is_regular_file(st)) {
      auto size = std::filesystem::file_size(path, ec);
      if (!ec && size > limit) {
        usageError(path + ": file is too large (" + std::to_string(size) + " bytes; the limit is " +
                   std::to_string(limit) + ")");
        return false;
      }
    }
    std::FILE *f = std::fopen(path.c_str(), "rb");
    if (!f) {
      usageError(path + ": cannot open: " + std::strerror(errno));
      return false;
    }
    bool ok = readAll(f, limit, in.text, tooLarge);
    int err = errno;
    std::fclose(f);
    if (!ok) {
      usageError(path + ": cannot read: " + std::strerror(err));
      return false;
    }
  }
  if (tooLarge) {
    usageError(in.shown + ": input is too large (the limit is " +
               std::to_string(in.json ? kMaxJsonInputBytes : kMaxInputBytes) + " bytes)");
    return false;
  }
  return true;
}

bool loadGraph(const Input &in, Graph &g, Diags &d) {
  return in.json ? parseJsonGraph(in.text, g, d) : parseUir(in.text, g, d);
}

// Prints sorted diagnostics on stderr, quoting .uir text under each (a JSON
// form's locations are not all lines of its text, so it is not quoted).
void printDiags(const Diags &d, const Input &in) {
  if (in.json) return d.print(std::cerr, in.shown);
  SourceMap src;
  src.add(in.shown, in.text);
  d.print(std::cerr, in.shown, src);
}

void report(Diags &d, const Input &in) {
  d.sort();
  printDiags(d, in);
}

// Writes `text` to OUT, or stdout when OUT is empty or "-".
bool writeOutput(const std::string &out, const std::string &text) {
  if (out.empty() || out == "-") {
    std::cout << text;
    std::cout.flush();
    return static_cast<bool>(std::cout);
  }
  std::ofstream f(out, std::ios::binary | std::ios::trunc);
  f << text;
  f.close();
  if (!f) {
    usageError(out + ": cannot write: " + std::strerror(errno));
    return false;
  }
  return true;
}

// ---- cairn oracle -------------------------------------------------------------

struct OracleArgs {
  std::string file;
  bool json = false;
};

std::string summary(const Graph &g) {
  size_t buffers = 0, stores = 0, loops = 0;
  for (uint32_t i = 0; i < g.size(); ++i) {
    Op op = g.op(NodeId{i});
    buffers += op == Op::Buffer;
    stores += op == Op::Store;
    loops += op == Op::Range;
  }
  auto n = [](size_t k, const char *one, const char *many) { return std::to_string(k) + ' ' + (k == 1 ? one : many); };
  return n(g.size(), "node", "nodes") + ", " + n(buffers, "buffer", "buffers") + ", " + n(stores, "store", "stores") +
         ", " + n(loops, "loop", "loops");
}

int cmdOracle(const OracleArgs &a) {
  Input in;
  if (!readInput(a.file, in)) return kUsage;
  if (!in.json && looksLikeModule(in.text)) return moduleOracle(in.shown, in.text, a.json);
  Graph g;
  Diags d;
  Facts facts;
  bool valid = loadGraph(in, g, d) && validate(g, facts, d);
  d.sort();
  if (a.json) {
    std::cout << "{\"valid\": " << (valid ? "true" : "false") << ", \"diagnostics\": " << d.toJson().dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "}\n";
  } else if (valid) {
    std::cout << "ok: " << summary(g) << '\n';
  }
  if (!valid) printDiags(d, in);
  return valid ? kOk : kInvalid;
}

// ---- cairn run -----------------------------------------------------------------

struct RunArgs {
  std::string file;
  std::vector<std::string> slots;
  std::string backend = "interp";
  bool json = false, trace = false;
  uint64_t maxElements = RunLimits{}.maxElements;
  uint64_t maxSteps = 0;
  double timeout = 0;
  bool guardZones = false, checkAccesses = false;  // --backend c only
  bool emulate = false, exactFloatReduce = false;  // --backend cuda only
};

// The buffer node bound to each slot.
std::map<int64_t, NodeId> slotBuffers(const Graph &g) {
  std::map<int64_t, NodeId> m;
  for (uint32_t i = 0; i < g.size(); ++i)
    if (g.op(NodeId{i}) == Op::Buffer && g.slot(NodeId{i}) >= 0) m.emplace(g.slot(NodeId{i}), NodeId{i});
  return m;
}

std::string trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return std::string(s);
}

// Parses each `--slot K=V,V,...` against the graph's slot buffers: the slot
// must exist, each value must be a literal that fits the buffer's dtype, and
// the count must match a static size (a dynamic one is checked at run time).
bool parseSlots(const std::vector<std::string> &specs, const Graph &g,
                std::map<int64_t, std::vector<Literal>> &out) {
  auto buffers = slotBuffers(g);
  for (const std::string &spec : specs) {
    auto fail = [&](const std::string &why) {
      usageError("--slot " + spec + ": " + why);
      return false;
    };
    size_t eq = spec.find('=');
    if (eq == std::string::npos) return fail("expected K=V,V,... (for example --slot 0=5,6,7)");
    std::string key = trim(std::string_view(spec).substr(0, eq));
    int64_t k = -1;
    auto [p, ec] = std::from_chars(key.data(), key.data() + key.size(), k);
    if (key.empty() || ec != std::errc() || p != key.data() + key.size() || k < 0)
      return fail("`" + key + "` is not a slot number");
    auto b = buffers.find(k);
    if (b == buffers.end()) {
      std::string have;
      for (auto &[s, n] : buffers) have += (have.empty() ? "" : ", ") + std::to_string(s);
      return fail("no buffer is bound to slot " + key + (have.empty() ? " (the program has no slots)" : " (slots: " + have + ")"));
    }
    if (out.count(k)) return fail("slot " + key + " is given twice");
    NodeId buf = b->second;
    DType t = g.dtype(buf);
    std::vector<Literal> values;
    std::string_view rest = std::string_view(spec).substr(eq + 1);
    if (!trim(rest).empty()) {
      for (;;) {
        size_t comma = rest.find(',');
        std::string v = trim(rest.substr(0, comma));
        auto lit = parseLiteral(v);
        if (!lit) return fail("`" + v + "` is not a literal");
        if (!literalBits(*lit, t))
          return fail("`" + v + "` does not fit " + std::string(dtypeName(t)) + ", the dtype of %" +
                      std::string(g.name(buf)) + " (line " + std::to_string(g.loc(buf).line) + ")");
        values.push_back(*lit);
        if (comma == std::string_view::npos) break;
        rest.remove_prefix(comma + 1);
      }
    }
    auto ops = g.operands(buf);
    if (!ops.empty() && ops[0].isLit()) {
      const Literal &n = g.literal(ops[0].lit());
      if (n.kind == Literal::Kind::Int && !n.negative && n.magnitude != values.size())
        return fail(std::to_string(values.size()) + " value(s) given, but %" + std::string(g.name(buf)) + " (line " +
                    std::to_string(g.loc(buf).line) + ") has " + std::to_string(n.magnitude) + " element(s)");
    }
    out.emplace(k, std::move(values));
  }
  return true;
}

// A value as a JSON number, exact: integers in decimal, floats shortest
// round-trip. NaN and infinities are not JSON numbers: "nan", "inf", "-inf".
std::string jsonNumber(Bits b, DType t) {
  std::string s = bitsText(b, t);
  if (isFloat(t) && (s == "nan" || s == "inf" || s == "-inf")) return '"' + s + '"';
  return s;
}

void printSlots(const RunResult &r, bool json) {
  if (json) {
    std::string out = "{\"slots\": {";
    for (size_t i = 0; i < r.slots.size(); ++i) {
      const SlotResult &s = r.slots[i];
      out += (i ? ", \"" : "\"") + std::to_string(s.slot) + "\": [";
      for (size_t k = 0; k < s.values.size(); ++k) out += (k ? ", " : "") + jsonNumber(s.values[k], s.type);
      out += ']';
    }
    std::cout << out << "}}\n";
    return;
  }
  for (const SlotResult &s : r.slots) {
    std::string line = "slot " + std::to_string(s.slot) + " = [";
    for (size_t k = 0; k < s.values.size(); ++k) line += (k ? " " : "") + bitsText(s.values[k], s.type);
    std::cout << line << "]\n";
  }
}

// The whole pipeline of `cairn run`: read, parse, validate, bind slots, run.
int cmdRun(const RunArgs &a) {
  if (a.backend != "interp" && a.backend != "c" && a.backend != "cuda") {
    usageError("unknown backend `" + a.backend + "` (use --backend interp, c or cuda)");
    return kUsage;
  }
  if ((a.emulate || a.exactFloatReduce) && a.backend != "cuda") {
    usageError(std::string(a.emulate ? "--emulate" : "--exact-float-reduce") + " needs --backend cuda");
    return kUsage;
  }
  if ((a.guardZones || a.checkAccesses) && a.backend != "c") {
    usageError(std::string(a.guardZones ? "--guard-zones" : "--check-accesses") +
               " needs --backend c (the interpreter checks every access)");
    return kUsage;
  }
  Input in;
  if (!readInput(a.file, in)) return kUsage;
  if (endsWith(in.path, ".cairn") || (!in.json && looksLikeModule(in.text))) {
    if (!a.slots.empty() || a.json || a.trace) {
      usageError("--slot, --json and --trace apply to flat .uir graphs only");
      return kUsage;
    }
    if (a.guardZones) {
      usageError("--guard-zones applies to flat .uir graphs (use --check-accesses for a module)");
      return kUsage;
    }
    if (a.backend == "cuda") {
      usageError("--backend cuda runs flat .uir graphs only (modules and CAIRN programs: use --backend interp or c)");
      return kUsage;
    }
    ModuleRunLimits lim;
    lim.backend = a.backend;
    lim.checkAccesses = a.checkAccesses;
    lim.maxElements = a.maxElements;
    lim.maxSteps = a.maxSteps;
    lim.timeout = a.timeout;
    return endsWith(in.path, ".cairn") ? cairnRun(in.shown, in.text, lim) : moduleRun(in.shown, in.text, lim);
  }

  Graph g;
  Diags d;
  Facts facts;
  if (!loadGraph(in, g, d) || !validate(g, facts, d)) {
    report(d, in);
    return kInvalid;
  }

  RunOptions opts;
  if (!parseSlots(a.slots, g, opts.slotData)) return kUsage;
  if (a.backend == "c")  // tools/cmd_c.cpp: compile with the system C compiler and run
    return runCBackend(g, facts, in.shown,
                       {opts.slotData, a.json, a.trace, a.maxElements, a.maxSteps, a.timeout, a.guardZones,
                        a.checkAccesses});
  if (a.backend == "cuda")  // tools/cmd_c.cpp: nvcc and a GPU, or --emulate: the host C++ compiler
    return runCudaBackend(g, facts, in.shown,
                          {opts.slotData, a.json, a.trace, a.maxElements, a.maxSteps, a.timeout, false, false},
                          a.emulate, a.exactFloatReduce);
  opts.limits.maxElements = a.maxElements;
  opts.limits.maxSteps = a.maxSteps;
  opts.limits.maxSeconds = a.timeout;
  if (a.trace) opts.trace = &std::cerr;

  RunResult r = run(g, facts, opts);
  switch (r.status) {
    case RunResult::Status::Ok: printSlots(r, a.json); return kOk;
    case RunResult::Status::Trap: {
      std::string msg = r.message.rfind("trap", 0) == 0 ? r.message : "trap: " + r.message;
      std::cerr << in.shown << ':' << r.loc.line << ':' << r.loc.col << ": error: " << msg << '\n';
      return kInvalid;
    }
    case RunResult::Status::UsageError: usageError(r.message); return kUsage;
  }
  return kInvalid;
}

// ---- cairn fmt / dot / json ----------------------------------------------------------

struct FmtArgs {
  std::string file;
  bool inPlace = false, check = false;
};

int cmdFmt(const FmtArgs &a) {
  Input in;
  if (!readInput(a.file, in)) return kUsage;
  if (a.inPlace && (in.path == "-" || in.json)) {
    usageError(in.path == "-" ? "--in-place needs a file, not standard input" : "--in-place does not rewrite a .json file");
    return kUsage;
  }
  std::string out;
  Diags d;
  if (!in.json && looksLikeModule(in.text)) {  // a module prints module by module
    Module m;
    if (!parseModule(in.text, m, d)) {
      report(d, in);
      return kInvalid;
    }
    out = printModule(m);
  } else {
    Graph g;
    if (!loadGraph(in, g, d)) {
      report(d, in);
      return kInvalid;
    }
    out = printUir(g);
  }
  if (a.check) {
    if (out == in.text) return kOk;
    std::cerr << in.shown << ": not in canonical form (run `cairn fmt -i " << in.shown << "`)\n";
    return kInvalid;
  }
  if (!a.inPlace) return writeOutput("", out) ? kOk : kUsage;
  if (out == in.text) return kOk;  // leave the file (and its mtime) alone
  // Write a sibling file, then rename it over the original: never a torn file.
  std::string tmp = in.path + ".cairn-fmt.tmp";
  if (!writeOutput(tmp, out)) return kUsage;
  std::error_code ec;
  std::filesystem::rename(tmp, in.path, ec);
  if (ec) {
    std::filesystem::remove(tmp, ec);
    usageError(in.path + ": cannot replace: " + ec.message());
    return kUsage;
  }
  return kOk;
}

struct ExportArgs {
  std::string file, out;
  std::string versions;  // dot: the buffer whose versions are coloured
  bool compact = false;
};

template <class Render>
int cmdExport(const ExportArgs &a, Render render) {
  Input in;
  if (!readInput(a.file, in)) return kUsage;
  Graph g;
  Diags d;
  if (!loadGraph(in, g, d)) {
    report(d, in);
    return kInvalid;
  }
  std::optional<std::string> text = render(g);  // nullopt: the render reported a usage error
  if (!text) return kUsage;
  return writeOutput(a.out, *text) ? kOk : kUsage;
}

// `cairn emit c`: read and validate here, write the C in tools/cmd_c.cpp.
int cmdEmitC(const EmitCArgs &a) {
  Input in;
  if (!readInput(a.file, in)) return kUsage;
  if (endsWith(in.path, ".cairn") || (!in.json && looksLikeModule(in.text))) {
    if (a.guardZones) {
      usageError("--guard-zones applies to flat .uir graphs (use --check-accesses for a module)");
      return kUsage;
    }
    std::string out;
    int rc = moduleEmitC(in.shown, in.text, endsWith(in.path, ".cairn"), a.checkAccesses, out);
    if (rc != 0) return rc;
    return writeOutput(a.out, out) ? kOk : kUsage;
  }
  Graph g;
  Diags d;
  Facts facts;
  if (!loadGraph(in, g, d) || !validate(g, facts, d)) {
    report(d, in);
    return kInvalid;
  }
  return emitCCommand(g, facts, in.shown, a);
}

// `cairn emit cuda`: flat graphs only; the CUDA in tools/cmd_c.cpp.
int cmdEmitCuda(const EmitCudaArgs &a) {
  Input in;
  if (!readInput(a.file, in)) return kUsage;
  if (endsWith(in.path, ".cairn") || (!in.json && looksLikeModule(in.text))) {
    usageError("emit cuda takes flat .uir graphs only (modules and CAIRN programs: use `cairn emit c`)");
    return kUsage;
  }
  Graph g;
  Diags d;
  Facts facts;
  if (!loadGraph(in, g, d) || !validate(g, facts, d)) {
    report(d, in);
    return kInvalid;
  }
  return emitCudaCommand(g, facts, in.shown, a);
}

// ---- the command line ------------------------------------------------------------------

const char *kExitCodes =
    "Exit status:\n"
    "  0  success\n"
    "  1  the program is invalid (parse error, oracle rule) or trapped at run time;\n"
    "     also `fmt --check` on a file that is not in canonical form\n"
    "  2  usage or I/O error (bad flag, missing or unreadable file, bad --slot,\n"
    "     a compiler that fails, --backend cuda with no CUDA device and no --emulate)\n"
    "  3  `run --backend c --guard-zones`: an access out of bounds (a bug in cairn)\n"
    "  70 an internal error, a bug in cairn, from any command: `cairn: internal error:\n"
    "     MESSAGE (at FILE:LINE)`; also a compiled program that crashed (--backend c, cuda)\n"
    "     or a CUDA error,\n"
    "     a lowered graph the oracle refuses, heap objects never released, and\n"
    "     `cairn: internal error: out of memory`\n"
    "  `cairn run FILE.cairn` (and a .uir module) exits with main's value instead;\n"
    "  101 a run-time trap\n"
    "Diagnostics go to stderr as FILE:LINE:COL: error: MESSAGE [rule] (and FILE:LINE:COL: note: ...),\n"
    "each followed by its source line and a caret line under the span (docs/uir.md, \"Diagnostics\").";

const char *kFileHelp =
    "the program: .uir text, or its JSON form when the name ends in .json; `-` reads standard input "
    "(JSON when it starts with `{`)";

}  // namespace

int cli(int argc, char **argv) {
  CLI::App app{"cairn: the .uir graph IR, its oracle and its interpreter, and the CAIRN front end."};
  app.require_subcommand(1);
  // Built when asked: allocatorInUse allocates to find out.
  app.set_version_flag("--version", [] { return "cairn 0.1\nallocator: " + allocatorInUse(); });
  app.footer(std::string("Run `cairn COMMAND --help` for a command's options.\n\n") + kExitCodes);

  OracleArgs oa;
  auto *oracle = app.add_subcommand("oracle", "Parse and validate a program; prints `ok: SUMMARY` when it is valid.");
  oracle->add_option("FILE", oa.file, kFileHelp)->required();
  oracle->add_flag("--json", oa.json,
                   "print {\"valid\": BOOL, \"diagnostics\": [{\"line\", \"col\", \"rule\", \"code\", \"message\", \"notes\": "
                   "[{\"line\", \"col\", \"message\"}]}]} on stdout (with end_line, end_col where a span's end is known)");
  oracle->footer(kExitCodes);

  RunArgs ra;
  auto *runCmd = app.add_subcommand("run", "Validate a program, then interpret it and print each slot's final contents; "
                                           "a CAIRN program (FILE.cairn) or a .uir module runs main and exits with its value.");
  runCmd->add_option("FILE", ra.file, kFileHelp)->required();
  runCmd->add_option("--slot", ra.slots,
                     "K=V,V,...: replace the initial data of the buffer bound to slot K (repeatable); the count "
                     "must match the buffer's size and each value must fit its dtype")
      ->allow_extra_args(false)
      ->type_name("K=V,...");
  runCmd->add_option("--backend", ra.backend, "interp (default); c: compile with the system C compiler (CC, default cc; CFLAGS, default -O2) and "
                     "run, printing the same (flat graphs, modules and CAIRN programs alike); cuda: flat graphs as CUDA, compiled with "
                     "nvcc (CUDACXX; NVCCFLAGS, default -O2 -arch=native) and run on the GPU, exit 2 \"no CUDA device\" without one")
      ->check(CLI::IsMember({"interp", "c", "cuda"}));
  runCmd->add_flag("--emulate", ra.emulate,
                   "with --backend cuda: compile the same CUDA with the host C++ compiler (CXX, default c++; CXXFLAGS, default "
                   "-O1) and run its kernels on the CPU (gpu/cuda_emu.h: it checks the emitted indexing and barriers, not a GPU)");
  runCmd->add_flag("--exact-float-reduce", ra.exactFloatReduce, std::string("with --backend cuda: ") + kExactFloatReduceHelp);
  runCmd->add_flag("--json", ra.json,
                   "print {\"slots\": {\"K\": [V, ...]}}: integers exact, floats shortest round-trip, bool as 0/1; "
                   "NaN and infinities as the strings \"nan\", \"inf\", \"-inf\"");
  runCmd->add_flag("--trace", ra.trace, "print each executed step and the buffer version it creates, on stderr");
  runCmd->add_option("--max-elements", ra.maxElements, "trap when all buffers together exceed N elements")
      ->capture_default_str();
  runCmd->add_option("--max-steps", ra.maxSteps, "trap after N executed steps (0: no limit)")->capture_default_str();
  runCmd->add_option("--timeout", ra.timeout, "trap after S seconds of wall time (0: no limit)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  runCmd->add_flag("--guard-zones", ra.guardZones, std::string("with --backend c: ") + kGuardZonesHelp);
  runCmd->add_flag("--check-accesses", ra.checkAccesses, std::string("with --backend c: ") + kCheckAccessesHelp);
  runCmd->footer(std::string("Output: one line per slot, in slot order: `slot 0 = [5 11 18]`.\n"
                             "A trap prints FILE:LINE:COL: error: trap: MESSAGE on stderr and exits 1.\n"
                             "--backend c: 3 when --guard-zones caught an access out of bounds; 70 (internal error)\n"
                             "when the compiled program crashed (rerun with --check-accesses or --guard-zones).\n"
                             "FILE.cairn (docs/cairn.md): checks, lowers, validates and runs it; exits with main's value,\n"
                             "101 on a trap (at the CAIRN line), 1 on a check error, 70 on an internal error.\n\n") +
                 kExitCodes);

  FmtArgs fa;
  auto *fmt = app.add_subcommand("fmt", "Print a program in canonical form (comments kept, loop bodies indented).");
  fmt->add_option("FILE", fa.file, kFileHelp)->required();
  auto *inPlace = fmt->add_flag("-i,--in-place", fa.inPlace, "rewrite FILE instead of printing");
  fmt->add_flag("--check", fa.check, "print nothing; exit 1 when FILE is not in canonical form")->excludes(inPlace);
  fmt->footer(kExitCodes);

  ExportArgs da;
  auto *dot = app.add_subcommand("dot", "Print the graph in Graphviz DOT (render with `dot -Tsvg`).");
  dot->add_option("FILE", da.file, kFileHelp)->required();
  dot->add_option("-o,--output", da.out, "write to this file instead of stdout");
  dot->add_option("--versions", da.versions,
                  "colour each version of this buffer (its name, e.g. %b) in its own colour: its views, the store "
                  "that makes it and the edges into its `after`")
      ->type_name("BUFFER");
  dot->footer(std::string("Data edges are solid; the edge from an event to the `after` that sequences it is bold\n"
                          "red; the versions, views and stores of one buffer share its colour; loop bodies are\n"
                          "clusters.\n\n") +
              kExitCodes);

  ExportArgs ja;
  auto *jsonCmd = app.add_subcommand("json", "Print the graph's JSON form (schema: docs/uir.md, \"JSON form\").");
  jsonCmd->add_option("FILE", ja.file, kFileHelp)->required();
  jsonCmd->add_option("-o,--output", ja.out, "write to this file instead of stdout");
  jsonCmd->add_flag("--compact", ja.compact, "one line instead of indented");
  jsonCmd->footer(kExitCodes);

  std::string cairnFile, lowerOut;
  bool checkJson = false;
  auto *check = app.add_subcommand("check", "Parse and check a CAIRN program (and the std modules it imports).");
  check->add_option("FILE", cairnFile, "the .cairn file (`-`: standard input)")->required();
  check->add_flag("--json", checkJson, "print {\"valid\": BOOL, \"diagnostics\": [...]} on stdout");
  std::string receiptOut, docOut;
  check->add_option("--receipt", receiptOut,
                    "also write the build receipt (JSON: the source's sha256; per function its sorted effects,\n"
                    "the functions it calls and its number of unsafe blocks) to this file");
  auto *docCmd = app.add_subcommand("doc", "Print, as Markdown, each function of a CAIRN file with its effect row.");
  docCmd->add_option("FILE", cairnFile, "the .cairn file (`-`: standard input)")->required();
  docCmd->add_option("-o,--output", docOut, "write to this file instead of stdout");
  docCmd->footer(std::string("Each function: `fn fill(n:usize, out:rw<u8>[n], value:u8)  // effects: write:out`.\n"
                             "The file is checked first; a check error prints its diagnostics and exits 1.\n\n") +
                 kExitCodes);
  check->footer(std::string("Diagnostics: FILE:LINE:COL: error: MESSAGE [E-CODE], then the source line and a caret\n"
                            "line; `cairn rules E-CODE` explains a code.\n\n") +
                kExitCodes);
  auto *lowerCmd = app.add_subcommand("lower", "Check a CAIRN program and print its lowered graph (a .uir module).");
  lowerCmd->add_option("FILE", cairnFile, "the .cairn file (`-`: standard input)")->required();
  lowerCmd->add_option("-o,--output", lowerOut, "write to this file instead of stdout");
  lowerCmd->footer(std::string("The output is accepted by `cairn oracle` and `cairn run` (which runs its main).\n"
                               "Exit 70: the oracle refused the lowered graph (a bug in the lowering).\n\n") +
                   kExitCodes);

  GradeCli gradeCli(app);  // `grade` and `lesson check`
  EmitCArgs ea;
  CLI::App *emitC = addEmitCommand(app, ea);  // `emit c` (tools/cmd_c.cpp)
  EmitCudaArgs eca;
  CLI::App *emitCuda = addEmitCudaCommand(*emitC->get_parent(), eca);  // `emit cuda`
  FuzzArgs fz;
  CLI::App *fuzz = addFuzzCommand(app, fz);  // `fuzz` (tools/cmd_fuzz.cpp)
  RulesArgs rl;
  CLI::App *rulesCmd = addRulesCommand(app, rl);  // `rules` (tools/cmd_rules.cpp)

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError &e) {
    int rc = app.exit(e);  // prints help/version (rc 0) or the error
    return rc == 0 ? kOk : kUsage;
  }

  if (*oracle) return cmdOracle(oa);
  if (*check || *lowerCmd || *docCmd) {
    Input in;
    if (!readInput(cairnFile, in)) return kUsage;
    if (*check) return cairnCheck(in.shown, in.text, checkJson, receiptOut);
    if (*docCmd) {
      std::string out;
      int rc = cairnDoc(in.shown, in.text, out);
      if (rc != 0) return rc;
      return writeOutput(docOut, out) ? kOk : kUsage;
    }
    std::string out;
    int rc = cairnLower(in.shown, in.text, out);
    if (rc != 0) return rc;
    return writeOutput(lowerOut, out) ? kOk : kUsage;
  }
  if (*runCmd) return cmdRun(ra);
  if (*emitC) return cmdEmitC(ea);
  if (*emitCuda) return cmdEmitCuda(eca);
  if (*fuzz) return fuzzCommand(fz);
  if (*rulesCmd) return rulesCommand(rl);
  if (*fmt) return cmdFmt(fa);
  if (gradeCli.chosen()) return gradeCli.run();
  if (*dot)
    return cmdExport(da, [&](const Graph &g) -> std::optional<std::string> {
      DotOptions o;
      o.versionsOf = da.versions;
      if (!o.versionsOf.empty() && !findBuffer(g, o.versionsOf).valid()) {
        usageError("--versions " + da.versions + ": the program has no buffer named %" +
                   (da.versions[0] == '%' ? da.versions.substr(1) : da.versions));
        return std::nullopt;
      }
      return printDot(g, o);
    });
  if (*jsonCmd)
    return cmdExport(ja, [&](const Graph &g) { return graphToJson(g).dump(ja.compact ? -1 : 2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n"; });
  return kUsage;
}

}  // namespace cairn
