// The progress line's fitting to a terminal and its cadence off one (core/util/progress.h): what
// `train` and the loaders print, so that an 80-column terminal shows one line redrawn in place and
// a piped log shows a line every few seconds.
#include <catch2/catch.hpp>

#include <chrono>
#include <string>
#include <thread>
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

TEST_CASE("progress: off a terminal a line is due each tenth and at least every interval", "[progress]") {
  splat::ProgressCadence tenths(false, 1000, 0.25, 3600.0);
  CHECK_FALSE(tenths.due(50));
  CHECK(tenths.due(100));
  CHECK_FALSE(tenths.due(150));
  CHECK(tenths.due(250));

  splat::ProgressCadence timed(false, 1000000, 0.25, 0.2);
  CHECK_FALSE(timed.due(1));
  std::this_thread::sleep_for(std::chrono::milliseconds(250));
  CHECK(timed.due(2));  // far from a tenth, but the interval has passed
  CHECK_FALSE(timed.due(3));

  splat::ProgressCadence tty(true, 1000, 0.2);
  CHECK_FALSE(tty.due(500));  // a terminal redraws by time only
  std::this_thread::sleep_for(std::chrono::milliseconds(250));
  CHECK(tty.due(501));
}
