// Joining the output folders of batch shards (`cairn grade --merge`; see
// batch.hpp).
//
// A course too large for one machine is graded in shards, each a batch run
// over its own part of the input. Each shard's batch.json names its
// exercise, its result form (result files or results.jsonl, ours or
// Gradescope's) and its ids; merging checks that all shards agree on the
// first two and that no id appears twice, then writes the rows of every
// summary.csv and every result, in the order the shards are given. Shards
// given in input order merge to what one unsharded run writes (but for the
// seconds each grade took). The manifests, columns and ids are all checked
// before anything is written.
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "grade/batch.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace cairn::grade {

namespace {

struct Shard {
  fs::path dir;
  json manifest;
  std::string header;             // summary.csv's first line
  std::vector<std::string> rows;  // its other lines
};

bool slurp(const fs::path &p, std::string &out) {
  std::ifstream f(p, std::ios::binary);
  if (!f) return false;
  std::stringstream ss;
  ss << f.rdbuf();
  out = ss.str();
  return static_cast<bool>(f) || f.eof();
}

std::vector<std::string> lines(const std::string &s) {
  std::vector<std::string> out;
  std::istringstream is(s);
  for (std::string l; std::getline(is, l);) out.push_back(l);
  return out;
}

bool readShard(const std::string &dir, Shard &s, std::string &why) {
  s.dir = dir;
  std::string text;
  if (!slurp(s.dir / "batch.json", text)) {
    why = dir + ": no batch.json (is it the output folder of `cairn grade --batch`?)";
    return false;
  }
  s.manifest = json::parse(text, nullptr, false);
  const json &m = s.manifest;
  if (!m.is_object() || m.value("format", "") != "cairn-batch" || !m.contains("ids") || !m["ids"].is_array() ||
      !m.contains("exercise") || !m["exercise"].is_string() || !m.contains("results") || !m["results"].is_string()) {
    why = (s.dir / "batch.json").string() + ": not a cairn-batch manifest";
    return false;
  }
  if (!slurp(s.dir / "summary.csv", text)) {
    why = dir + ": no summary.csv";
    return false;
  }
  s.rows = lines(text);
  if (s.rows.empty()) {
    why = (s.dir / "summary.csv").string() + ": empty";
    return false;
  }
  s.header = s.rows.front();
  s.rows.erase(s.rows.begin());
  if (s.rows.size() != m["ids"].size()) {
    why = dir + ": summary.csv has " + std::to_string(s.rows.size()) + " rows but batch.json lists " +
          std::to_string(m["ids"].size()) + " ids";
    return false;
  }
  return true;
}

}  // namespace

bool mergeBatches(const std::vector<std::string> &dirs, const std::string &outDir, size_t &count, std::string &why) {
  std::vector<Shard> shards(dirs.size());
  for (size_t k = 0; k < dirs.size(); ++k)
    if (!readShard(dirs[k], shards[k], why)) return false;
  if (shards.empty()) {
    why = "--merge needs at least one shard folder";
    return false;
  }
  const json &first = shards[0].manifest;
  std::set<std::string> ids;
  for (const Shard &s : shards) {
    const json &m = s.manifest;
    if (m["exercise"] != first["exercise"]) {
      why = "cannot merge shards of different exercises: " + dirs[0] + " grades " + first["exercise"].get<std::string>() +
            ", " + s.dir.string() + " grades " + m["exercise"].get<std::string>();
      return false;
    }
    if (m["results"] != first["results"] || m.value("gradescope", false) != first.value("gradescope", false)) {
      why = "cannot merge shards written in different forms (--jsonl, --gradescope): " + dirs[0] + " and " + s.dir.string();
      return false;
    }
    if (s.header != shards[0].header) {
      why = "cannot merge: the summary.csv columns of " + s.dir.string() + " differ from those of " + dirs[0];
      return false;
    }
    for (const json &id : m["ids"]) {
      std::string i = id.is_string() ? id.get<std::string>() : id.dump();
      if (!ids.insert(i).second) {
        why = "cannot merge: the id " + i + " appears twice (again in " + s.dir.string() + "); give each submission one shard";
        return false;
      }
    }
  }
  bool jsonl = first["results"] == "jsonl";
  fs::path out = outDir;
  std::error_code ec;
  fs::create_directories(jsonl ? out : out / "results", ec);
  if (ec) {
    why = outDir + ": cannot create: " + ec.message();
    return false;
  }
  json merged = first;
  merged["ids"] = json::array();
  std::ofstream csv(out / "summary.csv", std::ios::binary | std::ios::trunc);
  csv << shards[0].header << '\n';
  std::ofstream rl;
  if (jsonl) rl.open(out / "results.jsonl", std::ios::binary | std::ios::trunc);
  count = 0;
  for (const Shard &s : shards) {
    for (const std::string &r : s.rows) csv << r << '\n';
    for (const json &id : s.manifest["ids"]) merged["ids"].push_back(id);
    count += s.rows.size();
    if (jsonl) {
      std::string text;
      if (!slurp(s.dir / "results.jsonl", text)) {
        why = s.dir.string() + ": no results.jsonl";
        return false;
      }
      rl << text;
      continue;
    }
    for (const json &id : s.manifest["ids"]) {
      std::string name = (id.is_string() ? id.get<std::string>() : id.dump()) + ".json";
      fs::copy_file(s.dir / "results" / name, out / "results" / name, fs::copy_options::overwrite_existing, ec);
      if (ec) {
        why = (s.dir / "results" / name).string() + ": cannot copy: " + ec.message();
        return false;
      }
    }
  }
  std::ofstream mf(out / "batch.json", std::ios::binary | std::ios::trunc);
  mf << merged.dump(1) << '\n';
  csv.close();
  mf.close();
  if (jsonl) rl.close();
  if (!csv || !mf || (jsonl && !rl)) {
    why = outDir + ": cannot write";
    return false;
  }
  return true;
}

}  // namespace cairn::grade
