#include "kernels/cuda/tile_chunks.cuh"

#include <algorithm>

#include "kernels/cuda/cuda_check.cuh"
#include "kernels/cuda/projected.cuh"

namespace splat::kernels::cuda {
namespace {

// Workspace slots, relative to first_slot.
enum : int { kCounts, kHeavyFirst, kHeavyEntries, kPerTile, kWork, kAtStart, kDepthAtStart, kAtEnd, kEntries };
static_assert(kEntries + 1 == kTileChunkSlots);

// Tiles per block of the plan's two kernels (a group), and the order's classes of entry counts.
constexpr int kGroup = 1024;
constexpr int kClasses = 65;

// The dispatch order's class of a tile of `entries` entries (saturated at 65535): 0 for none, else
// 1 + 4 log2(entries) + the next two bits. Higher classes go first; a class spans a factor of 2^(1/4)
// in entries, so the order is longest-first to within that, which is all the dispatch needs.
__device__ inline int entry_class(uint32_t entries) {
  if (entries == 0) return 0;
  const int e = 31 - __clz(entries);
  const int m = e >= 2 ? (entries >> (e - 2)) & 3 : (entries << (2 - e)) & 3;
  return 1 + 4 * e + m;
}

// What the plan reads of tile t: its entries (saturated), class, and the records it wants
// (chunk_records_wanted: one per chunk after its first where the tile is longer than a chunk and than the
// chunk share; chunks 0: none, none wanted; kChunksByShare: chunk_entries_by_share).
struct TileWork {
  const int2* ranges;
  unsigned tiles;
  int chunks;
  const int64_t* needed;
  int slots;
  __device__ int chunk() const {
    return chunks == kChunksByShare ? chunk_entries_by_share(*needed, slots, kBlockPixels) : chunks;
  }
  __device__ void of(unsigned t, uint32_t& entries, int& cls, int32_t& wanted) const {
    const int2 r = ranges[t];
    entries = uint32_t(min(r.y - r.x, 0xffff));
    cls = entry_class(entries);
    wanted = chunks ? int32_t(chunk_records_wanted(entries, chunk(), slots, *needed)) : 0;
  }
};

// Per group of kGroup tiles (in index order): its tiles and wanted records per class,
// counts[2 * group * kClasses + class] and counts[(2 * group + 1) * kClasses + class]. The first thread
// writes the call's chunk length for the blend kernels (`entries`, null without chunks).
__global__ void __launch_bounds__(kGroup) count_classes(TileWork tw, int32_t* counts, int* entries) {
  if (entries && blockIdx.x == 0 && threadIdx.x == 0) *entries = tw.chunk();
  __shared__ int32_t n[kClasses], w[kClasses];
  for (int i = threadIdx.x; i < kClasses; i += kGroup) n[i] = w[i] = 0;
  __syncthreads();
  const unsigned t = blockIdx.x * kGroup + threadIdx.x;
  if (t < tw.tiles) {
    uint32_t entries;
    int cls;
    int32_t wanted;
    tw.of(t, entries, cls, wanted);
    atomicAdd(&n[cls], 1);
    if (wanted) atomicAdd(&w[cls], wanted);
  }
  __syncthreads();
  for (int i = threadIdx.x; i < kClasses; i += kGroup) {
    counts[2 * blockIdx.x * kClasses + i] = n[i];
    counts[(2 * blockIdx.x + 1) * kClasses + i] = w[i];
  }
}

// Places each tile of a group: its heavy-first position (higher classes first, index order within a
// class) is the tiles of higher classes, plus those of its class in earlier groups, plus those before
// it in its group; its first record likewise from the wanted records. Then as place_chunks did: the
// records before position i are min(wanted before i, budget), the tile gets what is left of the budget,
// at most its own, and its blocks start at i + (records before it). The blocks past the last item are
// marked empty (x < 0). per_tile/work null: the order alone.
__global__ void __launch_bounds__(kGroup)
    place_tiles(TileWork tw, const int32_t* counts, unsigned groups, int32_t budget, int32_t* heavy_first,
                uint16_t* heavy_entries, int2* per_tile, int2* work, int64_t work_size) {
  __shared__ int32_t all_n[kClasses], all_w[kClasses], base_n[kClasses], base_w[kClasses];
  __shared__ int32_t warp_n[kGroup / 32][kClasses], warp_w[kGroup / 32][kClasses];
  __shared__ int32_t lane_wanted[kGroup / 32][32];
  __shared__ int32_t total_wanted;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  // 1. Per class: all the tiles and records, and those of the groups before this one.
  if (threadIdx.x < kClasses) {
    int32_t an = 0, aw = 0, bn = 0, bw = 0;
    for (unsigned g = 0; g < groups; ++g) {
      const int32_t n = counts[2 * g * kClasses + threadIdx.x], w = counts[(2 * g + 1) * kClasses + threadIdx.x];
      an += n, aw += w;
      if (g < blockIdx.x) bn += n, bw += w;
    }
    all_n[threadIdx.x] = an, all_w[threadIdx.x] = aw, base_n[threadIdx.x] = bn, base_w[threadIdx.x] = bw;
  }
  for (int i = threadIdx.x; i < (kGroup / 32) * kClasses; i += kGroup) (&warp_n[0][0])[i] = (&warp_w[0][0])[i] = 0;
  __syncthreads();
  if (threadIdx.x < kClasses) {
    int32_t hn = 0, hw = 0;  // the higher classes come first
    for (int c = threadIdx.x + 1; c < kClasses; ++c) hn += all_n[c], hw += all_w[c];
    base_n[threadIdx.x] += hn, base_w[threadIdx.x] += hw;
    if (threadIdx.x == 0) total_wanted = hw + all_w[0];
  }
  // 2. Within the group: each warp's tiles of one class, ranked by lane; the warps' counts per class.
  const unsigned t = blockIdx.x * kGroup + threadIdx.x;
  const bool valid = t < tw.tiles;
  uint32_t entries = 0;
  int cls = -1;
  int32_t wanted = 0;
  if (valid) tw.of(t, entries, cls, wanted);
  const unsigned peers = __match_any_sync(0xffffffffu, cls);
  const unsigned before_me = peers & ((1u << lane) - 1u);
  lane_wanted[warp][lane] = wanted;
  __syncwarp();
  int32_t wanted_before = 0, wanted_of_peers = 0;
  for (unsigned m = peers; m; m &= m - 1) {
    const int l = __ffs(m) - 1;
    wanted_of_peers += lane_wanted[warp][l];
    if (l < lane) wanted_before += lane_wanted[warp][l];
  }
  if (valid && before_me == 0) warp_n[warp][cls] = __popc(peers), warp_w[warp][cls] = wanted_of_peers;
  __syncthreads();
  if (threadIdx.x < kClasses) {  // the warps before each warp, per class
    int32_t rn = 0, rw = 0;
    for (int w = 0; w < kGroup / 32; ++w) {
      const int32_t n = warp_n[w][threadIdx.x], ww = warp_w[w][threadIdx.x];
      warp_n[w][threadIdx.x] = rn, warp_w[w][threadIdx.x] = rw;
      rn += n, rw += ww;
    }
  }
  __syncthreads();
  // 3. The tile's place, and its blocks.
  if (valid) {
    const int32_t pos = base_n[cls] + warp_n[warp][cls] + __popc(before_me);
    heavy_first[pos] = int32_t(t);
    heavy_entries[pos] = uint16_t(entries);
    if (per_tile) {
      const int32_t records_before = min(base_w[cls] + warp_w[warp][cls] + wanted_before, budget);
      const int32_t records = min(wanted, budget - records_before);
      per_tile[pos] = make_int2(records_before, 1 + records);
      const int64_t first_block = int64_t(pos) + records_before;
      for (int k = 0; k <= records; ++k) work[first_block + k] = make_int2(pos, k);
    }
  }
  if (work) {
    const int64_t used = int64_t(tw.tiles) + min(total_wanted, budget);
    for (int64_t i = used + int64_t(blockIdx.x) * kGroup + threadIdx.x; i < work_size; i += int64_t(gridDim.x) * kGroup)
      work[i] = make_int2(-1, -1);
  }
}

}  // namespace

TileChunks plan_tile_dispatch(TileBins& bins, const TileGrid& grid, int entries, const int64_t* needed, int slots,
                              CudaWorkspace& ws, int first_slot, cudaStream_t stream) {
  const int64_t tiles = grid.total_tiles;
  if (tiles == 0) return {};
  auto slot = [&](int k) { return first_slot + k; };
  // The records budget: under chunks by share all a call can want (chunk_records_most_by_share); with
  // fixed chunks kRecordsPerTile a tile. Either way no more than the entries hold chunks.
  const int shortest = entries == kChunksByShare ? kBlockPixels : entries;
  const int64_t budget =
      shortest <= 0 || !needed ? 0
      : entries == kChunksByShare
          ? std::min<int64_t>(chunk_records_most_by_share(slots), bins.entries / shortest)
          : std::min<int64_t>(tiles * kRecordsPerTile, bins.entries / shortest);
  const TileWork tw{bins.ranges, unsigned(tiles), budget > 0 ? entries : 0, needed, std::max(slots, 1)};
  const unsigned groups = unsigned((tiles + kGroup - 1) / kGroup);
  int32_t* counts = ws.get<int32_t>(slot(kCounts), size_t(groups) * 2 * kClasses);
  int32_t* heavy_first = ws.get<int32_t>(slot(kHeavyFirst), size_t(tiles));
  uint16_t* heavy_entries = ws.get<uint16_t>(slot(kHeavyEntries), size_t(tiles));
  TileChunks c;
  int2* per_tile = nullptr;
  int2* work = nullptr;
  int* chunk_entries = nullptr;
  if (budget > 0) {
    c.entries = chunk_entries = ws.get<int>(slot(kEntries), 1);
    c.blocks = tiles + budget;
    c.needed = needed;
    c.per_tile = per_tile = ws.get<int2>(slot(kPerTile), size_t(tiles));
    c.work = work = ws.get<int2>(slot(kWork), size_t(c.blocks));
    c.at_start = ws.get<float4>(slot(kAtStart), size_t(budget) * kBlockPixels);
    c.depth_at_start = ws.get<float>(slot(kDepthAtStart), size_t(budget) * kBlockPixels);
    c.at_end = ws.get<float4>(slot(kAtEnd), size_t(grid.total_pixels));
  }
  count_classes<<<groups, kGroup, 0, stream>>>(tw, counts, chunk_entries);
  check_launch("count_classes");
  place_tiles<<<groups, kGroup, 0, stream>>>(tw, counts, groups, int32_t(budget), heavy_first, heavy_entries,
                                            per_tile, work, c.blocks);
  check_launch("place_tiles");
  bins.heavy_first = heavy_first;
  bins.heavy_entries = heavy_entries;
  return c;
}

}  // namespace splat::kernels::cuda
