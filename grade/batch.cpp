// Batch grading over a thread pool (see batch.hpp).
//
// Workers take the next submission from an atomic counter, grade it (each
// grade is isolated: gradeSource() catches everything and every test has its own
// limits), write its result file and keep one short CSV row; rows are
// written in input order when all workers are done. The exercise is shared
// read-only; nothing else is shared but the counter and the row slots.
//
// Confinement: a submission is a regular file inside the batch root (the
// folder, or the JSONL file's folder), reached by a relative path without
// `..`. Each path component is opened with openat(O_NOFOLLOW) from the
// root's descriptor and the file checked with fstat after opening, so no
// symbolic link is followed, even one put there after the listing, and no
// FIFO, device or socket is read (O_NONBLOCK: opening a FIFO never waits).
// Anything else is a `rejected` row saying why.
#include "grade/batch.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <set>
#include <thread>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "grade/grader.hpp"
#include "grade/report.hpp"
#include "ir/printer.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace cairn::grade {

namespace {

struct Item {
  std::string id;    // file-name safe, unique
  std::string path;  // a file to read (relative to the root; shown as root/path), or
  std::string text;  // the source itself (JSONL "source")
  bool json = false;
  std::string broken;    // a malformed JSONL line: why
  std::string rejected;  // a file batch mode does not read: why
};

struct Row {
  std::string id, status, message;
  double score = 0, maxScore = 0, seconds = 0;
  size_t passed = 0, failed = 0;
  std::vector<std::string> tests;  // passed / failed / not-run
  GradeResult::Status st = GradeResult::Status::Error;
  bool allPassed = false;
  std::string fingerprint;
  std::string line;  // --jsonl: the result line
};

std::string safeId(std::string s) {
  for (char &c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '_')) c = '_';
  if (s.empty() || s[0] == '.') s = "_" + s;
  if (s.size() > 120) s = s.substr(0, 120);
  return s;
}

bool endsWith(const std::string &s, std::string_view x) {
  return s.size() >= x.size() && s.compare(s.size() - x.size(), x.size(), x) == 0;
}

const char *kOnlyRegular = "batch mode reads only regular files inside the batch folder";

// What a non-regular file is, in words ("" for a regular file).
std::string kindOf(fs::file_type t) {
  switch (t) {
    case fs::file_type::regular: return "";
    case fs::file_type::symlink: return "a symbolic link";
    case fs::file_type::directory: return "a folder";
    case fs::file_type::fifo: return "a FIFO";
    case fs::file_type::socket: return "a socket";
    case fs::file_type::block: case fs::file_type::character: return "a device";
    default: return "not a regular file";
  }
}

std::string kindOfMode(mode_t m) {
  if (S_ISREG(m)) return "";
  if (S_ISLNK(m)) return "a symbolic link";
  if (S_ISDIR(m)) return "a folder";
  if (S_ISFIFO(m)) return "a FIFO";
  if (S_ISSOCK(m)) return "a socket";
  if (S_ISBLK(m) || S_ISCHR(m)) return "a device";
  return "not a regular file";
}

std::string rejectedAs(const std::string &shown, const std::string &kind) {
  return shown + " is " + kind + "; " + kOnlyRegular;
}

// A JSONL "file": relative, no `..`, no empty or `.`-only tricks; "" when fine.
std::string badRelative(const std::string &f) {
  fs::path p = f;
  if (f.empty()) return "an empty \"file\"";
  if (p.is_absolute() || f[0] == '/') return "\"" + f.substr(0, 200) + "\" is an absolute path; " + kOnlyRegular + " (give a path relative to the JSONL file's folder)";
  for (const fs::path &c : p)
    if (c == "..") return "\"" + f.substr(0, 200) + "\" has a `..` component; " + kOnlyRegular;
  return "";
}

