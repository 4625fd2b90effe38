// Batch grading over a thread pool (see batch.hpp).
//
// Workers take the next submission from an atomic counter, grade it (each
// grade is isolated: gradeSource() catches everything and every test has its own
// limits), write its result file and keep one short CSV row; rows are
// written in input order when all workers are done. The exercise is shared
// read-only; nothing else is shared but the counter and the row slots.
#include "grade/batch.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <set>
#include <thread>

#include <nlohmann/json.hpp>

#include "grade/grader.hpp"
#include "grade/report.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace cairn::grade {

namespace {

struct Item {
  std::string id;    // file-name safe, unique
  std::string path;  // a file to read, or
  std::string text;  // the source itself (JSONL "source")
  bool json = false;
  std::string broken;  // a malformed JSONL line: why
};

struct Row {
  std::string id, status, message;
  double score = 0, maxScore = 0, seconds = 0;
  size_t passed = 0, failed = 0;
  std::vector<std::string> tests;  // passed / failed / not-run
  GradeResult::Status st = GradeResult::Status::Error;
  bool allPassed = false;
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

bool listItems(const BatchOptions &o, std::vector<Item> &items, std::string &why) {
  std::error_code ec;
  if (fs::is_directory(o.input, ec)) {
    std::vector<fs::path> files;
    fs::recursive_directory_iterator it(o.input, fs::directory_options::skip_permission_denied, ec), end;
    if (ec) {
      why = o.input + ": cannot list: " + ec.message();
      return false;
    }
    for (; it != end; it.increment(ec)) {
      if (ec) break;
      if (it->is_regular_file(ec) && (it->path().extension() == ".uir" || it->path().extension() == ".json"))
        files.push_back(it->path());
    }
    std::sort(files.begin(), files.end());
    for (const fs::path &f : files) {
      fs::path rel = f.lexically_relative(o.input);
      rel.replace_extension();
      std::string id = rel.generic_string();
      for (size_t p; (p = id.find('/')) != std::string::npos;) id.replace(p, 1, "__");
      items.push_back(Item{id, f.string(), "", f.extension() == ".json", ""});
    }
    return true;
  }
  std::ifstream in(o.input, std::ios::binary);
  if (!in) {
    why = o.input + ": no such folder or file";
    return false;
  }
  fs::path base = fs::path(o.input).parent_path();
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
        fs::path p = j["file"].get<std::string>();
        it.path = (p.is_absolute() ? p : base / p).string();
        it.json = endsWith(it.path, ".json");
      } else {
        it.broken = "line " + std::to_string(lineNo) + " of " + o.input + " has neither \"source\" nor \"file\"";
      }
    }
    items.push_back(std::move(it));
  }
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
  return row;
}

Row gradeItem(const Exercise &ex, const Limits &lim, const Item &it, const BatchOptions &o, const fs::path &results) {
  GradeResult r;
  if (!it.broken.empty()) {
    r = gradeSource(ex, it.id, "", false, lim);
    r.status = GradeResult::Status::Error;
    r.message = it.broken;
    r.score = 0;
    for (TestResult &t : r.tests) {
      t.passed = t.ran = false;
      t.score = 0;
      t.failure = "not run: " + it.broken;
    }
  } else if (!it.path.empty()) {
    r = gradeFile(ex, it.path, lim);
  } else {
    r = gradeSource(ex, it.id, it.text, it.json, lim);
  }
  json j = o.gradescope ? renderGradescope(r) : renderJson(r);
  if (o.jsonl) {
    json line = {{"id", it.id}, {"result", std::move(j)}};
    Row row = rowOf(it.id, r);
    row.line = line.dump(-1, ' ', false, json::error_handler_t::replace);
    return row;
  }
  std::string text = j.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
  bool written;
  {
    // One writer at a time: creating files in parallel is slower on the
    // file systems we measured (the kernel serializes them anyway).
    static std::mutex m;
    std::lock_guard<std::mutex> lock(m);
    std::ofstream f(results / (it.id + ".json"), std::ios::binary | std::ios::trunc);
    f << text;
    f.close();
    written = static_cast<bool>(f);
  }
  Row row = rowOf(it.id, r);
  if (!written) row.message = "could not write the result file; " + row.message;
  return row;
}

}  // namespace

bool gradeBatch(const Exercise &ex, const Limits &limits, const BatchOptions &opts, BatchSummary &sum, std::string &why) {
  auto t0 = std::chrono::steady_clock::now();
  std::vector<Item> items;
  if (!listItems(opts, items, why)) return false;
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
        rows[i] = gradeItem(ex, limits, items[i], opts, results);
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
  sum.csv = (out / "summary.csv").string();
  std::ofstream csv(sum.csv, std::ios::binary | std::ios::trunc);
  csv << "id,status,score,max_score,passed,failed,seconds,message";
  for (const Test &t : ex.tests) csv << ',' << csvCell("test:" + t.name);
  csv << '\n';
  for (const Row &r : rows) {
    csv << csvCell(r.id) << ',' << r.status << ',' << pointsText(r.score) << ',' << pointsText(r.maxScore) << ','
        << r.passed << ',' << r.failed << ',' << r.seconds << ',' << csvCell(r.message);
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
