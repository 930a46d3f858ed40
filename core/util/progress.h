#pragma once
// A terminal progress bar for any long loop (image loading, training, export):
// "label  [#####.....]  120/292  41.3/s  ETA 4s". On a TTY it redraws one line in place, cut to
// the terminal's width (a wrapped line would be redrawn as a new line each time); otherwise (logs,
// pipes, CI) it prints a line at a 10 % step or after a few seconds, never two within a second and
// never the same count twice, so that logs stay short (work of under a second prints its final
// line alone) and whoever watches one still sees it move. add() may be called from any thread.
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
// "done in"; format_progress joins them all. Work that continues earlier work (a resumed run) counts
// done and total from the very start, as its other numbers do, and its rate from `done_at_start`, what
// was done when this elapsed time began.
std::vector<ProgressPiece> progress_pieces(const std::string& label, int64_t done, int64_t total, double elapsed_s,
                                           int64_t done_at_start = 0);
std::string format_progress(const std::string& label, int64_t done, int64_t total, double elapsed_s);

// The width of the terminal `out` writes to; 0 when it is not a terminal or does not say.
int terminal_columns(std::FILE* out);

// When the next progress line is due. On a terminal, where the line is redrawn in place: at most
// every tty_interval_s. Elsewhere, where every line stays: when `done` reached a new tenth of the total
// and log_min_gap_s passed since the last line (or the start), or when log_interval_s passed; never
// for a count already shown, and never at the total itself, which the caller's final line shows.
class ProgressCadence {
 public:
  using Clock = std::chrono::steady_clock;
  ProgressCadence(bool tty, int64_t total, double tty_interval_s = 0.25, double log_interval_s = 5.0,
                  double log_min_gap_s = 1.0);
  // Whether a line is due at `now` with `done` of the total done; a true answer counts as drawn.
  bool due(int64_t done, Clock::time_point now);
  bool due(int64_t done) { return due(done, Clock::now()); }

 private:
  bool tty_;
  int64_t total_;
  Clock::duration tty_interval_, log_interval_, log_min_gap_;
  Clock::time_point last_;
  int64_t last_tenth_ = 0;
  int64_t last_done_ = 0;
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
