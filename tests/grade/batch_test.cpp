// Batch confinement, bounded feedback, feedback that does not mislead,
// --merge and structural fingerprints.
//
// Confinement: a hostile batch folder and JSONL file (a symbolic link to the
// exercise's reference, one to a file outside the root, `..` and absolute
// JSONL paths, a FIFO, a binary file) must give `rejected` rows with their
// reason, never a score and never the linked file's bytes. Bounds: 2,000
// loads or 1,000 syntax errors give bounded outputs with exact counts of
// what was cut. Merge: one batch graded whole and in two shards, merged,
// gives the same summary.csv and results (but for the seconds).
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "grade/batch.hpp"
#include "grade/grader.hpp"
#include "grade/report.hpp"
#include "test_support.hpp"
#include "ir/parser.hpp"
#include "schema_check.hpp"

namespace fs = std::filesystem;
using namespace cairn;
using namespace cairn::grade;
using nlohmann::json;
using namespace cairn::grade::testing;

namespace {




struct Dir {
  fs::path p;
  explicit Dir(const std::string &tag) : p(fs::temp_directory_path() / ("cairn-" + tag + "-" + std::to_string(::getpid()))) {
    fs::remove_all(p);
    fs::create_directories(p);
  }
  ~Dir() {
    std::error_code ec;
    fs::remove_all(p, ec);
  }
  void write(const std::string &rel, const std::string &text) const {
    fs::create_directories((p / rel).parent_path());
    std::ofstream(p / rel, std::ios::binary) << text;
  }
};

// summary.csv's rows by id: the cells, with the seconds column blanked.
std::map<std::string, std::vector<std::string>> csvRows(const fs::path &csv, std::vector<std::string> *order = nullptr) {
  std::map<std::string, std::vector<std::string>> rows;
  std::ifstream f(csv);
  std::string line;
  std::getline(f, line);
  while (std::getline(f, line)) {
    std::vector<std::string> cells;
    std::string cell;
    bool q = false;
    for (char c : line) {
      if (c == '"') q = !q;
      else if (c == ',' && !q) {
        cells.push_back(cell);
        cell.clear();
      } else cell += c;
    }
    cells.push_back(cell);
    cells[6] = "";  // seconds
    if (order) order->push_back(cells[0]);
    rows[cells[0]] = cells;
  }
  return rows;
}

BatchSummary runBatch(const fs::path &in, const fs::path &out, bool jsonl = false) {
  BatchOptions o{in.string(), out.string(), 2, false, jsonl};
  BatchSummary sum;
  std::string why;
  EXPECT_TRUE(gradeBatch(swapExercise(), swapExercise().limits, o, sum, why)) << why;
  return sum;
}

}  // namespace

TEST(BatchConfinement, HostileFolder) {
  Dir d("confine");
  std::string ref = slurp(kRoot + "/lessons/w2l2/swap/reference.uir");
  d.write("in/alice.uir", ref);
  fs::create_symlink(fs::absolute(kRoot + "/lessons/w2l2/swap/reference.uir"), d.p / "in/bob.uir");
  fs::create_symlink("/etc/passwd", d.p / "in/carol.uir");
  fs::create_directories(d.p / "outside");
  d.write("outside/x.uir", ref);
  fs::create_directory_symlink(d.p / "outside", d.p / "in/linked.uir");  // a link to a folder, named like a file
  ASSERT_EQ(::mkfifo((d.p / "in/dave.uir").c_str(), 0600), 0);
  d.write("in/erin.uir", std::string("\x7f" "ELF\x02\x01\x01\x00\x00\xff\xfe", 12));
  BatchSummary sum = runBatch(d.p / "in", d.p / "out");  // the FIFO must not hang it
  auto rows = csvRows(sum.csv);
  ASSERT_EQ(rows.size(), 6u);
  EXPECT_EQ(rows["alice"][1], "graded");
  EXPECT_EQ(rows["alice"][2], "6");
  for (const char *id : {"bob", "carol", "linked", "dave", "erin"}) {
    EXPECT_EQ(rows[id][1], "rejected") << id;
    EXPECT_EQ(rows[id][2], "0") << id;
  }
  EXPECT_EQ(rows["bob"][7], "bob.uir is a symbolic link; batch mode reads only regular files inside the batch folder");
  EXPECT_NE(rows["carol"][7].find("is a symbolic link"), std::string::npos);
  EXPECT_NE(rows["linked"][7].find("is a symbolic link"), std::string::npos);
  EXPECT_EQ(rows["dave"][7], "dave.uir is a FIFO; batch mode reads only regular files inside the batch folder");
  EXPECT_NE(rows["erin"][7].find("NUL bytes"), std::string::npos);
  std::string carol = slurp(d.p / "out/results/carol.json");
  EXPECT_EQ(carol.find("root:"), std::string::npos) << carol;  // no line of /etc/passwd
  json bob = json::parse(slurp(d.p / "out/results/bob.json"));
  EXPECT_EQ(bob["score"], 0);
}

