// Generated tests: the manifest's `generate` object turned into the inputs
// of its cases (format: lessons/README.md). The numbers are splitmix64 from
// the seed, so every machine draws the same cases; the expected contents are
// the exercise loader's job (it runs the reference on each input). A slot's
// size may follow another generated slot's value (`"size": {"slot": "1",
// "index": 0}`): the driving slots are drawn first, then the driven ones.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ir/dtype.hpp"
#include "ir/graph.hpp"

namespace cairn::grade {

struct GenSlot {
  DType type = DType::None;
  int64_t size = -1;  // -1: dynamic
};

struct Drawn {
  std::vector<std::map<int64_t, std::vector<Literal>>> inputs;  // one per case
  std::vector<int64_t> check;  // the slots compared; empty: all
  std::string about;           // "50 random cases (seed 7), slot 0: 4 values in [-10, 10]"
};

// False (with messages in `errs`, each starting with `where`) when the
// object is malformed; `slots` are the reference's.
bool drawCases(const nlohmann::json &g, const std::map<int64_t, GenSlot> &slots, const std::string &where, Drawn &out,
               std::vector<std::string> &errs);

Literal intLiteral(int64_t v);

}  // namespace cairn::grade
