// The CUDA blend kernels' dispatch plan (kernels/cuda/tile_chunks.cuh) against its definition, on
// made-up tile ranges: the order is a permutation, longest first to within a quarter octave and in tile
// order among equal counts, and the chunk records are placed as the definition says, budget included.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "kernels/buffer.h"
#include "kernels/cuda/tile_chunks.cuh"
#include "tests/kernels/device_arrays.h"
#include "tests/support/test_support.h"

using namespace splat;
using kernels::Device;
using test::from;
using test::on;

namespace {

struct Plan {
  std::vector<int32_t> heavy_first;
  std::vector<uint16_t> heavy_entries;
  std::vector<int2> per_tile, work;
  int64_t blocks = 0;
  int entries = 0;  // per chunk, as the plan wrote it for the blend kernels
};

// Plans `counts` (a tile's entries each) with chunks of `chunk` entries (or kChunksByShare), room for `room` entries (the
// budget's bound), `needed` entries in the call and `slots` blocks at once.
Plan plan(const std::vector<int32_t>& counts, int chunk, int64_t room, int64_t needed, int slots) {
  std::vector<int2> ranges;
  int32_t at = 0;
  for (const int32_t n : counts) ranges.push_back(int2{at, at + n}), at += n;
  const auto d_ranges = on(Device::CUDA, ranges);
  const auto d_needed = on(Device::CUDA, std::vector<int64_t>{needed});
  kernels::cuda::TileBins bins;
  bins.entries = room;
  bins.ranges = d_ranges.data();
  kernels::cuda::TileGrid grid;
  grid.cameras = 1;
  grid.total_tiles = int64_t(counts.size());
  grid.total_pixels = grid.total_tiles * 256;
  kernels::cuda::CudaWorkspace ws;
  const kernels::cuda::TileChunks c =
      kernels::cuda::plan_tile_dispatch(bins, grid, chunk, d_needed.data(), slots, ws, 0, nullptr);
  Plan p;
  p.heavy_first = from(Device::CUDA, bins.heavy_first, counts.size());
  p.heavy_entries = from(Device::CUDA, bins.heavy_entries, counts.size());
  if (c.per_tile) {
    p.per_tile = from(Device::CUDA, c.per_tile, counts.size());
    p.work = from(Device::CUDA, c.work, size_t(c.blocks));
    p.blocks = c.blocks;
    p.entries = from(Device::CUDA, c.entries, 1)[0];
  }
  return p;
}

void check_order(const Plan& p, const std::vector<int32_t>& counts) {
  const size_t tiles = counts.size();
  std::vector<int32_t> sorted = p.heavy_first;
  std::sort(sorted.begin(), sorted.end());
  for (size_t i = 0; i < tiles; ++i) REQUIRE(sorted[i] == int32_t(i));  // a permutation
  for (size_t i = 0; i < tiles; ++i)
    REQUIRE(p.heavy_entries[i] == std::min(counts[size_t(p.heavy_first[i])], 0xffff));
  // Longest first to within a quarter octave: nothing later has 1.25x the entries or more; equal
  // counts keep tile order.
  int suffix_max = 0;
  for (size_t i = tiles; i-- > 0;) {
    INFO("position " << i << ": " << p.heavy_entries[i] << " entries, " << suffix_max << " after it");
    REQUIRE(suffix_max < 1.25 * p.heavy_entries[i] + 1);
    suffix_max = std::max<int>(suffix_max, p.heavy_entries[i]);
    if (i + 1 < tiles && p.heavy_entries[i] == p.heavy_entries[i + 1]) REQUIRE(p.heavy_first[i] < p.heavy_first[i + 1]);
  }
}

// The records, straight from the definition: in the order's positions, a tile wants the records
// chunk_records_wanted gives it (tested on the CPU); position i gets min(wanted, budget - before),
// before = min(wanted before i, budget), and its blocks follow those of position i - 1.
void check_chunks(const Plan& p, int chunk, int64_t budget, int64_t needed, int slots) {
  const size_t tiles = p.heavy_first.size();
  REQUIRE(p.blocks == int64_t(tiles) + budget);
  int64_t wanted_before = 0, block = 0;
  for (size_t i = 0; i < tiles; ++i) {
    const int e = p.heavy_entries[i];
    const int64_t wanted = kernels::chunk_records_wanted(e, chunk, slots, needed);
    const int64_t before = std::min(wanted_before, budget), records = std::min(wanted, budget - before);
    INFO("position " << i << ", " << e << " entries");
    REQUIRE(p.per_tile[i].x == before);
    REQUIRE(p.per_tile[i].y == 1 + records);
    for (int64_t k = 0; k <= records; ++k, ++block) {
      REQUIRE(p.work[size_t(block)].x == int(i));
      REQUIRE(p.work[size_t(block)].y == int(k));
    }
    wanted_before += wanted;
  }
  for (; block < p.blocks; ++block) REQUIRE(p.work[size_t(block)].x < 0);
}

}  // namespace

