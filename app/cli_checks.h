#pragma once
// Checks for command-line values whose refusals read as plain sentences. CLI11's own
// PositiveNumber prints its range as two doubles ("Value 0 not in range 0.000000 to 1797...").
#include <CLI/CLI.hpp>

namespace splat::app {

// A whole number >= min: "--steps: expected a whole number of at least 1, got '0'".
CLI::Validator at_least(long long min);

}  // namespace splat::app
