// A small JSON Schema validator for the tests: the keywords our schemas
// (docs/grade.schema.json, docs/gradescope.schema.json) use, and no more:
// type, const, enum, required, properties, patternProperties,
// additionalProperties (false), items, minItems, minimum, anyOf, and $ref
// to "#/$defs/NAME". An unknown keyword is an error, so a schema cannot
// silently use one this validator ignores. Returns the problems found, each
// with the JSON pointer of the offending value.
#pragma once
#include <regex>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace schema_check {

using nlohmann::json;

inline bool hasType(const json &v, const std::string &t) {
  if (t == "object") return v.is_object();
  if (t == "array") return v.is_array();
  if (t == "string") return v.is_string();
  if (t == "integer") return v.is_number_integer();
  if (t == "number") return v.is_number();
  if (t == "boolean") return v.is_boolean();
  if (t == "null") return v.is_null();
  return false;
}

inline void check(const json &root, const json &s, const json &v, const std::string &at, std::vector<std::string> &out,
                  int depth = 0) {
  static const std::set<std::string> known = {"$schema", "$id", "title", "description", "type", "const", "enum",
                                              "required", "properties", "patternProperties", "additionalProperties",
                                              "items", "minItems", "minimum", "anyOf", "$ref", "$defs"};
  if (depth > 64) {
    out.push_back(at + ": schema nesting too deep");
    return;
  }
  for (auto &[k, x] : s.items())
    if (!known.count(k)) out.push_back(at + ": schema keyword `" + k + "` is not supported by schema_check");
  if (s.contains("$ref")) {
    std::string ref = s["$ref"];
    const std::string pre = "#/$defs/";
    if (ref.rfind(pre, 0) != 0 || !root["$defs"].contains(ref.substr(pre.size()))) {
      out.push_back(at + ": unresolved $ref " + ref);
      return;
    }
    check(root, root["$defs"][ref.substr(pre.size())], v, at, out, depth + 1);
  }
  if (s.contains("type")) {
    bool ok = false;
    if (s["type"].is_string()) ok = hasType(v, s["type"]);
    else
      for (const json &t : s["type"]) ok |= hasType(v, t);
    if (!ok) {
      out.push_back(at + ": " + v.dump() + " is not of type " + s["type"].dump());
      return;
    }
  }
  if (s.contains("const") && v != s["const"]) out.push_back(at + ": must be " + s["const"].dump());
  if (s.contains("enum")) {
    bool ok = false;
    for (const json &e : s["enum"]) ok |= e == v;
    if (!ok) out.push_back(at + ": " + v.dump() + " is not one of " + s["enum"].dump());
  }
  if (s.contains("minimum") && v.is_number() && v.get<double>() < s["minimum"].get<double>())
    out.push_back(at + ": below the minimum " + s["minimum"].dump());
  if (s.contains("anyOf")) {
    bool ok = false;
    for (const json &alt : s["anyOf"]) {
      std::vector<std::string> tmp;
      check(root, alt, v, at, tmp, depth + 1);
      ok |= tmp.empty();
    }
    if (!ok) out.push_back(at + ": matches none of anyOf");
  }
  if (v.is_object()) {
    if (s.contains("required"))
      for (const json &r : s["required"])
        if (!v.contains(r.get<std::string>())) out.push_back(at + ": missing required `" + r.get<std::string>() + "`");
    for (auto &[k, x] : v.items()) {
      bool matched = false;
      if (s.contains("properties") && s["properties"].contains(k)) {
        matched = true;
        check(root, s["properties"][k], x, at + "/" + k, out, depth + 1);
      }
      if (s.contains("patternProperties"))
        for (auto &[pat, ps] : s["patternProperties"].items())
          if (std::regex_search(k, std::regex(pat))) {
            matched = true;
            check(root, ps, x, at + "/" + k, out, depth + 1);
          }
      if (!matched && s.contains("additionalProperties") && s["additionalProperties"] == false)
        out.push_back(at + ": unexpected property `" + k + "`");
    }
  }
  if (v.is_array()) {
    if (s.contains("minItems") && v.size() < s["minItems"].get<size_t>()) out.push_back(at + ": too few items");
    if (s.contains("items"))
      for (size_t i = 0; i < v.size(); ++i) check(root, s["items"], v[i], at + "/" + std::to_string(i), out, depth + 1);
  }
}

inline std::vector<std::string> validate(const json &schema, const json &value) {
  std::vector<std::string> out;
  check(schema, schema, value, "", out);
  return out;
}

}  // namespace schema_check
