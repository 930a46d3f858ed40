#include "core/util/progress.h"

#include <algorithm>
#include <cmath>
#include <sys/ioctl.h>
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

std::vector<ProgressPiece> progress_pieces(const std::string& label, int64_t done, int64_t total, double elapsed_s,
                                           int64_t done_at_start) {
  constexpr int kBar = 20;
  const double frac = total > 0 ? std::clamp(static_cast<double>(done) / total, 0.0, 1.0) : 1.0;
  const int filled = static_cast<int>(frac * kBar);
  std::string bar(kBar + 2, '.');
  bar.front() = '[';
  bar.back() = ']';
  std::fill_n(bar.begin() + 1, filled, '#');
  const double rate = elapsed_s > 0 ? static_cast<double>(done - done_at_start) / elapsed_s : 0;
  char count[64], per_s[32];
  std::snprintf(count, sizeof count, "%lld/%lld", static_cast<long long>(done), static_cast<long long>(total));
  std::snprintf(per_s, sizeof per_s, "%.1f/s", rate);
  std::vector<ProgressPiece> pieces{{label, 0}, {bar, 4}, {count, 0}, {per_s, 3}};
  if (done >= total) pieces.push_back({"done in " + format_duration(elapsed_s), 0});
  else if (rate > 0) pieces.push_back({"ETA " + format_duration((total - done) / rate), 0});
  return pieces;
}

std::string format_progress(const std::string& label, int64_t done, int64_t total, double elapsed_s) {
  return fit_progress(progress_pieces(label, done, total, elapsed_s), 0);
}

std::string fit_progress(const std::vector<ProgressPiece>& pieces, int columns) {
  std::vector<bool> kept(pieces.size(), true);
  auto join = [&] {
    std::string line;
    for (size_t i = 0; i < pieces.size(); ++i)
      if (kept[i]) line += (line.empty() ? "" : "  ") + pieces[i].text;
    return line;
  };
  std::string line = join();
  const size_t room = columns > 0 ? size_t(columns - 1) : std::string::npos;
  while (line.size() > room) {
    size_t drop = pieces.size();  // the kept piece dropped first: highest drop_order, the later on ties
    for (size_t i = 0; i < pieces.size(); ++i)
      if (kept[i] && pieces[i].drop_order > 0 && (drop == pieces.size() || pieces[i].drop_order >= pieces[drop].drop_order))
        drop = i;
    if (drop == pieces.size()) return line.substr(0, room);
    kept[drop] = false;
    line = join();
  }
  return line;
}

int terminal_columns(std::FILE* out) {
  winsize ws{};
  if (!out || ioctl(fileno(out), TIOCGWINSZ, &ws) != 0) return 0;
  return ws.ws_col;
}

namespace {
ProgressCadence::Clock::duration seconds(double s) {
  return std::chrono::duration_cast<ProgressCadence::Clock::duration>(std::chrono::duration<double>(s));
}
}  // namespace

ProgressCadence::ProgressCadence(bool tty, int64_t total, double tty_interval_s, double log_interval_s,
                                 double log_min_gap_s)
    : tty_(tty),
      total_(total),
      tty_interval_(seconds(tty_interval_s)),
      log_interval_(seconds(log_interval_s)),
      log_min_gap_(seconds(log_min_gap_s)),
      last_(Clock::now()) {}

bool ProgressCadence::due(int64_t done, Clock::time_point now) {
  bool due = false;
  if (tty_) {
    due = now - last_ >= tty_interval_;
  } else if (done > last_done_ && done < total_) {
    // A tenth passed within the gap is not shown late: the next line comes with a later tenth or the interval.
    const int64_t tenth = total_ > 0 ? 10 * std::max<int64_t>(done, 0) / total_ : 0;
    due = (tenth > last_tenth_ && now - last_ >= log_min_gap_) || now - last_ >= log_interval_;
    last_tenth_ = std::max(last_tenth_, tenth);
  }
  if (due) last_ = now, last_done_ = done;
  return due;
}

Progress::Progress(std::string label, int64_t total, std::FILE* out)
    : label_(std::move(label)),
      total_(total),
      out_(out),
      tty_(out && isatty(fileno(out))),
      start_(std::chrono::steady_clock::now()),
      cadence_(tty_, total) {
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
  if (cadence_.due(done_)) draw_locked(false);
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
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const auto pieces = progress_pieces(label_, done_, total_, elapsed);
  if (tty_) std::fprintf(out_, "\r\033[K%s%s", fit_progress(pieces, terminal_columns(out_)).c_str(), final_line ? "\n" : "");
  else std::fprintf(out_, "%s\n", fit_progress(pieces, 0).c_str());
  std::fflush(out_);
}

}  // namespace splat
