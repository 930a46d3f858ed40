// Key presses between two frames are all kept, so that a tap shorter than a (slow) frame still
// reaches its shortcut.
#include <catch2/catch.hpp>

#include "ui/key_taps.h"

using splat::ui::KeyTaps;

TEST_CASE("key taps count presses and, on request, auto-repeats until cleared", "[ui][keys]") {
  KeyTaps taps;
  CHECK(taps.presses(70, false) == 0);
  taps.record(70, false);  // F tapped: press (and release) within one frame
  taps.record(93, false);  // ] pressed, then held
  taps.record(93, true);
  taps.record(93, true);
  CHECK(taps.presses(70, false) == 1);
  CHECK(taps.presses(93, false) == 1);
  CHECK(taps.presses(93, true) == 3);
  CHECK(taps.presses(91, true) == 0);
  taps.clear();
  CHECK(taps.presses(70, false) == 0);
  CHECK(taps.presses(93, true) == 0);
}