bool listItems(const BatchOptions &o, std::vector<Item> &items, std::string &root, std::string &why) {
  std::error_code ec;
  if (fs::is_directory(o.input, ec)) {
    root = o.input;
    std::vector<std::pair<fs::path, std::string>> files;  // path, why rejected
    fs::recursive_directory_iterator it(o.input, fs::directory_options::skip_permission_denied, ec), end;
    if (ec) {
      why = o.input + ": cannot list: " + ec.message();
      return false;
    }
    for (; it != end; it.increment(ec)) {
      if (ec) break;
      const fs::path &f = it->path();
      if (f.extension() != ".uir" && f.extension() != ".json") continue;
      // symlink_status: the entry itself, never what a link points to.
      std::string kind = kindOf(it->symlink_status(ec).type());
      if (kind == "a folder") continue;
      files.emplace_back(f, kind);
    }
    std::sort(files.begin(), files.end());
    for (const auto &[f, kind] : files) {
      fs::path rel = f.lexically_relative(o.input), noExt = rel;
      noExt.replace_extension();
      std::string id = noExt.generic_string();
      for (size_t p; (p = id.find('/')) != std::string::npos;) id.replace(p, 1, "__");
      Item item{id, rel.generic_string(), "", f.extension() == ".json", "", ""};
      if (!kind.empty()) item.rejected = rejectedAs(rel.generic_string(), kind);
      items.push_back(std::move(item));
    }
    return true;
  }
  std::ifstream in(o.input, std::ios::binary);
  if (!in) {
    why = o.input + ": no such folder or file";
    return false;
  }
  fs::path base = fs::path(o.input).parent_path();
  root = base.empty() ? "." : base.string();
  std::string line;
  size_t lineNo = 0;
  while (std::getline(in, line)) {
    ++lineNo;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    Item it;
    it.id = "line-" + std::to_string(lineNo);
    json j = json::parse(line, nullptr, false);
    if (j.is_discarded() || !j.is_object()) {
      it.broken = "line " + std::to_string(lineNo) + " of " + o.input + " is not a JSON object";
    } else {
      if (j.contains("id") && (j["id"].is_string() || j["id"].is_number()))
        it.id = j["id"].is_string() ? j["id"].get<std::string>() : j["id"].dump();
      if (j.contains("source") && j["source"].is_string()) {
        it.text = j["source"].get<std::string>();
        it.json = it.text.find_first_not_of(" \t\r\n") != std::string::npos && it.text[it.text.find_first_not_of(" \t\r\n")] == '{';
      } else if (j.contains("file") && j["file"].is_string()) {
        std::string f = j["file"].get<std::string>();
        it.rejected = badRelative(f);
        it.path = fs::path(f).lexically_normal().generic_string();
        it.json = endsWith(it.path, ".json");
      } else {
        it.broken = "line " + std::to_string(lineNo) + " of " + o.input + " has neither \"source\" nor \"file\"";
      }
    }
    items.push_back(std::move(it));
  }
  return true;
}

// Opens root/rel, component by component with O_NOFOLLOW, and reads it if
// it is a regular file of at most `limit` bytes; false with `why` otherwise.
bool readConfined(const std::string &root, const std::string &rel, uint64_t limit, std::string &out, std::string &why) {
  std::string shown = rel;
  int dir = ::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0) {
    why = root + ": cannot open the batch folder: " + std::strerror(errno);
    return false;
  }
  std::vector<std::string> parts;
  for (const fs::path &c : fs::path(rel))
    if (!c.empty() && c != ".") parts.push_back(c.string());
  if (parts.empty()) {
    ::close(dir);
    why = shown + ": not a file";
    return false;
  }
  for (size_t k = 0; k < parts.size(); ++k) {
    bool last = k + 1 == parts.size();
    int fd = ::openat(dir, parts[k].c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | (last ? 0 : O_DIRECTORY));
    int err = errno;
    if (fd < 0) {
      struct stat st;
      bool isLink = ::fstatat(dir, parts[k].c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode);
      ::close(dir);
      if (isLink || err == ELOOP) why = rejectedAs(last ? shown : shown + " (through " + parts[k] + ")", "a symbolic link");
      else if (err == ENOTDIR) why = rejectedAs(shown + " (through " + parts[k] + ")", "not a regular file");
      else why = shown + ": cannot open: " + std::strerror(err);
      return false;
    }
    ::close(dir);
    dir = fd;
  }
  int fd = dir;
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    why = rejectedAs(shown, kindOfMode(st.st_mode));
    return false;
  }
  if (static_cast<uint64_t>(st.st_size) > limit) {
    ::close(fd);
    why = shown + ": larger than " + std::to_string(limit) + " bytes";
    return false;
  }
  out.clear();
  char buf[1 << 16];
  for (;;) {
    ssize_t got = ::read(fd, buf, sizeof buf);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      why = shown + ": cannot read: " + std::strerror(errno);
      ::close(fd);
      return false;
    }
    if (got == 0) break;
    if (out.size() + static_cast<size_t>(got) > limit) {
      why = shown + ": larger than " + std::to_string(limit) + " bytes";
      ::close(fd);
      return false;
    }
    out.append(buf, static_cast<size_t>(got));
  }
  ::close(fd);
  return true;
}

