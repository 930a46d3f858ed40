#pragma once
// Helpers for plotting a metric against a chosen x column (step or wall time) with ImGui's
// PlotLines, which spaces its values evenly: the series is resampled on an even x grid first, and
// hovering maps the mouse back to the nearest recorded entry. No ImGui here.
#include <cstddef>
#include <span>
#include <vector>

namespace splat::ui {

// `n` values of y at evenly spaced x from x.front() to x.back(), linearly interpolated between
// entries; x must be ascending and as long as y. With fewer than two entries (or n < 2), y itself.
std::vector<float> resample_even(std::span<const float> x, std::span<const float> y, int n);
// Index of the entry whose x is nearest to `at` (x ascending, not empty).
size_t nearest_index(std::span<const float> x, float at);

}  // namespace splat::ui
