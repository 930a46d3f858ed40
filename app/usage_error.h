#pragma once
// A command line that cannot run as given (options that contradict each other or the run they name,
// a folder named that is not there), told apart from a failure of the work itself: main() prints it
// as one "error:" line and exits with 2, as it does CLI11's own parse errors; other failures exit 1.
#include <stdexcept>

namespace splat::app {

struct UsageError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

}  // namespace splat::app
