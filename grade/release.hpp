// `cairn lesson release LESSON_DIR -o DIR`: the students' copy of a lesson.
//
// The copy holds lesson.json, the lesson text, the quiz, and for each
// exercise its statement, its starter and an exercise.json that keeps only
// the visible tests: no reference ("reference": null), no hidden tests (in
// the manifest or in its `hidden_tests` file), no hidden test's seed, no
// `starter_fails`. A visible generated test becomes a test of fixed
// `cases` (its inputs and the reference's expected contents), since the copy
// has no reference to compute them. Only the files the manifests name are
// copied. The lesson must pass `cairn lesson check` first.
#pragma once
#include <iosfwd>
#include <string>

namespace cairn::grade {

enum class ReleaseStatus { Written, LessonBroken, UsageError };

// Writes the copy of the lesson in `dir` into `outDir` (which must not exist
// or be empty). `log` gets one line per file written, or the lesson check's
// findings when the lesson is broken; `why` says what went wrong otherwise.
ReleaseStatus releaseLesson(const std::string &dir, const std::string &outDir, std::ostream &log, std::string &why);

}  // namespace cairn::grade
