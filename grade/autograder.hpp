// A Gradescope autograder for an assignment (`cairn lesson gradescope`).
//
// The zip Gradescope takes ("Configure Autograder" > "Zip file upload"):
//   setup.sh                 run once when the image is built: builds cairn
//                            from cairn/src/ and installs it into cairn/install/
//                            (source mode), or checks the binary (binary mode)
//   run_autograder           run per submission; always writes
//                            /autograder/results/results.json
//   cairn/assignment.json    the manifest, its exercises pointing into cairn/lessons/
//   cairn/lessons/ID/...     every exercise folder the assignment uses (with
//                            its reference and hidden tests: the zip is staff-only)
//   cairn/src/...            source mode: the sources to build
//   cairn/install/...        binary mode: this cairn and its std/
// Gradescope unpacks the zip into /autograder/source and copies
// run_autograder to /autograder/run_autograder, so the script finds its
// files through /autograder/source (AUTOGRADER_ROOT overrides /autograder,
// for tests). The zip is deterministic: sorted entries, one fixed time.
#pragma once
#include <string>
#include <vector>

#include "grade/assignment.hpp"

namespace cairn::grade {

struct AutograderOptions {
  std::string out;               // the .zip to write
  bool embedBinary = false;      // binary mode instead of source mode
  std::string sourceDir;         // source mode: a folder with cairn's CMakeLists.txt
  std::string binaryPath;        // binary mode: the cairn to embed
  std::string stdDir;            // binary mode: the std/ folder to embed
  unsigned totalTimeout = 600;   // run_autograder's limit on the whole grade, seconds
};

// Writes the zip; false with `why`. `listing` receives each entry's path.
bool writeAutograder(const Assignment &a, const AutograderOptions &o, std::vector<std::string> &listing,
                     std::string &why);

// The source folder `cairn lesson gradescope` packs by default: an installed
// cairn's PREFIX/share/cairn/src, else the tree this binary was built from;
// "" when neither has a CMakeLists.txt.
std::string defaultSourceDir();

// The two scripts, as written into the zip (exposed for tests and docs).
std::string setupScript(bool embedBinary);
std::string runAutograderScript(unsigned totalTimeout);

}  // namespace cairn::grade
