#include "app/stop_signals.h"

#include <atomic>

namespace splat::app {
namespace {

constexpr int kStopSignals[] = {SIGINT, SIGTERM, SIGHUP};

// Lock-free atomics: the only state a signal handler may touch.
std::atomic<int> g_stop_signal{0};
std::atomic<bool> g_export_requested{false};
static_assert(std::atomic<int>::is_always_lock_free && std::atomic<bool>::is_always_lock_free);

extern "C" void on_stop_signal(int sig) {
  int none = 0;
  g_stop_signal.compare_exchange_strong(none, sig);
}
extern "C" void on_export_signal(int) { g_export_requested = true; }

void install(int sig, void (*handler)(int)) {
  struct sigaction sa {};
  sa.sa_handler = handler;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;  // a read or write in progress goes on instead of failing with EINTR
  sigaction(sig, &sa, nullptr);
}

}  // namespace

StopSignals::StopSignals() {
  g_stop_signal = 0;
  g_export_requested = false;
  for (int sig : kStopSignals) install(sig, on_stop_signal);
  install(SIGUSR1, on_export_signal);
}

StopSignals::~StopSignals() {
  restore_defaults();
  install(SIGUSR1, SIG_DFL);
}

int StopSignals::stop_signal() const { return g_stop_signal.load(); }

bool StopSignals::take_export_request() { return g_export_requested.exchange(false); }

void StopSignals::restore_defaults() {
  for (int sig : kStopSignals) install(sig, SIG_DFL);
}

const char* StopSignals::name(int sig) {
  switch (sig) {
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    case SIGHUP: return "SIGHUP";
    default: return "a signal";
  }
}

}  // namespace splat::app
