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
// summary.csv, one row per submission in input order (with each one's
// structural fingerprint), and batch.json (the exercise, the result form
// and the ids, for --merge). A broken submission, an unreadable file or a
// malformed JSONL line is a row with status `error` or `rejected`; the
// batch never stops early. Only regular files inside the batch root are
// read: a symbolic link, a FIFO, a device, an absolute JSONL path or one
// with `..` is a `rejected` row saying so (see batch.cpp).
#pragma once
#include <string>
#include <vector>

#include "grade/exercise.hpp"
#include "ir/graph.hpp"

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

// The structural fingerprint of a program: 16 hex digits of a hash of its
// canonical printed form without comments, every node renamed by the order
// of its first mention. Programs that differ only in names, spacing and
// comments get the same fingerprint.
std::string fingerprint(Graph g);

// Joins the output folders of shards (batch runs of one exercise over
// separate inputs) into `outDir`: batch.json, summary.csv and the results,
// in the order the shards are given. False with `why` when a shard is
// missing or unreadable, the shards grade different exercises or write
// different forms, or an id appears twice.
bool mergeBatches(const std::vector<std::string> &shards, const std::string &outDir, size_t &rows, std::string &why);

}  // namespace cairn::grade
