// Hostile submissions and batch mode.
//
// Each hostile submission must end in a clear failure inside its limit:
// a Rejected or Invalid result, or tests failed with the limit's message,
// never a crash, an exception or a hang. Inputs are generated in memory
// (a million nodes is 25 MB of text; none is committed). The batch tests
// grade a folder and a JSON Lines file with broken entries on two threads
// and check every row and result file. No test asserts a duration.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

#include "grade/batch.hpp"
#include "grade/grader.hpp"
#include "grade/report.hpp"
#include "test_support.hpp"
#include "schema_check.hpp"

namespace fs = std::filesystem;
using namespace cairn;
using namespace cairn::grade;
using nlohmann::json;
using namespace cairn::grade::testing;

namespace {




const std::string &reference() {
  static std::string s = slurp(kRoot + "/lessons/w2l2/swap/reference.uir");
  return s;
}

// Every output format renders, and the JSON ones match their schemas.
void rendersCleanly(const GradeResult &r) {
  static const json ours = json::parse(slurp(kRoot + "/docs/grade.schema.json"));
  static const json gs = json::parse(slurp(kRoot + "/docs/gradescope.schema.json"));
  EXPECT_FALSE(renderText(r).empty());
  // Submissions may hold invalid UTF-8: the CLI dumps with `replace`.
  json j = json::parse(renderJson(r).dump(-1, ' ', false, json::error_handler_t::replace));
  json g = json::parse(renderGradescope(r).dump(-1, ' ', false, json::error_handler_t::replace));
  auto e1 = schema_check::validate(ours, j), e2 = schema_check::validate(gs, g);
  EXPECT_TRUE(e1.empty()) << e1[0];
  EXPECT_TRUE(e2.empty()) << e2[0];
}

void allFailWith(const GradeResult &r, const std::string &prefix) {
  ASSERT_EQ(r.status, GradeResult::Status::Graded) << renderText(r);
  for (const TestResult &t : r.tests) {
    EXPECT_FALSE(t.passed) << t.name;
    EXPECT_NE(t.failure.find(prefix), std::string::npos) << t.name << ": " << t.failure;
  }
  EXPECT_EQ(r.score, 0);
  rendersCleanly(r);
}

}  // namespace

TEST(Hostile, HugeStaticBuffer) {
  GradeResult r = gradeSource(swapExercise(), "h.uir", reference() + "%h = buffer 1000000000000 dtype=i64\n", false, swapExercise().limits);
  allFailWith(r, "exceeds the limit of 65536 elements");  // hidden tests: without the size
  EXPECT_NE(r.tests[0].failure.find("buffer of 1000000000000 elements exceeds"), std::string::npos) << r.tests[0].failure;
}

TEST(Hostile, HugeDynamicBuffer) {
  std::string text = reference() + "%n = const 4611686018427387904 dtype=i64\n%h = buffer %n dtype=i8\n";
  allFailWith(gradeSource(swapExercise(), "h.uir", text, false, swapExercise().limits), "exceeds the limit of 65536 elements");
}

TEST(Hostile, HugeSlotBufferIsAMismatchNotAnAllocation) {
  GradeResult r = gradeSource(swapExercise(), "h.uir", "%b = buffer 4611686018427387904 dtype=i64 slot=0\n", false, swapExercise().limits);
  ASSERT_EQ(r.status, GradeResult::Status::Graded);
  EXPECT_NE(r.tests[0].failure.find("has 4611686018427387904 elements"), std::string::npos) << r.tests[0].failure;
}

TEST(Hostile, AMillionNodes) {
  std::string text;
  text.reserve(30u << 20);
  for (int i = 0; i < 1000000; ++i) text += "%c" + std::to_string(i) + " = const 1 dtype=i32\n";
  GradeResult bytes = gradeSource(swapExercise(), "m.uir", text, false, swapExercise().limits);
  EXPECT_EQ(bytes.status, GradeResult::Status::Rejected);
  EXPECT_NE(bytes.message.find("bytes; the limit is 1048576 bytes"), std::string::npos) << bytes.message;
  Limits lim = swapExercise().limits;
  lim.maxBytes = uint64_t{1} << 30;
  GradeResult nodes = gradeSource(swapExercise(), "m.uir", text, false, lim);
  EXPECT_EQ(nodes.status, GradeResult::Status::Rejected);
  EXPECT_EQ(nodes.message, "the program has 1000000 lines that define nodes; the limit is 2000 nodes");
  for (const TestResult &t : nodes.tests) EXPECT_EQ(t.failure, "not run: " + nodes.message);
  rendersCleanly(nodes);
}

