// How the backward blend splits long tile lists (kernels/tile_chunk_math.h), on the CPU: the dispatch
// plan and both blend kernels read the chunk length, the split rule and the records budget this gives.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "kernels/tile_chunk_math.h"

using splat::kernels::chunk_entries_by_share;
using splat::kernels::chunk_records_most_by_share;
using splat::kernels::chunk_records_wanted;
using splat::kernels::outlasts_chunk_share;

TEST_CASE("chunks by share are 5/8 of the call's even share, in whole units", "[raster][chunks]") {
  constexpr int slots = 1056, unit = 256;
  // Bonsai's calls on an H200 (entries an image: 0.82M default, 1.37M MCMC; shares of 776, 1297 and 2594
  // entries at one, one and two images a call).
  CHECK(chunk_entries_by_share(820'000, slots, unit) == 512);
  CHECK(chunk_entries_by_share(1'370'000, slots, unit) == 768);
  CHECK(chunk_entries_by_share(2 * 1'370'000, slots, unit) == 1536);
  // To the nearest unit: 5/8 of a share of 1,000 is 625 (2.44 units), of 1,100 is 687 (2.68 units).
  CHECK(chunk_entries_by_share(1000 * int64_t(slots), slots, unit) == 512);
  CHECK(chunk_entries_by_share(1100 * int64_t(slots), slots, unit) == 768);
  // Never below one unit, and no division by zero slots.
  CHECK(chunk_entries_by_share(0, slots, unit) == unit);
  CHECK(chunk_entries_by_share(10'000, slots, unit) == unit);
  CHECK(chunk_entries_by_share(10'000, 0, unit) == 6144);
  // Past 2^31 entries (the rasterizer refuses such a call, but the rule stays exact in int64).
  CHECK(chunk_entries_by_share(int64_t(1) << 31, 1024, unit) == 1280 * 1024);
}

TEST_CASE("a tile is split where it is longer than a chunk and than the chunk share", "[raster][chunks]") {
  constexpr int slots = 1000;
  constexpr int64_t needed = 1'600'000;  // a share of 1,600 entries, the chunk share 1,000
  CHECK_FALSE(outlasts_chunk_share(1000, slots, needed));
  CHECK(outlasts_chunk_share(1001, slots, needed));
  // A tile just under the whole share is split: such a tile was the kernel's tail.
  CHECK(chunk_records_wanted(1590, 768, slots, needed) == 2);
  CHECK(chunk_records_wanted(1000, 768, slots, needed) == 0);  // not past the chunk share
  CHECK(chunk_records_wanted(1001, 768, slots, needed) == 1);
  CHECK(chunk_records_wanted(1536, 768, slots, needed) == 1);  // two full chunks: one record
  CHECK(chunk_records_wanted(1537, 768, slots, needed) == 2);
  // A fixed chunk longer than the chunk share: only tiles longer than a chunk are split.
  CHECK(chunk_records_wanted(1200, 1280, slots, needed) == 0);
  CHECK(chunk_records_wanted(1300, 1280, slots, needed) == 1);
  CHECK(chunk_records_wanted(5000, 0, slots, needed) == 0);  // no chunks
}

TEST_CASE("a call with chunks by share never wants more records than the bound", "[raster][chunks]") {
  constexpr int unit = 256;
  // The worst case for a call of `needed` entries: every entry in tiles just past the chunk share (each
  // wants (entries - 1) / chunk records), and the tiles of the exact length that wants the most records
  // per entry, both compared with the bound; over shares from nothing to many units, where the rounding
  // of the chunk to whole units is the worst.
  for (const int slots : {1, 7, 132, 1056, 2112}) {
    const int64_t most = chunk_records_most_by_share(slots);
    int64_t highest = 0;
    for (int64_t share = 0; share <= 40 * unit; share += share < 4 * unit ? 1 : 7) {
      for (const int64_t extra : {int64_t(0), int64_t(slots - 1)}) {
        const int64_t needed = share * slots + extra;
        const int chunk = chunk_entries_by_share(needed, slots, unit);
        // Tiles of one length each: the lengths past the chunk share, and one past each whole chunk.
        std::vector<int64_t> lengths;
        for (int64_t e = 1; e <= 4; ++e) lengths.push_back(e * chunk + 1);
        lengths.push_back(5 * share / 8 + 1);
        for (const int64_t length : lengths) {
          if (length <= 0 || !outlasts_chunk_share(length, slots, needed)) continue;
          const int64_t tiles = needed / length;
          const int64_t wanted = tiles * chunk_records_wanted(length, chunk, slots, needed);
          highest = std::max(highest, wanted);
          INFO(slots << " slots, " << needed << " entries, chunk " << chunk << ", tiles of " << length);
          REQUIRE(wanted <= most);
        }
      }
    }
    INFO(slots << " slots: most records wanted " << highest << ", bound " << most);
    CHECK(highest >= 2 * slots);  // the bound is close to the worst case
  }
}
