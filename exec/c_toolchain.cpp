// Child processes with posix_spawn, a private temporary folder, and the C
// compiler's command line. See exec/c_toolchain.hpp.
//
// Assumes POSIX (posix_spawnp, mkdtemp, waitpid). A timeout is enforced by
// polling waitpid every few milliseconds, then SIGKILL; without one the
// parent simply blocks in waitpid.
#include "exec/c_toolchain.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <sstream>

extern char **environ;

namespace cairn {

std::vector<std::string> splitWords(const char *s) {
  std::vector<std::string> out;
  std::string cur;
  for (const char *p = s; p && *p; ++p) {
    if (*p == ' ' || *p == '\t' || *p == '\n') {
      if (!cur.empty()) out.push_back(std::move(cur));
      cur.clear();
    } else {
      cur += *p;
    }
  }
  if (!cur.empty()) out.push_back(std::move(cur));
  return out;
}

namespace {

bool isExecutable(const std::string &path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

std::string quoteArg(const std::string &a) {
  if (!a.empty() && a.find_first_of(" \t\n'\"\\$`") == std::string::npos) return a;
  std::string q = "'";
  for (char c : a) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

}  // namespace

CCompiler compilerFromEnv() {
  CCompiler c;
  const char *cc = std::getenv("CC");
  const char *cflags = std::getenv("CFLAGS");
  c.cc = splitWords(cc && *cc ? cc : "cc");
  if (c.cc.empty()) c.cc = {"cc"};
  c.cflags = splitWords(cflags ? cflags : "-O2");  // CFLAGS="" means no flags
  return c;
}

bool compilerAvailable(const CCompiler &c) {
  if (c.cc.empty()) return false;
  const std::string &name = c.cc[0];
  if (name.find('/') != std::string::npos) return isExecutable(name);
  const char *path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/local/bin:/usr/bin:/bin";
  size_t pos = 0;
  while (pos <= dirs.size()) {
    size_t colon = dirs.find(':', pos);
    if (colon == std::string::npos) colon = dirs.size();
    std::string dir = dirs.substr(pos, colon - pos);
    if (isExecutable((dir.empty() ? "." : dir) + "/" + name)) return true;
    pos = colon + 1;
  }
  return false;
}

TempDir::TempDir() {
  const char *t = std::getenv("TMPDIR");
  std::string base = t && *t ? t : "/tmp";
  std::string tmpl = base + "/cairn-c-XXXXXX";
  std::vector<char> buf(tmpl.begin(), tmpl.end());
  buf.push_back('\0');
  if (::mkdtemp(buf.data())) path_ = buf.data();
  else error_ = "cannot make a temporary folder under " + base + ": " + std::strerror(errno);
}

TempDir::~TempDir() {
  if (path_.empty()) return;
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

ProcessResult runProcess(const std::vector<std::string> &argv, const ProcessIO &io, const std::vector<std::string> &env,
                         double timeoutSeconds) {
  ProcessResult r;
  if (argv.empty()) {
    r.error = "no command";
    return r;
  }
  // The environment: ours, with `env` replacing entries of the same name.
  std::vector<std::string> envs;
  for (char **e = environ; e && *e; ++e) {
    std::string_view ev(*e);
    bool replaced = false;
    for (const auto &x : env)
      if (x.substr(0, x.find('=') + 1) == ev.substr(0, ev.find('=') + 1)) replaced = true;
    if (!replaced) envs.emplace_back(ev);
  }
  envs.insert(envs.end(), env.begin(), env.end());
  std::vector<char *> envp, args;
  for (auto &e : envs) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::vector<std::string> argCopy = argv;
  for (auto &a : argCopy) args.push_back(a.data());
  args.push_back(nullptr);

  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  if (!io.in.empty()) posix_spawn_file_actions_addopen(&fa, 0, io.in.c_str(), O_RDONLY, 0);
  if (!io.out.empty()) posix_spawn_file_actions_addopen(&fa, 1, io.out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  if (!io.err.empty()) {
    if (io.err == io.out) posix_spawn_file_actions_adddup2(&fa, 1, 2);
    else posix_spawn_file_actions_addopen(&fa, 2, io.err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  }
  pid_t pid = 0;
  int rc = posix_spawnp(&pid, args[0], &fa, nullptr, args.data(), envp.data());
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) {
    r.error = std::strerror(rc);
    return r;
  }
  r.started = true;
  int status = 0;
  if (timeoutSeconds > 0) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeoutSeconds);
    for (;;) {
      pid_t w = ::waitpid(pid, &status, WNOHANG);
      if (w == pid) break;
      if (w < 0 && errno != EINTR) break;
      if (std::chrono::steady_clock::now() >= deadline) {
        ::kill(pid, SIGKILL);
        while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
        r.timedOut = true;
        break;
      }
      struct timespec ts {0, 5'000'000};
      ::nanosleep(&ts, nullptr);
    }
  } else {
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
  }
  if (WIFEXITED(status)) r.exitCode = WEXITSTATUS(status);
  else if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
  return r;
}

std::string signalName(int sig) {
  switch (sig) {
#define CAIRN_SIG(S) \
  case S: return #S;
    CAIRN_SIG(SIGSEGV) CAIRN_SIG(SIGBUS) CAIRN_SIG(SIGFPE) CAIRN_SIG(SIGILL) CAIRN_SIG(SIGABRT) CAIRN_SIG(SIGTRAP)
    CAIRN_SIG(SIGSYS) CAIRN_SIG(SIGKILL) CAIRN_SIG(SIGTERM) CAIRN_SIG(SIGINT) CAIRN_SIG(SIGQUIT) CAIRN_SIG(SIGHUP)
    CAIRN_SIG(SIGPIPE) CAIRN_SIG(SIGALRM) CAIRN_SIG(SIGXCPU) CAIRN_SIG(SIGXFSZ) CAIRN_SIG(SIGUSR1) CAIRN_SIG(SIGUSR2)
#undef CAIRN_SIG
    default: return "signal " + std::to_string(sig);
  }
}

bool isCrashSignal(int sig) {
  return sig == SIGSEGV || sig == SIGBUS || sig == SIGFPE || sig == SIGILL || sig == SIGABRT || sig == SIGTRAP ||
         sig == SIGSYS;
}

int runCompiledProgram(const std::vector<std::string> &argv, const ProcessIO &io, double timeoutSeconds,
                       const std::string &shown, std::ostream &err, bool externs) {
  ProcessResult r = runProcess(argv, io, {}, timeoutSeconds);
  if (!r.started) {
    err << "cairn: error: cannot run the compiled program: " << r.error << '\n';
    return 2;
  }
  if (r.timedOut) {
    err << "cairn: error: the compiled program ran past the time limit of " << timeoutSeconds
        << " s (--timeout) and was stopped\n";
    return 1;
  }
  if (r.signal && externs) {
    err.flush();
    std::fflush(nullptr);
    std::signal(r.signal, SIG_DFL);
    std::raise(r.signal);
    return 128 + r.signal;  // a signal this process ignores or blocks
  }
  if (r.signal && isCrashSignal(r.signal)) {
    err << "cairn: error: internal error: the compiled program of " << shown << " crashed with signal " << r.signal
        << " (" << signalName(r.signal) << ")\n"
        << "cairn: note: the oracle accepted the program, so this is a bug in cairn (the oracle or the emitter); "
           "rerun with `--backend c --check-accesses` (or `--guard-zones`) to find an access out of bounds, or with "
           "`--backend interp`\n";
    return kCompiledCrashStatus;
  }
  if (r.signal) {
    err << "cairn: error: the compiled program of " << shown << " was killed by signal " << r.signal << " ("
        << signalName(r.signal) << ")\n";
    return 2;
  }
  return r.exitCode;
}

bool compileC(const CCompiler &c, const std::string &dir, const std::string &source, const std::string &exe,
              std::string &error, const std::vector<std::string> &libs) {
  std::vector<std::string> argv = c.cc;
  argv.insert(argv.end(), c.cflags.begin(), c.cflags.end());
  for (const char *a : {"-std=c11", "-o"}) argv.emplace_back(a);
  argv.push_back(exe);
  argv.push_back(source);
  argv.emplace_back("-lm");
  argv.insert(argv.end(), libs.begin(), libs.end());
  return runCompiler(argv, dir, "the C compiler", "set CC to a C compiler", error);
}

bool runCompiler(const std::vector<std::string> &argv, const std::string &dir, const std::string &what,
                 const std::string &hint, std::string &error) {
  std::string log = dir + "/cc.log";
  ProcessResult r = runProcess(argv, ProcessIO{"/dev/null", log, log}, {"TMPDIR=" + dir});
  std::string cmd;
  for (const auto &a : argv) cmd += (cmd.empty() ? "" : " ") + quoteArg(a);
  if (!r.started) {
    error = "cannot run " + what + " `" + (argv.empty() ? std::string() : argv[0]) + "`: " + r.error + " (" + hint + ")";
    return false;
  }
  if (r.exitCode == 0 && !r.signal) return true;
  std::string out = readFileText(log);
  if (out.size() > 20000) out = out.substr(0, 20000) + "\n... (output truncated)\n";
  error = what + " failed:\n" + cmd + "\n" + out;
  if (r.signal) error += "(the compiler was killed by signal " + std::to_string(r.signal) + ")\n";
  else if (out.empty()) error += "(exit status " + std::to_string(r.exitCode) + ", no output)\n";
  while (!error.empty() && error.back() == '\n') error.pop_back();
  return false;
}

std::string readFileText(const std::string &path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

bool writeFileText(const std::string &path, const std::string &text) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f << text;
  f.close();
  return static_cast<bool>(f);
}

}  // namespace cairn