TEST(Hostile, ManyNodesInJsonForm) {
  std::string text = R"({"nodes": [)";
  for (int i = 0; i < 5000; ++i) text += std::string(i ? "," : "") + R"({"name": "c)" + std::to_string(i) + R"(", "op": "const", "operands": ["1"], "dtype": "i32"})";
  text += "]}";
  GradeResult r = gradeSource(swapExercise(), "m.json", text, true, swapExercise().limits);
  EXPECT_EQ(r.status, GradeResult::Status::Rejected);
  EXPECT_EQ(r.message, "the program has 5000 nodes; the limit is 2000 nodes");
}

TEST(Hostile, DeepVersionChain) {
  // The swap, then 30000 more versions of %b: each loads b[2] and stores it back.
  std::string text = reference();
  std::string v = "b2";
  for (int k = 0; k < 30000; ++k) {
    std::string n = std::to_string(k);
    text += "%dv" + n + " = shrink %" + v + " 2 shape=[]\n%dx" + n + " = load %dv" + n + "\n%ds" + n + " = store %dv" + n +
            " %dx" + n + "\n%dc" + n + " = after %" + v + " %ds" + n + "\n";
    v = "dc" + n;
  }
  EXPECT_EQ(gradeSource(swapExercise(), "d.uir", text, false, swapExercise().limits).status, GradeResult::Status::Rejected);
  Limits lim = swapExercise().limits;
  lim.maxNodes = 200000;
  lim.maxBytes = 16u << 20;
  lim.maxSteps = 10000;  // the chain runs more steps than that
  allFailWith(gradeSource(swapExercise(), "d.uir", text, false, lim), "exceeded the step limit of 10000");
  lim.maxSteps = 10000000;
  GradeResult ok = gradeSource(swapExercise(), "d.uir", text, false, lim);
  EXPECT_TRUE(ok.allPassed()) << renderText(ok);
}

TEST(Hostile, DeepLoopNesting) {
  std::string text = reference();
  for (int k = 0; k < 300; ++k) text += "%i" + std::to_string(k) + " = range 2\n";
  for (int k = 299; k >= 0; --k) text += "%e" + std::to_string(k) + " = end %i" + std::to_string(k) + "\n";
  GradeResult r = gradeSource(swapExercise(), "n.uir", text, false, swapExercise().limits);
  ASSERT_EQ(r.status, GradeResult::Status::Invalid);
  EXPECT_EQ(r.diags.list()[0].rule, "loop");
  rendersCleanly(r);
}

TEST(Hostile, DeepExpression) {
  std::string text = reference() + "%a0 = add %x0 1\n";
  for (int k = 1; k < 1900; ++k) text += "%a" + std::to_string(k) + " = add %a" + std::to_string(k - 1) + " 1\n";
  GradeResult r = gradeSource(swapExercise(), "e.uir", text, false, swapExercise().limits);
  EXPECT_TRUE(r.allPassed()) << renderText(r);  // unused values are fine
}

TEST(Hostile, BinaryGarbage) {
  uint64_t s = 12345;
  for (int round = 0; round < 20; ++round) {
    std::string text;
    for (int i = 0; i < 65536; ++i) {
      s = s * 6364136223846793005ull + 1442695040888963407ull;
      text += static_cast<char>(s >> 56);
    }
    for (bool asJson : {false, true}) {
      GradeResult r = gradeSource(swapExercise(), "g.bin", text, asJson, swapExercise().limits);
      ASSERT_TRUE(r.status == GradeResult::Status::Invalid || r.status == GradeResult::Status::Rejected)
          << statusName(r.status) << " " << r.message;
      if (r.status == GradeResult::Status::Invalid) {
        EXPECT_FALSE(r.diags.list().empty());
      }
      rendersCleanly(r);
    }
  }
  GradeResult empty = gradeSource(swapExercise(), "e.uir", "", false, swapExercise().limits);
  allFailWith(empty, "your program has no buffer bound to slot 0");
}