TEST(BatchConfinement, HostileJsonLines) {
  Dir d("confine-jsonl");
  std::string ref = slurp(kRoot + "/lessons/w2l2/swap/reference.uir");
  d.write("root/subs/ok.uir", ref);
  d.write("secret.uir", ref);  // beside the root, not inside it
  fs::create_symlink(d.p / "secret.uir", d.p / "root/subs/link.uir");
  fs::create_directory_symlink(d.p, d.p / "root/up");  // a folder link on the way
  std::string lines;
  for (auto [id, file] : std::vector<std::pair<std::string, std::string>>{
           {"ok", "subs/ok.uir"}, {"dots", "../secret.uir"}, {"abs", (d.p / "secret.uir").string()}, {"link", "subs/link.uir"},
           {"via", "up/secret.uir"}, {"inner", "subs/../subs/ok.uir"}, {"passwd", "/etc/passwd"}})
    lines += json({{"id", id}, {"file", file}}).dump() + "\n";
  d.write("root/subs.jsonl", lines);
  BatchSummary sum = runBatch(d.p / "root/subs.jsonl", d.p / "out");
  auto rows = csvRows(sum.csv);
  EXPECT_EQ(rows["ok"][1], "graded");
  EXPECT_EQ(rows["ok"][2], "6");
  for (const char *id : {"dots", "abs", "link", "via", "inner", "passwd"}) {
    EXPECT_EQ(rows[id][1], "rejected") << id;
    EXPECT_EQ(rows[id][2], "0") << id;
  }
  EXPECT_NE(rows["dots"][7].find("has a `..` component"), std::string::npos) << rows["dots"][7];
  EXPECT_NE(rows["abs"][7].find("is an absolute path"), std::string::npos) << rows["abs"][7];
  EXPECT_NE(rows["link"][7].find("is a symbolic link"), std::string::npos) << rows["link"][7];
  EXPECT_NE(rows["via"][7].find("is a symbolic link"), std::string::npos) << rows["via"][7];
  EXPECT_EQ(slurp(d.p / "out/results/passwd.json").find("root:"), std::string::npos);
}

// ---- bounded outputs ----

TEST(BoundedFeedback, TwoThousandLoadsAndThousandErrors) {
  std::string text = "%b = buffer 4 dtype=i32 slot=0 data=[1 2 3 4]\n%p = shrink %b 0 shape=[]\n";
  for (int i = 0; i < 2000; ++i) text += "%x" + std::to_string(i) + " = load %p\n";
  Limits lim = swapExercise().limits;
  lim.maxNodes = 5000;
  GradeResult r = gradeSource(swapExercise(), "many.uir", text, false, lim);
  ASSERT_EQ(r.status, GradeResult::Status::Graded);
  ASSERT_EQ(r.loads.size(), 2000u);
  std::string out = renderText(r);
  EXPECT_NE(out.find("and 1950 more loads"), std::string::npos);
  EXPECT_LT(out.size(), 64u * 1024);
  json j = renderJson(r);
  EXPECT_EQ(j["loads"].size(), 50u);
  EXPECT_EQ(j["omitted"]["loads"], 1950);
  std::string gs = renderGradescope(r).dump();
  EXPECT_LT(gs.size(), 200u * 1024) << "results.json of " << gs.size() << " bytes";
  static const json schema = json::parse(slurp(kRoot + "/docs/grade.schema.json"));
  auto errs = schema_check::validate(schema, j);
  EXPECT_TRUE(errs.empty()) << errs[0];

  std::string garbage;
  for (int i = 0; i < 1000; ++i) garbage += "garbage " + std::string(300, 'x') + "\n";
  GradeResult g = gradeSource(swapExercise(), "garbage.uir", garbage, false, swapExercise().limits);
  ASSERT_EQ(g.status, GradeResult::Status::Invalid);
  std::string gt = renderText(g);
  EXPECT_NE(gt.find("garbage.uir: note: 800 more error(s) not shown (limit 200)"), std::string::npos);
  for (std::istringstream is(gt); std::getline(is, text);) EXPECT_LE(text.size(), 260u) << text;
  json gj = renderJson(g);
  EXPECT_EQ(gj["omitted"]["diagnostics"], 800);
  errs = schema_check::validate(schema, gj);
  EXPECT_TRUE(errs.empty()) << errs[0];
}

