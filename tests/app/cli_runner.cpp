#include "tests/app/cli_runner.h"

#include <array>
#include <atomic>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <sys/wait.h>
#include <unistd.h>

namespace splat::test {
namespace {

namespace fs = std::filesystem;

const fs::path kScratch = fs::path(SPLATLAB_BINARY_DIR) / "test-scratch";

// The private folders every command gets, as shell words.
std::string private_folders() {
  return "export XDG_CONFIG_HOME='" + kScratch.string() + "' XDG_CACHE_HOME='" + (kScratch / "cache").string() + "'; ";
}

// The command line for the shell: private folders, then `exec` so that the shell's process
// becomes splatlab's (a signal sent to the pid reaches splatlab itself).
std::string command_line(const std::string& args, const std::string& cwd) {
  std::string cmd = private_folders();
  if (!cwd.empty()) cmd += "cd '" + cwd + "' && ";
  return cmd + "exec " + splatlab_binary() + " " + args;
}

int exit_code(int status) { return WIFEXITED(status) ? WEXITSTATUS(status) : -1; }

// Runs a shell command line to completion, stdout and stderr together.
CliResult run_shell(const std::string& command) {
  CliResult r;
  FILE* p = popen((command + " 2>&1").c_str(), "r");
  if (!p) throw std::runtime_error("popen failed");
  std::array<char, 4096> buf{};
  while (size_t n = fread(buf.data(), 1, buf.size(), p)) r.out.append(buf.data(), n);
  r.code = exit_code(pclose(p));
  return r;
}

}  // namespace

std::string splatlab_binary() { return "'" SPLATLAB_BINARY_DIR "/app/splatlab'"; }

CliResult run_cli(const std::string& args, const std::string& cwd) { return run_shell(command_line(args, cwd)); }

CliResult run_cli_command(const std::string& command) { return run_shell(private_folders() + command); }

CliProcess::CliProcess(const std::string& args) {
  static std::atomic<int> counter{0};
  fs::create_directories(kScratch);
  log_ = (kScratch / ("cli-process-" + std::to_string(getpid()) + "-" + std::to_string(counter++) + ".log")).string();
  const std::string cmd = command_line(args, "") + " > '" + log_ + "' 2>&1";
  pid_ = fork();
  if (pid_ < 0) throw std::runtime_error("fork failed");
  if (pid_ == 0) {
    execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
}

CliProcess::~CliProcess() {
  if (pid_ <= 0) return;
  kill(pid_, SIGKILL);
  int status = 0;
  waitpid(pid_, &status, 0);
}

CliResult CliProcess::wait() {
  CliResult r;
  int status = 0;
  if (pid_ > 0 && waitpid(pid_, &status, 0) == pid_) r.code = exit_code(status);
  pid_ = -1;
  std::ifstream in(log_);
  std::stringstream ss;
  ss << in.rdbuf();
  r.out = ss.str();
  return r;
}

std::string last_line(const std::string& out) {
  std::string s = out;
  while (!s.empty() && s.back() == '\n') s.pop_back();
  return s.substr(s.rfind('\n') + 1);
}

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

}  // namespace splat::test
