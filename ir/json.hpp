// The JSON form of a .uir graph (schema: docs/uir.md, "JSON form").
//
// Export is lossless for everything Graph::sameAs compares, plus locations
// and comments: literals travel as strings in .uir literal syntax, so
// integers keep all 64 bits and a sign, and floats keep NaN/inf/-0.
// Import trusts nothing: every field is type-checked, operands may refer only
// to earlier nodes, sizes are bounded, and every problem becomes a Diagnostic
// (rule "json"); it never throws and never recurses over the input's depth.
#pragma once
#include <iosfwd>
#include <string_view>

#include <nlohmann/json.hpp>

#include "ir/diag.hpp"
#include "ir/graph.hpp"

namespace cairn {

// Format marker and version written by export and checked by import.
inline constexpr std::string_view kJsonFormat = "cairn-uir";
inline constexpr int kJsonVersion = 1;

nlohmann::json graphToJson(const Graph &g);

// Reads `j` into `g` (which must be empty), then builds loop regions
// (buildRegions). Returns true when no error was added to `diags`.
bool graphFromJson(const nlohmann::json &j, Graph &g, Diags &diags);

// Parses JSON text, then graphFromJson. A JSON syntax error is reported at
// the line and column of the offending byte.
bool parseJsonGraph(std::string_view text, Graph &g, Diags &diags);

}  // namespace cairn
