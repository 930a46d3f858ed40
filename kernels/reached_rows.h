#pragma once
// The rows a backward call reached (kernels/rasterizer.h, GaussiansGrad::reached): where a call of the
// dense layout is given them, it stores only the reached rows' gradients, and an unreached row's values
// stand for zeros. Every reader of such gradient arrays (Adam, the regularisers) takes a value through
// this one rule, on both backends.
#include <cstdint>

#include "kernels/hd.h"

namespace splat::kernels {

// Whether row `row`'s gradients hold values (true where no rows are named).
SPLAT_HD bool row_reached(const uint8_t* reached, int64_t row) { return !reached || reached[row]; }

// Value v of row `row` of a gradient array as its readers take it: itself where the row was reached,
// zero otherwise.
template <class T>
SPLAT_HD T reached_value(const uint8_t* reached, int64_t row, T v) {
  return row_reached(reached, row) ? v : T(0);
}

}  // namespace splat::kernels