// ---- feedback that does not mislead ----

// A failure that no load's version explains (a slot of another dtype) lists
// no loads; a wrong value does.
TEST(HonestFeedback, LoadsOnlyUnderWrongValues) {
  std::string ref = slurp(kRoot + "/lessons/w2l2/swap/reference.uir");
  std::string wide = std::regex_replace(ref, std::regex("dtype=i32"), "dtype=i64");
  GradeResult r = gradeSource(swapExercise(), "wide.uir", wide, false, swapExercise().limits);
  ASSERT_EQ(r.status, GradeResult::Status::Graded);
  ASSERT_FALSE(r.allPassed());
  EXPECT_EQ(renderText(r).find("Which versions"), std::string::npos) << renderText(r);
  EXPECT_TRUE(renderJson(r)["loads"].empty());
  EXPECT_EQ(renderGradescope(r).dump().find("Which versions"), std::string::npos);
  GradeResult s = gradeSource(swapExercise(), "starter.uir", swapExercise().starterText, false, swapExercise().limits);
  EXPECT_NE(renderText(s).find("Which versions your loads read:"), std::string::npos);
  EXPECT_FALSE(renderJson(s)["loads"].empty());
}

// An exercise that sets slot 0 and checks slot 1: a PASS line shows each
// slot under its own label, never slot 0's input beside slot 1's output.
TEST(HonestFeedback, TwoSlotsPassLine) {
  Dir d("two-slots");
  d.write("ex/exercise.json", R"({"format": "cairn-exercise", "version": 1, "title": "Copy",
    "tests": [{"name": "copy", "input": {"0": [7, 8]}, "expect": {"1": [7, 0]}}]})");
  d.write("ex/statement.md", "Copy a[0] into b[0].\n");
  std::string ref = "%a = buffer 2 dtype=i32 slot=0\n%b = buffer 2 dtype=i32 slot=1\n%p = shrink %a 0 shape=[]\n"
                    "%x = load %p\n%q = shrink %b 0 shape=[]\n%s = store %q %x\n%b1 = after %b %s\n";
  d.write("ex/reference.uir", ref);
  d.write("ex/starter.uir", "%a = buffer 2 dtype=i32 slot=0\n%b = buffer 2 dtype=i32 slot=1\n");
  Exercise ex;
  std::vector<std::string> errs;
  ASSERT_TRUE(loadExercise((d.p / "ex").string(), ex, errs)) << (errs.empty() ? "" : errs[0]);
  GradeResult r = gradeSource(ex, "ref.uir", ref, false, ex.limits);
  ASSERT_TRUE(r.allPassed());
  std::string text = renderText(r);
  EXPECT_EQ(text.find("slot 0: [7 8] -> [7 0]"), std::string::npos) << text;
  EXPECT_NE(text.find("input     slot 0 = [7 8]"), std::string::npos) << text;
  EXPECT_NE(text.find("actual    slot 1 = [7 0]"), std::string::npos) << text;
}

// The serial-loop form of the old-version rule lists no arrows, so the
// feedback does not promise them.
TEST(HonestFeedback, SerialLoopOldVersionPromisesNoArrows) {
  std::string text = "%b = buffer 4 dtype=i32 slot=0 data=[1 2 3 4]\n%i = range 3\n  %bc = carry %b\n"
                     "  %p = shrink %b 0 shape=[]\n  %x = load %p\n  %q = shrink %bc %i shape=[]\n"
                     "  %s = store %q %x\n  %bn = after %bc %s\n%e = end %i %bn\n%b1 = after %b %e\n";
  GradeResult r = gradeSource(swapExercise(), "serial.uir", text, false, swapExercise().limits);
  ASSERT_EQ(r.status, GradeResult::Status::Invalid);
  bool serial = false;
  for (const Diagnostic &x : r.diags.list()) serial |= x.rule == "old-version-order";
  ASSERT_TRUE(serial) << renderText(r);
  EXPECT_FALSE(r.cycle);
  EXPECT_EQ(renderText(r).find("arrows are listed"), std::string::npos) << renderText(r);
  GradeResult c = gradeSource(swapExercise(), "cycle.uir", slurp(kRoot + "/tests/grade/submissions/swap_old_version_cycle.uir"),
                              false, swapExercise().limits);
  EXPECT_TRUE(c.cycle);
  EXPECT_NE(renderText(c).find("(the cycle's arrows are listed as notes)"), std::string::npos);
}

// ---- merge and fingerprints ----

