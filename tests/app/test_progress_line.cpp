// The progress line's fitting to a terminal and its cadence off one (core/util/progress.h): what
// `train` and the loaders print, so that an 80-column terminal shows one line redrawn in place and
// a piped log shows a line every few seconds, at most one a second.
#include <catch2/catch.hpp>

#include <chrono>
#include <string>
#include <vector>

#include "core/util/progress.h"

TEST_CASE("progress: a line wider than the terminal drops its least useful pieces, then is cut", "[progress]") {
  std::vector<splat::ProgressPiece> pieces = splat::progress_pieces("train", 1200, 30000, 60.0);
  pieces.push_back({"loss 0.0432", 1});
  pieces.push_back({"PSNR 23.11", 1});
  pieces.push_back({"123456 G", 2});
  pieces.push_back({"image 1200  step 1200", 5});
  const std::string full = splat::fit_progress(pieces, 0);
  REQUIRE(full.size() > 80);
  CHECK(full.find("image 1200") != std::string::npos);

  const std::string narrow = splat::fit_progress(pieces, 80);
  CHECK(narrow.size() < 80);
  // The counts, the ETA, loss and PSNR stay; the step numbers and the bar go first.
  CHECK(narrow.find("1200/30000") != std::string::npos);
  CHECK(narrow.find("ETA 24m00s") != std::string::npos);
  CHECK(narrow.find("loss 0.0432") != std::string::npos);
  CHECK(narrow.find("PSNR 23.11") != std::string::npos);
  CHECK(narrow.find("step 1200") == std::string::npos);
  CHECK(narrow.find('[') == std::string::npos);
  CHECK(splat::fit_progress(pieces, 120) == full);  // 119 characters fit in 120 columns
  CHECK(splat::fit_progress(pieces, 100) == full.substr(0, full.find("  image")));  // only the first to go dropped

  // Pieces never dropped are cut when nothing else is left to drop.
  const std::string tiny = splat::fit_progress(pieces, 12);
  CHECK(tiny == "train  1200");
}

TEST_CASE("progress: off a terminal a line is due at a tenth a second after the last, or after the interval",
          "[progress]") {
  using Clock = splat::ProgressCadence::Clock;
  using std::chrono::milliseconds;
  // Tenths, at most one line a second: the start counts as a line.
  const Clock::time_point t0 = Clock::now();
  splat::ProgressCadence tenths(false, 1000, 0.25, 3600.0, 1.0);
  CHECK_FALSE(tenths.due(100, t0 + milliseconds(400)));   // a tenth, but within a second of the start
  CHECK_FALSE(tenths.due(150, t0 + milliseconds(1100)));  // a second on, but no new tenth since
  CHECK(tenths.due(200, t0 + milliseconds(1200)));
  CHECK_FALSE(tenths.due(300, t0 + milliseconds(1500)));  // too soon after the last line
  CHECK(tenths.due(400, t0 + milliseconds(2300)));
  CHECK_FALSE(tenths.due(450, t0 + milliseconds(3300)));  // no new tenth
  CHECK_FALSE(tenths.due(1000, t0 + milliseconds(9000)));  // the end: the caller's final line shows it

  // The interval alone, far from any tenth; never twice for the same count.
  splat::ProgressCadence timed(false, 1000000, 0.25, 5.0, 1.0);
  CHECK_FALSE(timed.due(1, t0 + milliseconds(4000)));
  CHECK(timed.due(2, t0 + milliseconds(5100)));
  CHECK_FALSE(timed.due(3, t0 + milliseconds(6000)));
  CHECK_FALSE(timed.due(2, t0 + milliseconds(20000)));  // nothing moved since the last line
  CHECK(timed.due(4, t0 + milliseconds(20000)));

  // Quick work (all of it within the first second) is due no line before its end.
  splat::ProgressCadence quick(false, 60, 0.25, 5.0, 1.0);
  int lines = 0;
  for (int done = 1; done < 60; ++done) lines += quick.due(done, t0 + milliseconds(7 * done));
  CHECK(lines == 0);

  // A terminal redraws by time only.
  splat::ProgressCadence tty(true, 1000, 0.2);
  CHECK_FALSE(tty.due(500, t0 + milliseconds(100)));
  CHECK(tty.due(501, t0 + milliseconds(250)));
}