TEST(Hostile, HugeDynamicLoopBound) {
  // The bound is read from the buffer: b[0] * 10^9 iterations.
  std::string text = reference() +
                     "%n  = cast %x0 dtype=i64\n%nb = mul %n 1000000000\n%i  = range %nb\n%e  = end %i\n";
  GradeResult r = gradeSource(swapExercise(), "l.uir", text, false, swapExercise().limits);
  ASSERT_EQ(r.status, GradeResult::Status::Graded) << renderText(r);
  for (const TestResult &t : r.tests)
    if (t.name == "example" || t.name == "extremes") {
      EXPECT_FALSE(t.passed);
      EXPECT_NE(t.failure.find("exceeded the step limit of 100000 (at line "), std::string::npos) << t.failure;
    } else if (t.name == "negative values") {
      EXPECT_TRUE(t.passed);  // b[0] = -5: no iteration
    }
  // With no step limit, the wall-time limit ends it.
  Limits lim = swapExercise().limits;
  lim.maxSteps = 0;
  lim.timeout = 0.02;
  GradeResult slow = gradeSource(swapExercise(), "l.uir", text, false, lim);
  bool timed = false;
  for (const TestResult &t : slow.tests) timed |= t.failure.find("exceeded the time limit of 0.02 s") != std::string::npos;
  EXPECT_TRUE(timed) << renderText(slow);
  rendersCleanly(slow);
}

TEST(Hostile, UnreadableAndOversizedFiles) {
  GradeResult missing = gradeFile(swapExercise(), "/nonexistent/x.uir", swapExercise().limits);
  EXPECT_EQ(missing.status, GradeResult::Status::Rejected);
  EXPECT_NE(missing.message.find("cannot open"), std::string::npos);
  Limits lim = swapExercise().limits;
  lim.maxBytes = 10;
  GradeResult big = gradeFile(swapExercise(), kRoot + "/lessons/w2l2/swap/reference.uir", lim);
  EXPECT_EQ(big.status, GradeResult::Status::Rejected);
  EXPECT_NE(big.message.find("larger than 10 bytes"), std::string::npos) << big.message;
  rendersCleanly(big);
}

// ---- batch ---------------------------------------------------------------------------------------

namespace {

struct Tmp {
  fs::path p = fs::temp_directory_path() / ("cairn-batch-test-" + std::to_string(::getpid()));
  Tmp() { fs::create_directories(p); }
  ~Tmp() {
    std::error_code ec;
    fs::remove_all(p, ec);
  }
  void write(const std::string &rel, const std::string &text) const {
    fs::create_directories((p / rel).parent_path());
    std::ofstream(p / rel, std::ios::binary) << text;
  }
};

std::vector<std::vector<std::string>> readCsv(const std::string &path) {
  std::vector<std::vector<std::string>> rows;
  std::ifstream f(path);
  for (std::string line; std::getline(f, line);) {
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
    rows.push_back(cells);
  }
  return rows;
}

}  // namespace