TEST(BatchMerge, TwoShardsEqualOneRun) {
  Dir d("merge");
  std::string ref = slurp(kRoot + "/lessons/w2l2/swap/reference.uir");
  std::vector<std::pair<std::string, std::string>> subs = {
      {"a1", ref}, {"a2", swapExercise().starterText}, {"a3", "%b = oops\n"}, {"b1", ref + "# late\n"}, {"b2", "garbage\n"}};
  std::string all, first, second;
  for (size_t k = 0; k < subs.size(); ++k) {
    std::string line = json({{"id", subs[k].first}, {"source", subs[k].second}}).dump() + "\n";
    all += line;
    (k < 3 ? first : second) += line;
  }
  d.write("all.jsonl", all);
  d.write("s1.jsonl", first);
  d.write("s2.jsonl", second);
  for (bool jsonl : {false, true}) {
    std::string tag = jsonl ? "-l" : "-f";
    runBatch(d.p / "all.jsonl", d.p / ("whole" + tag), jsonl);
    runBatch(d.p / "s1.jsonl", d.p / ("one" + tag), jsonl);
    runBatch(d.p / "s2.jsonl", d.p / ("two" + tag), jsonl);
    size_t n = 0;
    std::string why;
    ASSERT_TRUE(mergeBatches({(d.p / ("one" + tag)).string(), (d.p / ("two" + tag)).string()}, (d.p / ("m" + tag)).string(), n, why))
        << why;
    EXPECT_EQ(n, 5u);
    std::vector<std::string> wo, mo;
    EXPECT_EQ(csvRows(d.p / ("whole" + tag) / "summary.csv", &wo), csvRows(d.p / ("m" + tag) / "summary.csv", &mo));
    EXPECT_EQ(wo, mo);
    std::string w = slurp(d.p / ("whole" + tag) / "summary.csv"), m = slurp(d.p / ("m" + tag) / "summary.csv");
    EXPECT_EQ(w.substr(0, w.find('\n')), m.substr(0, m.find('\n')));  // the columns
    auto noSeconds = [](std::string s) { return std::regex_replace(s, std::regex("\"seconds\": ?[0-9.e+-]+"), "\"seconds\": 0"); };
    if (jsonl) {
      EXPECT_EQ(noSeconds(slurp(d.p / "whole-l/results.jsonl")), noSeconds(slurp(d.p / "m-l/results.jsonl")));
    } else {
      for (const auto &[id, text] : subs)
        EXPECT_EQ(noSeconds(slurp(d.p / "whole-f/results" / (id + ".json"))), noSeconds(slurp(d.p / "m-f/results" / (id + ".json"))))
            << id;
    }
  }
  // Refusals: an id twice, different forms, another exercise.
  size_t n = 0;
  std::string why;
  EXPECT_FALSE(mergeBatches({(d.p / "one-f").string(), (d.p / "whole-f").string()}, (d.p / "bad").string(), n, why));
  EXPECT_NE(why.find("the id a1 appears twice"), std::string::npos) << why;
  EXPECT_FALSE(mergeBatches({(d.p / "one-f").string(), (d.p / "two-l").string()}, (d.p / "bad").string(), n, why));
  EXPECT_NE(why.find("different forms"), std::string::npos) << why;
  json m = json::parse(slurp(d.p / "two-f/batch.json"));
  m["exercise"] = "w2l2/running_total";
  std::ofstream(d.p / "two-f/batch.json") << m.dump();
  EXPECT_FALSE(mergeBatches({(d.p / "one-f").string(), (d.p / "two-f").string()}, (d.p / "bad").string(), n, why));
  EXPECT_NE(why.find("different exercises"), std::string::npos) << why;
  EXPECT_FALSE(fs::exists(d.p / "bad"));
}

TEST(Fingerprint, NamesSpacingAndCommentsDoNotCount) {
  auto fp = [](const std::string &text) {
    Graph g;
    Diags d;
    EXPECT_TRUE(parseUir(text, g, d)) << text;
    return fingerprint(g);
  };
  std::string a = "%b = buffer 4 dtype=i32 slot=0\n%p = shrink %b 1 shape=[]\n%x = load %p\n%s = store %p %x\n%b1 = after %b %s\n";
  std::string b = "# mine\n%buf   = buffer 4 dtype=i32 slot=0  # the buffer\n\n%view = shrink %buf 1 shape=[]\r\n"
                  "%val = load %view\n%st = store %view %val\n%done = after %buf %st # end\n";
  std::string c = "%b = buffer 4 dtype=i32 slot=0\n%p = shrink %b 2 shape=[]\n%x = load %p\n%s = store %p %x\n%b1 = after %b %s\n";
  EXPECT_EQ(fp(a), fp(b));
  EXPECT_NE(fp(a), fp(c));  // another element: another structure
  EXPECT_EQ(fp(a).size(), 16u);
}
