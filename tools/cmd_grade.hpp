// The course commands of the `cairn` CLI: `cairn grade` and `cairn lesson
// check` (the grader lives in grade/; formats in lessons/README.md).
//
// tools/cairn.cpp constructs one GradeCli on its CLI11 app before parsing,
// and after parsing asks `chosen()` and `run()`. Exit status: 0 every test
// passed (lesson check: no problem found; batch: the batch ran); 1 the
// submission is invalid, was rejected or failed a test (lesson check: a
// problem was found); 2 usage or I/O error.
#pragma once
#include <memory>

namespace CLI {
class App;
}

namespace cairn {

class GradeCli {
 public:
  explicit GradeCli(CLI::App &app);
  ~GradeCli();
  bool chosen() const;  // after parsing: was `grade` or `lesson check` given?
  int run();

 private:
  struct State;
  std::unique_ptr<State> s_;
};

}  // namespace cairn
