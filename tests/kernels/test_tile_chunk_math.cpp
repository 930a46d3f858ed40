// The backward blend's chunk length per call (kernels/tile_chunk_math.h), on the CPU: both blend
// kernels and the dispatch plan read the length this rule gives.
#include <catch2/catch.hpp>

#include "kernels/tile_chunk_math.h"

using splat::kernels::chunk_entries_by_share;

TEST_CASE("chunks by share are three quarters of the call's even share, in whole units", "[raster][chunks]") {
  constexpr int slots = 1056, unit = 256;
  // Bonsai's calls on an H200 (entries an image: 0.82M default, 1.37M MCMC): the lengths that were
  // fastest among the fixed ones at those shares.
  CHECK(chunk_entries_by_share(820'000, slots, unit) == 512);
  CHECK(chunk_entries_by_share(1'370'000, slots, unit) == 1024);
  CHECK(chunk_entries_by_share(2 * 1'370'000, slots, unit) == 2048);
  // To the nearest unit: 3/4 of a share of 1,000 is 750 (3 units), of 600 is 450 (2 units).
  CHECK(chunk_entries_by_share(1000 * int64_t(slots), slots, unit) == 768);
  CHECK(chunk_entries_by_share(600 * int64_t(slots), slots, unit) == 512);
  // Never below one unit, and no division by zero slots.
  CHECK(chunk_entries_by_share(0, slots, unit) == unit);
  CHECK(chunk_entries_by_share(10'000, slots, unit) == unit);
  CHECK(chunk_entries_by_share(10'000, 0, unit) == 7424);
  // Past 2^31 entries (the rasterizer refuses such a call, but the rule stays exact in int64).
  CHECK(chunk_entries_by_share(int64_t(1) << 31, 1024, unit) == 1536 * 1024);
}
