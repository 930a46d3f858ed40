#pragma once
// The signals a headless run answers by saving: SIGINT (Ctrl-C), SIGTERM (kill, systemd, a batch
// scheduler's time limit) and SIGHUP (the terminal or SSH session closed) stop it after the
// current step with a checkpoint and the PLY; SIGUSR1 asks for the PLY without stopping. The
// handlers only set flags, read at step boundaries.
#include <csignal>

namespace splat::app {

class StopSignals {
 public:
  StopSignals();   // installs the handlers
  ~StopSignals();  // restores the default actions
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

  // The stop signal received first (SIGINT, SIGTERM or SIGHUP), 0 while none.
  int stop_signal() const;
  // Whether a SIGUSR1 arrived since the last call.
  bool take_export_request();
  // From here on a stop signal acts as it does by default (ends the process): a second Ctrl-C
  // while the run is being saved is not ignored.
  void restore_defaults();

  // The shell's convention for a process ended by `sig`: 128 + sig (130, 143, 129).
  static int exit_code(int sig) { return 128 + sig; }
  static const char* name(int sig);
};

}  // namespace splat::app