void uniqueIds(std::vector<Item> &items) {
  std::set<std::string> seen;
  for (Item &it : items) {
    std::string id = safeId(it.id), base = id;
    for (int k = 2; !seen.insert(id).second; ++k) id = base + "-" + std::to_string(k);
    it.id = id;
  }
}

std::string csvCell(const std::string &s) {
  bool quote = s.find_first_of(",\"\n\r") != std::string::npos;
  if (!quote) return s;
  std::string o = "\"";
  for (char c : s) {
    if (c == '"') o += '"';
    o += c == '\n' || c == '\r' ? ' ' : c;
  }
  return o + "\"";
}

Row rowOf(const std::string &id, const GradeResult &r) {
  Row row;
  row.id = id;
  row.st = r.status;
  row.status = statusName(r.status);
  row.score = r.score;
  row.maxScore = r.maxScore;
  row.seconds = r.seconds;
  row.passed = r.passedCount();
  row.failed = r.tests.size() - row.passed;
  row.allPassed = r.allPassed();
  for (const TestResult &t : r.tests) row.tests.push_back(t.passed ? "passed" : t.ran ? "failed" : "not-run");
  if (!r.message.empty()) row.message = r.message;
  else if (!r.diags.list().empty()) {
    const Diagnostic &d = r.diags.list()[0];
    row.message = "line " + std::to_string(d.loc.line) + ": " + d.message + " [" + d.rule + "]";
  } else {
    for (const TestResult &t : r.tests)
      if (!t.passed) {
        row.message = t.name + ": " + t.failure;
        break;
      }
  }
  if (row.message.size() > 200) row.message = row.message.substr(0, 197) + "...";  // bytes, shown escaped by the CSV
  return row;
}

// A result for a submission that is not read at all.
GradeResult refused(const Exercise &ex, const std::string &shown, const Limits &lim, const std::string &why,
                    GradeResult::Status st) {
  GradeResult r = gradeSource(ex, shown, "", false, lim);
  r.status = st;
  r.message = why;
  r.score = 0;
  for (TestResult &t : r.tests) {
    t.passed = t.ran = false;
    t.score = 0;
    t.failure = "not run: " + why;
  }
  return r;
}

Row gradeItem(const Exercise &ex, const Limits &lim, const Item &it, const BatchOptions &o, const std::string &root,
              const fs::path &results) {
  GradeResult r;
  Graph g;
  std::string shown = it.path.empty() ? it.id : (fs::path(root) / it.path).string();
  std::string text, why;
  if (!it.broken.empty()) {
    r = refused(ex, it.id, lim, it.broken, GradeResult::Status::Error);
  } else if (!it.rejected.empty()) {
    r = refused(ex, shown, lim, it.rejected, GradeResult::Status::Rejected);
  } else if (!it.path.empty() && !readConfined(root, it.path, lim.maxBytes, text, why)) {
    r = refused(ex, shown, lim, why, GradeResult::Status::Rejected);
  } else {
    if (it.path.empty()) text = it.text;
    if (text.find('\0') != std::string::npos)
      r = refused(ex, shown, lim, (it.path.empty() ? it.id : it.path) + " holds NUL bytes: a binary file, not .uir text",
                  GradeResult::Status::Rejected);
    else
      r = gradeSource(ex, shown, text, it.json, lim, &g);
  }
  bool read = r.status == GradeResult::Status::Graded ||
              (r.status == GradeResult::Status::Invalid &&
               std::none_of(r.diags.list().begin(), r.diags.list().end(), [](const Diagnostic &d) {
                 return d.rule == "syntax" || d.rule == "json" || d.rule == "name";
               }));
  json j = o.gradescope ? renderGradescope(r) : renderJson(r);
  Row row = rowOf(it.id, r);
  if (read && g.size() > 0) row.fingerprint = fingerprint(g);
  if (o.jsonl) {
    json line = {{"id", it.id}, {"result", std::move(j)}};
    row.line = line.dump(-1, ' ', false, json::error_handler_t::replace);
    return row;
  }
  std::string out = j.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
  bool written;
  {
    // One writer at a time: creating files in parallel is slower on the
    // file systems we measured (the kernel serializes them anyway).
    static std::mutex m;
    std::lock_guard<std::mutex> lock(m);
    std::ofstream f(results / (it.id + ".json"), std::ios::binary | std::ios::trunc);
    f << out;
    f.close();
    written = static_cast<bool>(f);
  }
  if (!written) row.message = "could not write the result file; " + row.message;
  return row;
}

}  // namespace

