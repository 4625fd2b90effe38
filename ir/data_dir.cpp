// Data folders relative to the running executable (see data_dir.hpp).
#include "ir/data_dir.hpp"

#include <filesystem>
#include <system_error>

namespace fs = std::filesystem;

namespace cairn {

std::string selfExePath() {
  std::error_code ec;
  fs::path p = fs::read_symlink("/proc/self/exe", ec);
  return ec ? std::string() : p.string();
}

std::string installedDataDir(const std::string &name) {
  std::string exe = selfExePath();
  if (exe.empty()) return "";
  fs::path bin = fs::path(exe).parent_path();
  if (bin.filename() != "bin") return "";
  fs::path d = bin.parent_path() / "share" / "cairn" / name;
  std::error_code ec;
  return fs::is_directory(d, ec) ? d.string() : "";
}

}  // namespace cairn