TEST_CASE("CUDA dispatch plan orders tiles longest first and places their chunks as defined", "[raster][gpu]") {
  if (!splat::test::gpu_or_skip("CUDA dispatch plan")) return;
  // 5,000 tiles (five groups of the plan's kernels): most short, equal counts among them, some empty,
  // a few long enough to be split and one past the 16-bit saturation.
  std::mt19937 rng(5);
  std::vector<int32_t> counts(5000);
  for (int32_t& n : counts) n = rng() % 3 == 0 ? 0 : int32_t(rng() % 300);
  for (int i = 0; i < 40; ++i) counts[rng() % counts.size()] = 2000 + int32_t(rng() % 20000);
  counts[4321] = 70000;
  int64_t needed = 0;
  for (const int32_t n : counts) needed += n;
  const int chunk = 512, slots = 660;
  SECTION("a budget of one record a tile") {
    const Plan p = plan(counts, chunk, needed * 2, needed, slots);
    check_order(p, counts);
    const int64_t budget = std::min<int64_t>(int64_t(counts.size()), needed * 2 / chunk);
    REQUIRE(p.entries == chunk);
    check_chunks(p, chunk, budget, needed, slots);
    REQUIRE(p.per_tile[0].y > 1);  // the longest tile is split
  }
  SECTION("chunks by the call's share: the length the rule gives, every record the call wants") {
    const Plan p = plan(counts, kernels::kChunksByShare, needed * 2, needed, slots);
    const int by_share = kernels::chunk_entries_by_share(needed, slots, 256);
    INFO(needed << " entries over " << slots << " slots");
    REQUIRE(by_share > chunk);  // a length no fixed setting above gives
    REQUIRE(p.entries == by_share);
    check_order(p, counts);
    const int64_t budget = kernels::chunk_records_most_by_share(slots);
    check_chunks(p, by_share, budget, needed, slots);
    REQUIRE(p.per_tile[0].y > 1);
    int64_t wanted = 0;
    for (const int32_t n : counts) wanted += kernels::chunk_records_wanted(std::min(n, 0xffff), by_share, slots, needed);
    REQUIRE(wanted > 0);
    REQUIRE(wanted <= budget);  // none left without its records
  }
  SECTION("a budget smaller than the records wanted: the longest tiles get theirs first") {
    const int64_t room = 30 * int64_t(chunk);
    const Plan p = plan(counts, chunk, room, needed, slots);
    check_order(p, counts);
    check_chunks(p, chunk, room / chunk, needed, slots);
  }
  SECTION("no chunks: the order alone, the same again") {
    const Plan p = plan(counts, 0, needed, needed, slots);
    check_order(p, counts);
    REQUIRE(p.per_tile.empty());
    REQUIRE(plan(counts, 0, needed, needed, slots).heavy_first == p.heavy_first);
  }
}
