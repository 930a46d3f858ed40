#pragma once
// Runs the built splatlab binary as a user would, for the CLI tests: to completion (run_cli), or
// in the background to be signalled (CliProcess). Each run gets private config and cache folders
// under the build tree, so that the demo scene is generated once for all tests and no user's
// settings leak in.
#include <string>
#include <sys/types.h>

namespace splat::test {

struct CliResult {
  int code = -1;    // the exit status; -1 when the process ended by a signal
  std::string out;  // stdout and stderr together
};

// `splatlab <args>` (args as shell words, quoted by the caller), run in `cwd` when given.
CliResult run_cli(const std::string& args, const std::string& cwd = "");

// `splatlab <args>` started in the background, its output going to a file.
class CliProcess {
 public:
  explicit CliProcess(const std::string& args);
  ~CliProcess();  // kills and reaps a process still running
  CliProcess(const CliProcess&) = delete;
  CliProcess& operator=(const CliProcess&) = delete;

  pid_t pid() const { return pid_; }
  // Waits for the end; the output so far is read from the file.
  CliResult wait();

 private:
  pid_t pid_ = -1;
  std::string log_;
};

// The built binary as a shell word, for command lines that name it themselves (under mpirun).
std::string splatlab_binary();

// A shell command line run as run_cli runs splatlab: with the same private folders, to completion.
CliResult run_cli_command(const std::string& command);

// The last line of a command's output (where an error is).
std::string last_line(const std::string& out);

// How often `what` occurs in `text` (lines of a kind in a command's output).
size_t count(const std::string& text, const std::string& what);

}  // namespace splat::test
