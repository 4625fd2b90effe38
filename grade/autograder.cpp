// Writing a Gradescope autograder zip (see autograder.hpp).
//
// The zip is staged in a private temporary folder first, and the staged
// assignment is loaded back (its exercises, references and tests) before
// anything is zipped, so a zip that is written always grades: an exercise
// that reads files outside its own folder fails here, not on Gradescope.
// The staging folder is removed on every path. Zipping is libarchive's,
// loaded only here (ir/lazy_lib.hpp: every other command starts without it).
#include "grade/autograder.hpp"

#include <archive.h>
#include <archive_entry.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "ir/data_dir.hpp"
#include "ir/lazy_lib.hpp"

#ifndef CAIRN_LIBARCHIVE_SONAME
#define CAIRN_LIBARCHIVE_SONAME "libarchive.so.13"
#endif
#ifndef CAIRN_SOURCE_TREE
#define CAIRN_SOURCE_TREE ""
#endif

namespace fs = std::filesystem;
using nlohmann::json;

namespace cairn::grade {

namespace {

// The folders of the source tree setup.sh builds (with CMakeLists.txt).
const char *const kSourceFolders[] = {"ir", "oracle", "exec", "grade", "lower", "runtime", "std", "tools"};
constexpr time_t kZipTime = 1767225600;  // 2026-01-01T00:00:00Z: every entry's time

struct Staging {
  fs::path dir;
  ~Staging() {
    std::error_code ec;
    if (!dir.empty()) fs::remove_all(dir, ec);
  }
};

bool writeFile(const fs::path &p, const std::string &text, bool exec, std::string &why) {
  std::error_code ec;
  fs::create_directories(p.parent_path(), ec);
  std::ofstream f(p, std::ios::binary | std::ios::trunc);
  f << text;
  f.close();
  if (!f) {
    why = p.string() + ": cannot write";
    return false;
  }
  fs::permissions(p, exec ? fs::perms(0755) : fs::perms(0644), ec);
  return true;
}

// Copies the regular files under `from` (links and special files are left
// out, and so are build folders) to `to`.
bool copyTree(const fs::path &from, const fs::path &to, std::string &why) {
  std::error_code ec;
  fs::create_directories(to, ec);
  fs::recursive_directory_iterator it(from, fs::directory_options::none, ec), end;
  if (ec) {
    why = from.string() + ": cannot list: " + ec.message();
    return false;
  }
  for (; it != end; it.increment(ec)) {
    if (ec) break;
    fs::file_status st = it->symlink_status(ec);
    std::string name = it->path().filename().string();
    if (fs::is_directory(st) && (name.rfind("build", 0) == 0 || name == ".git")) {
      it.disable_recursion_pending();
      continue;
    }
    if (!fs::is_regular_file(st)) continue;
    fs::path dst = to / fs::relative(it->path(), from, ec);
    fs::create_directories(dst.parent_path(), ec);
    if (!fs::copy_file(it->path(), dst, fs::copy_options::overwrite_existing, ec)) {
      why = it->path().string() + ": cannot copy: " + ec.message();
      return false;
    }
  }
  if (ec) {
    why = from.string() + ": " + ec.message();
    return false;
  }
  return true;
}

bool stageLessons(const Assignment &a, const fs::path &cairn, std::string &why) {
  std::string text, readWhy;
  if (!readFileCapped(a.path, 1 << 20, text, readWhy)) {
    why = readWhy;
    return false;
  }
  json m = json::parse(text, nullptr, false);
  std::set<std::string> copied;
  for (size_t i = 0; i < a.parts.size(); ++i) {
    const Exercise &ex = a.parts[i].exercise;
    std::string rel = "lessons/" + ex.id;
    if (copied.insert(ex.id).second && !copyTree(ex.dir, cairn / rel, why)) return false;
    m["exercises"][i]["exercise"] = rel;
  }
  return writeFile(cairn / "assignment.json", m.dump(2) + "\n", false, why);
}

bool stageCairn(const AutograderOptions &o, const fs::path &cairn, std::string &why) {
  if (o.embedBinary) {
    std::error_code ec;
    fs::create_directories(cairn / "install/bin", ec);
    if (!fs::copy_file(o.binaryPath, cairn / "install/bin/cairn", ec)) {
      why = o.binaryPath + ": cannot copy: " + ec.message();
      return false;
    }
    fs::permissions(cairn / "install/bin/cairn", fs::perms(0755), ec);
    return copyTree(o.stdDir, cairn / "install/share/cairn/std", why);
  }
  if (o.sourceDir.empty() || !fs::is_regular_file(fs::path(o.sourceDir) / "CMakeLists.txt")) {
    why = "no cairn source tree to pack (" + (o.sourceDir.empty() ? std::string("none found") : o.sourceDir) +
          " has no CMakeLists.txt); give --source DIR, or --embed binary";
    return false;
  }
  std::error_code ec;
  fs::create_directories(cairn / "src", ec);
  if (!fs::copy_file(fs::path(o.sourceDir) / "CMakeLists.txt", cairn / "src/CMakeLists.txt", ec)) {
    why = "cannot copy CMakeLists.txt: " + ec.message();
    return false;
  }
  for (const char *d : kSourceFolders)
    if (!copyTree(fs::path(o.sourceDir) / d, cairn / "src" / d, why)) return false;
  return true;
}

// Every regular file under `root`, relative, sorted.
std::vector<std::string> listFiles(const fs::path &root) {
  std::vector<std::string> files;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec))
    if (it->is_regular_file(ec)) files.push_back(fs::relative(it->path(), root, ec).generic_string());
  std::sort(files.begin(), files.end());
  return files;
}

