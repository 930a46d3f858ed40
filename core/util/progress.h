#pragma once
// A terminal progress bar for any long loop (image loading, training, export):
// "label  [#####.....]  120/292  41.3/s  ETA 4s". On a TTY it redraws one line in place, cut to
// the terminal's width (a wrapped line would be redrawn as a new line each time); otherwise (logs,
// pipes, CI) it prints a line at every 10 % step and at least every few seconds, so that logs stay
// short and whoever watches one still sees it move. add() may be called from any thread.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <mutex>
#include <string>
#include <vector>

namespace splat {

// One piece of a progress line. When the line is too wide, pieces are dropped highest
// drop_order first (0: never dropped).
struct ProgressPiece {
  std::string text;
  int drop_order = 0;
};

// The pieces joined by two spaces. With columns > 0 the line is kept shorter than `columns` (a
// line that fills the last column wraps on some terminals): pieces are dropped as above, and what
// still does not fit is cut.
std::string fit_progress(const std::vector<ProgressPiece>& pieces, int columns);

// The pieces of a progress line for a known total: label, bar, done/total, rate, and the ETA or
// "done in"; format_progress joins them all.
std::vector<ProgressPiece> progress_pieces(const std::string& label, int64_t done, int64_t total, double elapsed_s);
std::string format_progress(const std::string& label, int64_t done, int64_t total, double elapsed_s);

// The width of the terminal `out` writes to; 0 when it is not a terminal or does not say.
int terminal_columns(std::FILE* out);

// When the next progress line is due. On a terminal, where the line is redrawn in place: at most
// every tty_interval_s. Elsewhere: at each tenth of the total and at least every log_interval_s.
class ProgressCadence {
 public:
  ProgressCadence(bool tty, int64_t total, double tty_interval_s = 0.25, double log_interval_s = 5.0);
  // Whether a line is due now that `done` of the total are done; a true answer counts as drawn.
  bool due(int64_t done);

 private:
  using Clock = std::chrono::steady_clock;
  bool tty_;
  int64_t total_;
  Clock::duration tty_interval_, log_interval_;
  Clock::time_point last_;
  int64_t last_tenth_ = 0;
};

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
  std::chrono::steady_clock::time_point start_;
  ProgressCadence cadence_;
  mutable std::mutex mutex_;
  int64_t done_ = 0;
  bool finished_ = false;
};

}  // namespace splat
