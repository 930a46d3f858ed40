#pragma once
// A terminal progress bar for any long loop (image loading, training, export):
// "label  [#####.....]  120/292  41.3/s  ETA 4s". On a TTY it redraws one line in place;
// otherwise (logs, CI) it prints a line at every 10 % step so logs stay short.
// add() may be called from any thread.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <mutex>
#include <string>

namespace splat {

// The text of one progress line (no newline or carriage return), for a known total.
std::string format_progress(const std::string& label, int64_t done, int64_t total, double elapsed_s);

class Progress {
 public:
  // out == nullptr keeps it silent (callers that were asked to be quiet).
  Progress(std::string label, int64_t total, std::FILE* out = stderr);
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  void add(int64_t n = 1);
  // Prints the final line once; later calls and the destructor do nothing more.
  void finish();
  int64_t done() const;

 private:
  void draw_locked(bool final_line);

  std::string label_;
  int64_t total_;
  std::FILE* out_;
  bool tty_;
  std::chrono::steady_clock::time_point start_, last_draw_;
  mutable std::mutex mutex_;
  int64_t done_ = 0;
  int last_decile_ = 0;
  bool finished_ = false;
};

}  // namespace splat
