// The authoring keys of exercise.json that go beyond plain tests (format:
// lessons/README.md): visibility, tolerance, require, and the check that an
// object has no unknown key. Used by the exercise loader (exercise.cpp);
// every problem is appended to `errs` as one message that names the file and
// the key, never thrown.
#pragma once
#include <initializer_list>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "grade/exercise.hpp"

namespace cairn::grade {

// Appends an error for each key of `obj` that is not in `allowed`:
// `WHERE: unknown key "K" (allowed: a, b, c)`.
void checkKeys(const nlohmann::json &obj, std::initializer_list<const char *> allowed, const std::string &where,
               std::vector<std::string> &errs);

// A test's `visibility` (or the older `visible`), with `dflt` when neither is
// given; both given is an error.
Visibility parseVisibility(const nlohmann::json &t, Visibility dflt, const std::string &where, std::vector<std::string> &errs);

// `{"abs": X}`, `{"rel": X}`, `{"ulps": N}` (one or more).
Tolerance parseTolerance(const nlohmann::json &v, const std::string &where, std::vector<std::string> &errs);

// One entry of `require`: {"name", "op", "min", "max", "points", "visibility",
// "hint"}; returns a Test whose `require` is set. `where` names the file.
Test parseRequirement(const nlohmann::json &v, size_t index, const std::string &where, std::vector<std::string> &errs);

}  // namespace cairn::grade
