// Helpers shared by the grader's GoogleTest files: the source tree, reading a
// file whole, and the shipped swap exercise loaded once.
#pragma once
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "grade/exercise.hpp"

namespace cairn::grade::testing {

inline const std::string kRoot = CAIRN_SOURCE_DIR;

inline std::string slurp(const std::filesystem::path &p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

inline const Exercise &swapExercise() {
  static Exercise ex = [] {
    Exercise e;
    std::vector<std::string> errs;
    EXPECT_TRUE(loadExercise(kRoot + "/lessons/w2l2/swap", e, errs));
    return e;
  }();
  return ex;
}

}  // namespace cairn::grade::testing
