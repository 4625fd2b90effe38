// Batch grading: many submissions, all cores, one result file each and a
// CSV summary (`cairn grade EXERCISE --batch DIR_OR_JSONL`).
//
// Input: a folder (every *.uir and *.json file under it, recursively, in
// name order; the id is the relative path without the extension, `/` as
// `__`) or a JSON Lines file, one object per line:
//   {"id": "alice", "source": "%b = buffer ..."}   the submission's text
//   {"id": "bob", "file": "subs/bob.uir"}            a file (relative to the JSONL)
// Output, under the output folder: results/ID.json (the grade JSON, or the
// Gradescope results.json with --gradescope), or with `jsonl` one file
// results.jsonl of {"id", "result"} lines in input order (one file instead
// of thousands: file creation dominates on slow file systems), and
// summary.csv, one row per submission in input order. A broken submission, an unreadable file or a
// malformed JSONL line is a row with status `error` or `rejected`; the
// batch never stops early.
#pragma once
#include <string>

#include "grade/exercise.hpp"

namespace cairn::grade {

struct BatchOptions {
  std::string input;   // folder or .jsonl
  std::string outDir;  // created when missing
  unsigned jobs = 0;   // 0: std::thread::hardware_concurrency()
  bool gradescope = false;
  bool jsonl = false;  // results.jsonl instead of results/ID.json
};

struct BatchSummary {
  size_t total = 0, allPassed = 0, someFailed = 0, invalid = 0, rejected = 0, errors = 0;
  unsigned threads = 0;
  double seconds = 0;
  std::string csv;  // the summary's path
};

// False (with `why`) only when the input cannot be listed or the output
// folder cannot be written; per-submission problems are rows.
bool gradeBatch(const Exercise &ex, const Limits &limits, const BatchOptions &opts, BatchSummary &sum, std::string &why);

}  // namespace cairn::grade