// The libarchive functions zipFolder calls, from the library when the first
// zip is written; false after saying why when it cannot be loaded.
struct ArchiveApi {
#define CAIRN_ARCHIVE_FNS(X)                                                                                   \
  X(archive_write_new) X(archive_write_set_format_zip) X(archive_write_open_filename) X(archive_entry_new)     \
  X(archive_entry_set_pathname) X(archive_entry_set_size) X(archive_entry_set_filetype) X(archive_entry_set_perm) \
  X(archive_entry_set_mtime) X(archive_write_header) X(archive_write_data) X(archive_entry_free)              \
  X(archive_error_string) X(archive_write_close) X(archive_write_free)
#define CAIRN_E(f) decltype(&::f) f = nullptr;
  CAIRN_ARCHIVE_FNS(CAIRN_E)
#undef CAIRN_E
  bool load(std::string &why) {
    static LazyLib lib{CAIRN_LIBARCHIVE_SONAME, "libarchive.so"};
    bool ok = true;
#define CAIRN_E(f) ok = ok && (f = lib.get<decltype(&::f)>(#f, why)) != nullptr;
    CAIRN_ARCHIVE_FNS(CAIRN_E)
#undef CAIRN_E
    return ok;
  }
#undef CAIRN_ARCHIVE_FNS
};

bool zipFolder(const fs::path &root, const std::vector<std::string> &files, const std::string &out, std::string &why) {
  ArchiveApi a;
  if (!a.load(why)) {
    why = out + ": " + why;
    return false;
  }
  archive *z = a.archive_write_new();
  a.archive_write_set_format_zip(z);
  bool ok = a.archive_write_open_filename(z, out.c_str()) == ARCHIVE_OK;
  for (size_t i = 0; ok && i < files.size(); ++i) {
    std::ifstream in(root / files[i], std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    std::string data = ss.str();
    struct stat st {};
    ::stat((root / files[i]).c_str(), &st);
    archive_entry *e = a.archive_entry_new();
    a.archive_entry_set_pathname(e, files[i].c_str());
    a.archive_entry_set_size(e, static_cast<la_int64_t>(data.size()));
    a.archive_entry_set_filetype(e, AE_IFREG);
    a.archive_entry_set_perm(e, (st.st_mode & 0111) ? 0755 : 0644);
    a.archive_entry_set_mtime(e, kZipTime, 0);
    ok = a.archive_write_header(z, e) == ARCHIVE_OK &&
         (data.empty() || a.archive_write_data(z, data.data(), data.size()) == static_cast<la_ssize_t>(data.size()));
    a.archive_entry_free(e);
  }
  const char *err = a.archive_error_string(z);
  if (!ok) why = out + ": " + (err ? err : "cannot write the zip");
  if (a.archive_write_close(z) != ARCHIVE_OK && ok) {
    err = a.archive_error_string(z);
    why = out + ": " + (err ? err : "cannot finish the zip");
    ok = false;
  }
  a.archive_write_free(z);
  return ok;
}

}  // namespace

std::string defaultSourceDir() {
  std::error_code ec;
  if (std::string d = installedDataDir("src"); !d.empty() && fs::is_regular_file(fs::path(d) / "CMakeLists.txt", ec))
    return d;
  std::string tree = CAIRN_SOURCE_TREE;
  if (!tree.empty() && fs::is_regular_file(fs::path(tree) / "CMakeLists.txt", ec)) return tree;
  return "";
}

bool writeAutograder(const Assignment &a, const AutograderOptions &o, std::vector<std::string> &listing,
                     std::string &why) {
  Staging stage;
  char tmpl[] = "/tmp/cairn-autograder-XXXXXX";
  if (!::mkdtemp(tmpl)) {
    why = "cannot create a temporary folder";
    return false;
  }
  stage.dir = tmpl;
  fs::path cairn = stage.dir / "cairn";
  if (!writeFile(stage.dir / "setup.sh", setupScript(o.embedBinary), true, why) ||
      !writeFile(stage.dir / "run_autograder", runAutograderScript(o.totalTimeout), true, why) ||
      !stageLessons(a, cairn, why) || !stageCairn(o, cairn, why))
    return false;
  Assignment check;
  std::vector<std::string> errors;
  if (!loadAssignment((cairn / "assignment.json").string(), {}, check, errors)) {
    why = "the packed assignment does not load (an exercise uses files outside its folder?):";
    for (const std::string &e : errors) why += "\n  " + e;
    return false;
  }
  listing = listFiles(stage.dir);
  return zipFolder(stage.dir, listing, o.out, why);
}

}  // namespace cairn::grade
