#include "core/util/progress.h"

#include <algorithm>
#include <cmath>
#include <unistd.h>

namespace splat {
namespace {

std::string format_duration(double s) {
  char buf[32];
  if (s < 60) std::snprintf(buf, sizeof buf, "%.0fs", s);
  else if (s < 3600) std::snprintf(buf, sizeof buf, "%dm%02ds", static_cast<int>(s) / 60, static_cast<int>(s) % 60);
  else std::snprintf(buf, sizeof buf, "%dh%02dm", static_cast<int>(s) / 3600, static_cast<int>(s) / 60 % 60);
  return buf;
}

}  // namespace

std::string format_progress(const std::string& label, int64_t done, int64_t total, double elapsed_s) {
  constexpr int kBar = 20;
  const double frac = total > 0 ? std::clamp(static_cast<double>(done) / total, 0.0, 1.0) : 1.0;
  const int filled = static_cast<int>(frac * kBar);
  std::string bar(kBar + 2, '.');
  bar.front() = '[';
  bar.back() = ']';
  std::fill_n(bar.begin() + 1, filled, '#');
  const double rate = elapsed_s > 0 ? done / elapsed_s : 0;
  char buf[160];
  std::snprintf(buf, sizeof buf, "  %lld/%lld  %.1f/s", static_cast<long long>(done), static_cast<long long>(total), rate);
  std::string line = label + "  " + bar + buf;
  if (done >= total) line += "  done in " + format_duration(elapsed_s);
  else if (rate > 0) line += "  ETA " + format_duration((total - done) / rate);
  return line;
}

Progress::Progress(std::string label, int64_t total, std::FILE* out)
    : label_(std::move(label)),
      total_(total),
      out_(out),
      tty_(out && isatty(fileno(out))),
      start_(std::chrono::steady_clock::now()),
      last_draw_(start_) {
  if (out_ && tty_) {
    std::lock_guard lock(mutex_);
    draw_locked(false);
  }
}

Progress::~Progress() { finish(); }

void Progress::add(int64_t n) {
  std::lock_guard lock(mutex_);
  done_ += n;
  if (!out_ || finished_) return;
  const auto now = std::chrono::steady_clock::now();
  if (tty_) {
    // Redrawing more often than ~10 Hz only costs time.
    if (now - last_draw_ >= std::chrono::milliseconds(100)) draw_locked(false);
  } else if (total_ > 0) {
    const int decile = static_cast<int>(10 * std::min(done_, total_) / total_);
    if (decile > last_decile_ && done_ < total_) {
      last_decile_ = decile;
      draw_locked(false);
    }
  }
}

void Progress::finish() {
  std::lock_guard lock(mutex_);
  if (finished_) return;
  finished_ = true;
  if (out_) draw_locked(true);
}

int64_t Progress::done() const {
  std::lock_guard lock(mutex_);
  return done_;
}

void Progress::draw_locked(bool final_line) {
  last_draw_ = std::chrono::steady_clock::now();
  const double elapsed = std::chrono::duration<double>(last_draw_ - start_).count();
  const std::string line = format_progress(label_, done_, total_, elapsed);
  if (tty_) std::fprintf(out_, "\r\033[K%s%s", line.c_str(), final_line ? "\n" : "");
  else std::fprintf(out_, "%s\n", line.c_str());
  std::fflush(out_);
}

}  // namespace splat