std::string fingerprint(Graph g) {
  // Comments are not structure: clear them, print canonically, then name
  // every node by the order of its first mention.
  for (uint32_t i = 0; i < g.size(); ++i)
    if (g.commentsOf(NodeId{i})) g.comments(NodeId{i}) = {};
  g.trailingComments().clear();
  std::string text = printUir(g), erased;
  std::unordered_map<std::string, size_t> names;
  for (size_t i = 0; i < text.size();) {
    if (text[i] != '%') {
      erased += text[i++];
      continue;
    }
    size_t k = i + 1;
    while (k < text.size() && (std::isalnum(static_cast<unsigned char>(text[k])) || text[k] == '_' || text[k] == '.')) ++k;
    auto [at, fresh] = names.emplace(text.substr(i + 1, k - i - 1), names.size());
    (void)fresh;
    erased += "%" + std::to_string(at->second);
    i = k;
  }
  uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a, 64 bits
  for (unsigned char c : erased) h = (h ^ c) * 0x100000001b3ull;
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

bool gradeBatch(const Exercise &ex, const Limits &limits, const BatchOptions &opts, BatchSummary &sum, std::string &why) {
  auto t0 = std::chrono::steady_clock::now();
  std::vector<Item> items;
  std::string root;
  if (!listItems(opts, items, root, why)) return false;
  uniqueIds(items);
  fs::path out = opts.outDir, results = out / "results";
  std::error_code ec;
  fs::create_directories(opts.jsonl ? out : results, ec);
  if (ec) {
    why = results.string() + ": cannot create: " + ec.message();
    return false;
  }
  std::vector<Row> rows(items.size());
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (;;) {
      size_t i = next.fetch_add(1);
      if (i >= items.size()) return;
      try {
        rows[i] = gradeItem(ex, limits, items[i], opts, root, results);
      } catch (...) {
        Row r;
        r.id = items[i].id;
        r.status = "error";
        r.message = "internal error while grading";
        rows[i] = r;
      }
    }
  };
  unsigned n = opts.jobs ? opts.jobs : std::max(1u, std::thread::hardware_concurrency());
  n = static_cast<unsigned>(std::min<size_t>(n, std::max<size_t>(items.size(), 1)));
  std::vector<std::thread> pool;
  for (unsigned k = 1; k < n; ++k) {
    try {
      pool.emplace_back(worker);
    } catch (const std::system_error &) {
      break;  // fewer threads than asked: the rest is done by those we have
    }
  }
  sum.threads = static_cast<unsigned>(pool.size()) + 1;
  worker();
  for (std::thread &t : pool) t.join();

  if (opts.jsonl) {
    std::ofstream rl(out / "results.jsonl", std::ios::binary | std::ios::trunc);
    for (const Row &r : rows) rl << r.line << '\n';
    rl.close();
    if (!rl) {
      why = (out / "results.jsonl").string() + ": cannot write";
      return false;
    }
  }
  // What --merge needs to join shards: the exercise, the result form, the ids.
  {
    json m = {{"format", "cairn-batch"}, {"version", 1}, {"exercise", ex.id}, {"results", opts.jsonl ? "jsonl" : "files"},
              {"gradescope", opts.gradescope}, {"ids", json::array()}};
    for (const Row &r : rows) m["ids"].push_back(r.id);
    std::ofstream mf(out / "batch.json", std::ios::binary | std::ios::trunc);
    mf << m.dump(1) << '\n';
    mf.close();
    if (!mf) {
      why = (out / "batch.json").string() + ": cannot write";
      return false;
    }
  }
  sum.csv = (out / "summary.csv").string();
  std::ofstream csv(sum.csv, std::ios::binary | std::ios::trunc);
  csv << "id,status,score,max_score,passed,failed,seconds,message,fingerprint";
  for (const Test &t : ex.tests) csv << ',' << csvCell("test:" + t.name);
  csv << '\n';
  for (const Row &r : rows) {
    csv << csvCell(r.id) << ',' << r.status << ',' << pointsText(r.score) << ',' << pointsText(r.maxScore) << ','
        << r.passed << ',' << r.failed << ',' << r.seconds << ',' << csvCell(r.message) << ',' << r.fingerprint;
    for (size_t k = 0; k < ex.tests.size(); ++k) csv << ',' << (k < r.tests.size() ? r.tests[k] : "not-run");
    csv << '\n';
    ++sum.total;
    if (r.status == "graded") ++(r.allPassed ? sum.allPassed : sum.someFailed);
    else if (r.status == "invalid") ++sum.invalid;
    else if (r.status == "rejected") ++sum.rejected;
    else ++sum.errors;
  }
  csv.close();
  if (!csv) {
    why = sum.csv + ": cannot write";
    return false;
  }
  sum.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return true;
}

}  // namespace cairn::grade
