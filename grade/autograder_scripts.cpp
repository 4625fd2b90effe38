// The two scripts of a Gradescope autograder zip (see autograder.hpp).
//
// run_autograder's promise: /autograder/results/results.json exists and is
// valid JSON when it exits, whatever cairn did (graded, crashed, hung, was
// not installed). cairn itself writes a results.json for every submission
// it can look at (missing or misnamed files included, exit 0 or 1); every
// other outcome gets a fixed fallback that quotes nothing from the
// submission or from cairn's messages (those go to the log staff see).
#include "grade/autograder.hpp"

namespace cairn::grade {

std::string setupScript(bool embedBinary) {
  std::string s =
      "#!/usr/bin/env bash\n"
      "# cairn autograder: setup.sh. Gradescope runs it once, as root, when it builds\n"
      "# the autograder image (choose an Ubuntu 24.04 or Debian 12 base image).\n";
  if (embedBinary) {
    s += "# Binary mode: the zip carries a cairn built elsewhere; this checks that it runs.\n"
         "set -euo pipefail\n"
         "HERE=\"$(cd \"$(dirname \"${BASH_SOURCE[0]}\")\" && pwd)\"\n"
         "CAIRN=\"$HERE/cairn/install/bin/cairn\"\n"
         "if ! \"$CAIRN\" --version; then\n"
         "  echo \"setup.sh: the packed cairn does not run on this image; missing libraries:\" >&2\n"
         "  ldd \"$CAIRN\" | grep 'not found' >&2 || true\n"
         "  echo \"setup.sh: pack the autograder in source mode (cairn lesson gradescope without --embed binary)\" >&2\n"
         "  exit 1\n"
         "fi\n";
  } else {
    s += "# Source mode: installs the build's packages, builds cairn from cairn/src and\n"
         "# installs it into cairn/install. CAIRN_SKIP_APT=1 skips the packages.\n"
         "set -euo pipefail\n"
         "HERE=\"$(cd \"$(dirname \"${BASH_SOURCE[0]}\")\" && pwd)\"\n"
         "if [ \"${CAIRN_SKIP_APT:-0}\" != 1 ]; then\n"
         "  export DEBIAN_FRONTEND=noninteractive\n"
         "  apt-get update\n"
         "  apt-get install -y --no-install-recommends cmake ninja-build g++ pkg-config libboost-graph-dev \\\n"
         "    libcli11-dev nlohmann-json3-dev libffi-dev libarchive-dev libssl-dev libmimalloc-dev\n"
         "fi\n"
         "BUILD=\"$(mktemp -d)\"\n"
         "trap 'rm -rf \"$BUILD\"' EXIT\n"
         "cmake -S \"$HERE/cairn/src\" -B \"$BUILD\" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCAIRN_TESTS=OFF -DCAIRN_BENCH=OFF\n"
         "cmake --build \"$BUILD\"\n"
         "cmake --install \"$BUILD\" --prefix \"$HERE/cairn/install\"\n"
         "CAIRN=\"$HERE/cairn/install/bin/cairn\"\n"
         "\"$CAIRN\" --version\n";
  }
  s += "# The assignment must load (exit 1 is an empty submission, 2 a broken manifest).\n"
       "EMPTY=\"$(mktemp -d)\"\n"
       "rc=0\n"
       "\"$CAIRN\" grade --assignment \"$HERE/cairn/assignment.json\" \"$EMPTY\" --gradescope -o /dev/null || rc=$?\n"
       "rmdir \"$EMPTY\"\n"
       "if [ \"$rc\" -gt 1 ]; then echo \"setup.sh: the assignment does not load (status $rc)\" >&2; exit 1; fi\n"
       "echo \"setup.sh: cairn is ready\"\n";
  return s;
}

std::string runAutograderScript(unsigned totalTimeout) {
  std::string t = std::to_string(totalTimeout);
  return "#!/usr/bin/env bash\n"
         "# cairn autograder: run_autograder. Gradescope runs it for every submission\n"
         "# (from /autograder/run_autograder; the zip is in /autograder/source). It grades\n"
         "# /autograder/submission and always writes /autograder/results/results.json.\n"
         "# AUTOGRADER_ROOT replaces /autograder (for tests).\n"
         "set -u\n"
         "ROOT=\"${AUTOGRADER_ROOT:-/autograder}\"\n"
         "SRC=\"$ROOT/source\"\n"
         "CAIRN=\"$SRC/cairn/install/bin/cairn\"\n"
         "OUT=\"$ROOT/results/results.json\"\n"
         "mkdir -p \"$ROOT/results\"\n"
         "rm -f \"$OUT\" \"$OUT.part\"\n"
         "META=()\n"
         "if [ -f \"$ROOT/submission_metadata.json\" ]; then META=(--metadata \"$ROOT/submission_metadata.json\"); fi\n"
         "rc=0\n"
         "timeout -k 10 " + t + " \"$CAIRN\" grade --assignment \"$SRC/cairn/assignment.json\" \"$ROOT/submission\" \\\n"
         "  --gradescope -o \"$OUT.part\" \"${META[@]}\" || rc=$?\n"
         "if { [ \"$rc\" -eq 0 ] || [ \"$rc\" -eq 1 ]; } && [ -s \"$OUT.part\" ]; then\n"
         "  mv \"$OUT.part\" \"$OUT\"\n"
         "  exit 0\n"
         "fi\n"
         "rm -f \"$OUT.part\"\n"
         "case \"$rc\" in\n"
         "  124) why=\"grading took longer than " + t + " seconds in all, so it was stopped\" ;;\n"
         "  137) why=\"the grader was killed (out of time or memory)\" ;;\n"
         "  126|127) why=\"cairn is not installed in this autograder image (did setup.sh fail?)\" ;;\n"
         "  70) why=\"cairn hit an internal error (a bug in cairn, not in your submission)\" ;;\n"
         "  2) why=\"the autograder is misconfigured (cairn exited with status 2)\" ;;\n"
         "  *) why=\"cairn exited with status $rc\" ;;\n"
         "esac\n"
         "echo \"run_autograder: $why\" >&2\n"
         "printf '{\"score\": 0, \"output\": \"The autograder could not grade this submission: %s. Please tell your "
         "course staff; the details are in the autograder log.\", \"visibility\": \"visible\", \"stdout_visibility\": "
         "\"hidden\", \"tests\": []}\\n' \"$why\" > \"$OUT\"\n"
         "exit 0\n";
}

}  // namespace cairn::grade