TEST(Batch, FolderOfSubmissions) {
  Tmp t;
  t.write("in/alice.uir", reference());
  t.write("in/bob.uir", slurp(kRoot + "/lessons/w2l2/swap/starter.uir"));
  t.write("in/carol.uir", slurp(kRoot + "/tests/grade/submissions/swap_forgot_after.uir"));
  t.write("in/dave.uir", std::string("\x00\xff\x7f garbage\n\x01", 14));
  t.write("in/erin.uir", reference() + "%n = cast %x0 dtype=i64\n%nb = mul %n 1000000000\n%i = range %nb\n%e = end %i\n");
  t.write("in/sub/frank.uir", std::string(3u << 20, '#'));
  t.write("in/notes.txt", "ignored");
  BatchOptions o{(t.p / "in").string(), (t.p / "out").string(), 2, false};
  BatchSummary sum;
  std::string why;
  ASSERT_TRUE(gradeBatch(swapExercise(), swapExercise().limits, o, sum, why)) << why;
  EXPECT_EQ(sum.total, 6u);
  EXPECT_EQ(sum.allPassed, 1u);
  EXPECT_EQ(sum.someFailed, 2u);
  EXPECT_EQ(sum.invalid, 1u);
  EXPECT_EQ(sum.rejected, 2u);  // dave's NUL bytes, frank's size
  EXPECT_EQ(sum.threads, 2u);
  auto rows = readCsv(sum.csv);
  ASSERT_EQ(rows.size(), 7u);
  EXPECT_EQ(rows[0][0], "id");
  EXPECT_EQ(rows[0].size(), 9u + swapExercise().tests.size());
  std::vector<std::string> ids, statuses;
  for (size_t i = 1; i < rows.size(); ++i) {
    ids.push_back(rows[i][0]);
    statuses.push_back(rows[i][1]);
    EXPECT_EQ(rows[i].size(), rows[0].size());
  }
  EXPECT_EQ(ids, (std::vector<std::string>{"alice", "bob", "carol", "dave", "erin", "sub__frank"}));
  EXPECT_EQ(statuses, (std::vector<std::string>{"graded", "graded", "invalid", "rejected", "graded", "rejected"}));
  EXPECT_EQ(rows[1][2], "6");
  EXPECT_NE(rows[3][7].find("line 10: a store that no after sequences has no effect [store-sequenced]"), std::string::npos);
  const json schema = json::parse(slurp(kRoot + "/docs/grade.schema.json"));
  for (const std::string &id : ids) {
    json j = json::parse(slurp((t.p / "out/results" / (id + ".json")).string()));
    auto errs = schema_check::validate(schema, j);
    EXPECT_TRUE(errs.empty()) << id << ": " << errs[0];
  }
}

TEST(Batch, JsonLinesWithBrokenEntries) {
  Tmp t;
  t.write("subs/x.uir", reference());
  json good = {{"id", "good"}, {"source", reference()}};
  json file = {{"id", "good"}, {"file", "subs/x.uir"}};  // the same id again: made unique
  json num = {{"id", 42}, {"source", "%b = oops\n"}};
  std::string lines = good.dump() + "\n" + file.dump() + "\nthis is not json\n\n" + num.dump() + "\n{\"id\": \"nothing\"}\n" +
                      json({{"id", "../../etc/passwd"}, {"file", "missing.uir"}}).dump() + "\n";
  t.write("subs.jsonl", lines);
  BatchOptions o{(t.p / "subs.jsonl").string(), (t.p / "out").string(), 2, true};
  BatchSummary sum;
  std::string why;
  ASSERT_TRUE(gradeBatch(swapExercise(), swapExercise().limits, o, sum, why)) << why;
  EXPECT_EQ(sum.total, 6u);
  auto rows = readCsv(sum.csv);
  ASSERT_EQ(rows.size(), 7u);
  std::vector<std::string> ids, statuses;
  for (size_t i = 1; i < rows.size(); ++i) {
    ids.push_back(rows[i][0]);
    statuses.push_back(rows[i][1]);
  }
  EXPECT_EQ(ids, (std::vector<std::string>{"good", "good-2", "line-3", "42", "nothing", "_.._.._etc_passwd"}));
  EXPECT_EQ(statuses, (std::vector<std::string>{"graded", "graded", "error", "invalid", "error", "rejected"}));
  const json schema = json::parse(slurp(kRoot + "/docs/gradescope.schema.json"));
  for (const std::string &id : ids) {
    ASSERT_TRUE(fs::exists(t.p / "out/results" / (id + ".json"))) << id;
    json j = json::parse(slurp((t.p / "out/results" / (id + ".json")).string()));
    auto errs = schema_check::validate(schema, j);
    EXPECT_TRUE(errs.empty()) << id << ": " << errs[0];
  }
  EXPECT_FALSE(fs::exists(t.p / "etc"));
}

TEST(Batch, MissingInputIsAnError) {
  Tmp t;
  BatchOptions o{(t.p / "nope").string(), (t.p / "out").string(), 1, false};
  BatchSummary sum;
  std::string why;
  EXPECT_FALSE(gradeBatch(swapExercise(), swapExercise().limits, o, sum, why));
  EXPECT_NE(why.find("no such folder or file"), std::string::npos);
}
