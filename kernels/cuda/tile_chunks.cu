#include "kernels/cuda/tile_chunks.cuh"

#include <cub/device/device_scan.cuh>
#include <thrust/iterator/transform_iterator.h>

#include <algorithm>

#include "kernels/cuda/cuda_check.cuh"
#include "kernels/cuda/projected.cuh"

namespace splat::kernels::cuda {
namespace {

// Workspace slots, relative to first_slot.
enum : int { kWanted, kScanTemp, kPerTile, kWork, kAtStart, kDepthAtStart, kAtEnd };
static_assert(kAtEnd + 1 == kTileChunkSlots);

// The records a tile of `entries` entries wants: one per chunk after its first, where the tile is
// longer than the even share of the call's entries over the slots.
struct RecordsWanted {
  int chunk;
  const int64_t* needed;
  int slots;
  __device__ int32_t operator()(uint16_t entries) const {
    return entries > chunk && outlasts_share(entries, slots, *needed) ? (entries - 1) / chunk : 0;
  }
};

// Per heavy-first position i, with wanted_end the inclusive scan of the wanted records: the records
// before i are min(wanted_end_i - b_i, budget), so tile i gets what is left of the budget, at most b_i;
// its blocks start at i + (records before it). The blocks past the last item stay marked empty.
__global__ void place_chunks(const uint16_t* entries, const int32_t* wanted_end, unsigned tiles, RecordsWanted want,
                             int32_t budget, int2* per_tile, int2* work) {
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < tiles; i += gridDim.x * blockDim.x) {
    const int32_t wanted = want(entries[i]);
    const int32_t before = min(wanted_end[i] - wanted, budget);
    const int32_t records = min(wanted, budget - before);
    per_tile[i] = make_int2(before, 1 + records);
    const int64_t first_block = int64_t(i) + before;
    for (int k = 0; k <= records; ++k) work[first_block + k] = make_int2(int(i), k);
  }
}

}  // namespace

TileChunks plan_tile_chunks(const TileBins& bins, const TileGrid& grid, int entries, const int64_t* needed,
                            int slots, CudaWorkspace& ws, int first_slot, cudaStream_t stream) {
  const int64_t tiles = grid.total_tiles;
  if (entries <= 0 || tiles == 0 || !bins.heavy_first || !needed) return {};
  const RecordsWanted want{entries, needed, std::max(slots, 1)};
  const int64_t budget = std::min<int64_t>(tiles * kRecordsPerTile, bins.entries / entries);
  if (budget == 0) return {};
  auto slot = [&](int k) { return first_slot + k; };
  TileChunks c;
  c.entries = entries;
  c.blocks = tiles + budget;
  // A split tile is longer than the even share, so fewer than `slots` tiles are; and each takes a record.
  c.split_most = std::min({tiles, budget, int64_t(want.slots)});
  int32_t* wanted_end = ws.get<int32_t>(slot(kWanted), size_t(tiles));
  {
    auto wanted = thrust::make_transform_iterator(bins.heavy_entries, want);
    size_t bytes = 0;
    check(cub::DeviceScan::InclusiveSum(nullptr, bytes, wanted, wanted_end, tiles, stream), "sizing the chunk scan");
    check(cub::DeviceScan::InclusiveSum(ws.bytes(slot(kScanTemp), bytes), bytes, wanted, wanted_end, tiles, stream),
          "chunk scan");
  }
  int2* per_tile = ws.get<int2>(slot(kPerTile), size_t(tiles));
  int2* work = ws.get<int2>(slot(kWork), size_t(c.blocks));
  check(cudaMemsetAsync(work, 0xff, size_t(c.blocks) * sizeof(int2), stream), "clearing the chunk list");
  place_chunks<<<stride_blocks(tiles, 256), 256, 0, stream>>>(bins.heavy_entries, wanted_end, unsigned(tiles), want,
                                                             int32_t(budget), per_tile, work);
  check_launch("place_chunks");
  c.needed = needed;
  c.per_tile = per_tile;
  c.work = work;
  c.at_start = ws.get<float4>(slot(kAtStart), size_t(budget) * kBlockPixels);
  c.depth_at_start = ws.get<float>(slot(kDepthAtStart), size_t(budget) * kBlockPixels);
  c.at_end = ws.get<float4>(slot(kAtEnd), size_t(grid.total_pixels));
  return c;
}

}  // namespace splat::kernels::cuda
