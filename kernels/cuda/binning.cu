#include "kernels/cuda/binning.cuh"

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <algorithm>
#include <stdexcept>
#include <string>

#include "kernels/cuda/cuda_check.cuh"
#include "kernels/raster_math.h"

namespace splat::kernels::cuda {
namespace {

// Workspace slots, relative to first_slot.
enum : int {
  kDepthKeysA, kDepthKeysB, kOrderA, kOrderB, kSortedStart,
  kTileKeysA, kTileKeysB, kEntriesA, kEntriesB, kRanges, kTemp, kCoveringSlots, kCoveringCount, kEmitted,
};
static_assert(kEmitted + 1 == kBinningSlots);

// Whether a slot covers a tile: only those are sorted (a culled slot emits nothing).
struct CoversTile {
  const int32_t* tile_count;
  __device__ bool operator()(int32_t slot) const { return tile_count[slot] > 0; }
};

// The depth sort's input, `room` places: the first min(count, room) covering slots (ascending), keyed
// by their depths (raster::depth_sort_key); the places left get a key past every depth and no slot
// (-1), so they sort last and emit nothing.
__global__ void depth_keys(ProjectedSlots s, const int32_t* covering, const int64_t* count, int64_t room,
                           uint32_t* keys, int32_t* order) {
  const int64_t n = min(*count, room);
  for (int64_t k = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; k < room; k += int64_t(gridDim.x) * blockDim.x) {
    const int32_t slot = k < n ? covering[k] : -1;
    keys[k] = slot >= 0 ? raster::depth_sort_key(s.color_depth[slot].w) : (1u << raster::kDepthKeyBits) - 1u;
    order[k] = slot;
  }
}

struct CountOfSlot {
  const int32_t* tile_count;
  const int32_t* order;
  __device__ int32_t operator()(int64_t k) const { return order[k] >= 0 ? tile_count[order[k]] : 0; }
};

// The entries the sorted slots emit: the end of the last one's.
__global__ void emitted_total(const int32_t* sorted_start, const int32_t* tile_count, const int32_t* order,
                              int64_t last, int64_t* emitted) {
  *emitted = int64_t(sorted_start[last]) + CountOfSlot{tile_count, order}(last);
}

// Rows of its ellipse up to which a slot's lane writes the slot's entries alone (emit_entries).
constexpr int kOwnRows = 4;
// emit_entries' block, and the entries each warp stages in shared memory before writing them out.
constexpr int kEmitWarps = 4;
constexpr int kEmitWindow = 1024;

// A warp's window of entries [from, to): put() keeps the entries that fall in it, at keys[at - from]
// and values[at - from] (staged in shared memory, or the output itself past `from`).
template <class Key>
struct EmitWindow {
  Key* keys;
  int32_t* values;
  int from, to;
  __device__ void put(int at, Key key, int32_t value) const {
    keys[at - from] = key;
    values[at - from] = value;
  }
  // The part of [a, b) inside the window.
  __device__ int lo(int a) const { return max(a, from); }
  __device__ int hi(int b) const { return min(b, to); }
};

// A warp per 32 consecutive slots in depth order, a lane per slot. The tiles of a slot are the runs
// its ellipse reaches row by row (raster::TileRows). A slot spanning at most kOwnRows rows (most
// Gaussians: a few tiles) is enumerated by its own lane, row after row, so the warp's slots are worked
// on side by side. The larger ones are then enumerated by groups of 8 lanes, four slots at a time: a
// lane takes every 8th row and places its row's run where a scan of the runs' lengths puts it, so a
// Gaussian covering hundreds of tiles is spread over the lanes instead of serialising one thread.
// The warp's slots own one contiguous range of entries, each lane's run following its neighbour's. A
// store instruction of the warp spans the lanes' runs: a few lines where slots have a few entries, up
// to 32 where they have many. kStaged (stage_entries): the entries are staged in shared memory,
// kEmitWindow at a time, and each window is written out by the whole warp in consecutive addresses;
// the slots are enumerated again for each further window (whole runs before it are skipped, not
// walked). Otherwise each entry is stored where it belongs, in one window spanning the warp's range.
// Should the recomputed tiles ever be fewer than were counted, the surplus gets the key past every
// real (camera, tile): the sort moves it to the end where no range points, so memory stays safe and
// it is never blended. Entries past the count or past `capacity` are not written.
template <class Key, bool kStaged>
__global__ void __launch_bounds__(kEmitWarps * 32)
    emit_entries(ProjectedSlots s, TileGrid grid, const int32_t* order, const int32_t* sorted_start, int64_t slots,
                 int64_t capacity, Key past_last_tile, Key* keys, int32_t* values) {
  __shared__ Key staged_keys[kEmitWarps][kStaged ? kEmitWindow : 1];
  __shared__ int32_t staged_values[kEmitWarps][kStaged ? kEmitWindow : 1];
  const unsigned full = 0xffffffffu;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const int64_t warps = int64_t(gridDim.x) * blockDim.x / 32;
  for (int64_t base = (blockIdx.x * int64_t(blockDim.x) + threadIdx.x) / 32 * 32; base < slots; base += warps * 32) {
    const int64_t k = base + lane;
    int32_t slot = 0, count = 0, room = 0, start = 0;
    float2 m{};
    float4 co{};
    uint32_t cam_base = 0;
    int tiles_x = 0, tiles_y = 0;
    if (k < slots && order[k] >= 0) {
      slot = order[k];
      count = s.tile_count[slot];
      start = sorted_start[k];
      // Past the capacity (a need the plan did not foresee): left out, see bin_and_sort. The start is
      // an int32 scan, negative should the need pass 2^31.
      room = start < 0 ? 0 : int(capacity - start < count ? capacity - start : count);
      const int camera = s.camera(slot) - grid.first_camera;
      if (count > 0 && camera >= 0 && camera < grid.cameras) {  // another call's camera: only sentinels
        m = s.mean2d[slot];
        co = s.conic_opacity[slot];
        const ImageLayout& im = grid.images[camera];
        cam_base = uint32_t(im.tile_offset);
        tiles_x = im.tiles_x, tiles_y = im.tiles_y;
      }
    }
    const raster::TileRows<float> mine(Vec2f{m.x, m.y}, raster::Sym2<float>{co.x, co.y, co.z},
                                       raster::alpha_level_k2(co.w), tiles_x, tiles_y);
    // Another call's camera has no rows: its sentinels are written by a lane group.
    const bool alone = tiles_y > 0 && mine.end_row() - mine.first_row() <= kOwnRows;
    const int end = start + room;  // this lane's entries are [start, end)
    // The warp's entries, [first, last): the lanes' ranges side by side (empty: last = 0).
    const int last = int(__reduce_max_sync(full, room > 0 ? unsigned(end) : 0u));
    const int first = last > 0 ? int(__reduce_min_sync(full, room > 0 ? unsigned(start) : ~0u)) : 0;
    const unsigned large_slots = __ballot_sync(full, room > 0 && !alone);
    for (int from = first; from < last; from += kStaged ? kEmitWindow : last - first) {
      const EmitWindow<Key> win = kStaged
                                      ? EmitWindow<Key>{staged_keys[warp], staged_values[warp], from,
                                                        min(last, from + kEmitWindow)}
                                      : EmitWindow<Key>{keys + from, values + from, from, last};
      if (room > 0 && alone && start < win.to && end > win.from) {
        int at = start;  // the entry of the next tile
        for (int ty = mine.first_row(); ty < mine.end_row() && at < win.to; ++ty) {
          int x0, x1;
          mine.row(ty, x0, x1);
          const uint32_t row_key = cam_base + uint32_t(ty) * tiles_x + x0;
          for (int e = win.lo(at), stop = win.hi(min(at + x1 - x0, end)); e < stop; ++e)
            win.put(e, Key(row_key + (e - at)), slot);
          at += x1 - x0;
        }
        for (int e = win.lo(at), stop = win.hi(end); e < stop; ++e) win.put(e, past_last_tile, slot);
      }
      // The larger slots, four at a time: lane group g (lanes 8g .. 8g + 7) enumerates the g-th of
      // them, its lanes taking rows i, i + 8, ... and placing their runs by a scan within the group.
      // The rounds are as many as the tallest of the four needs, so every lane runs the same shuffles.
      const int group = lane / 8, member = lane % 8;
      for (unsigned large = large_slots; large != 0;) {
        unsigned mine_bit = large;
        for (int g = 0; g < group; ++g) mine_bit &= mine_bit - 1;
        const int src = mine_bit ? __ffs(mine_bit) - 1 : lane;  // an idle group reads its own lane
        for (int g = 0; g < 4; ++g) large &= large - 1;
        const int st = __shfl_sync(full, start, src);
        const int n_of_src = __shfl_sync(full, room, src);
        const int n = mine_bit && st < win.to && st + n_of_src > win.from ? n_of_src : 0;
        const int32_t sl = __shfl_sync(full, slot, src);
        const uint32_t cb = __shfl_sync(full, cam_base, src);
        const int tx = __shfl_sync(full, tiles_x, src);
        const raster::TileRows<float> rows(
            Vec2f{__shfl_sync(full, m.x, src), __shfl_sync(full, m.y, src)},
            raster::Sym2<float>{__shfl_sync(full, co.x, src), __shfl_sync(full, co.y, src),
                                __shfl_sync(full, co.z, src)},
            raster::alpha_level_k2(__shfl_sync(full, co.w, src)), tx, __shfl_sync(full, tiles_y, src));
        const int top = rows.first_row(), spanned = n > 0 ? rows.end_row() - top : 0;
        const int rounds = __reduce_max_sync(full, (spanned + 7) / 8);
        int written = 0;  // by the group's rows before this round's
        for (int round = 0; round < rounds; ++round) {
          const int ty = top + 8 * round + member;
          int x0 = 0, x1 = 0;
          if (ty < top + spanned) rows.row(ty, x0, x1);
          int at = x1 - x0;  // inclusive scan of the run lengths over the group
          for (int off = 1; off < 8; off <<= 1) {
            const int v = __shfl_up_sync(full, at, off, 8);
            if (member >= off) at += v;
          }
          const int total = __shfl_sync(full, at, 7, 8);
          at += st + written - (x1 - x0);
          const uint32_t row_key = cb + uint32_t(ty) * tx + x0;
          for (int e = win.lo(at), stop = win.hi(min(at + x1 - x0, st + n)); e < stop; ++e)
            win.put(e, Key(row_key + (e - at)), sl);
          written += total;
        }
        for (int e = win.lo(st + written) + member, stop = win.hi(st + n); e < stop; e += 8)
          win.put(e, past_last_tile, sl);
      }
      if constexpr (kStaged) {
        __syncwarp();
        for (int e = lane; e < win.to - win.from; e += 32) {
          keys[win.from + e] = win.keys[e];
          values[win.from + e] = win.values[e];
        }
        __syncwarp();
      }
    }
  }
}

// Whether emit_entries stages its entries in shared memory (kStaged): where the slots average so many
// entries that the warp's direct stores spread over many lines each, and the entries outgrow the L2
// cache, so that part-filled sectors go on to memory. Measured on an H100 (bench/TRAINING.md, "Tile
// entries written out by whole warps"): staging took the synthetic 1M- and 3M-Gaussian cases' emit
// (27 entries a slot) from 0.55 to 0.23 ms and from 1.56 to 0.58, and made bonsai's 1.5x slower at
// batch 1, also where each warp chose by its own slots' entries; this rule keeps the direct stores on
// bonsai and cup (their emit 0.042 and 0.033 ms a step at batch 1, against 0.043 and 0.038 before).
bool stage_entries(int64_t entries, int64_t slots, size_t entry_bytes) {
  constexpr int64_t kStagedPerSlot = 16;
  if (entries < kStagedPerSlot * slots) return false;
  int device = 0, l2 = 0;
  check(cudaGetDevice(&device), "asking for the current device");
  check(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device), "asking for the L2 cache size");
  return double(entries) * double(entry_bytes) > double(l2);
}

// The emitted entries inside the room: the total clamped to [0, capacity] (below 0 where the int32 entry
// offsets wrapped, for a need past 2^31 before the plan caught up).
__device__ inline int64_t emitted_in_room(const int64_t* emitted, int64_t capacity) {
  return max(int64_t(0), min(*emitted, capacity));
}
// Threads of the kernels below that take 16 bytes of a room of `capacity` keys each.
template <class Key>
int64_t key_groups(int64_t capacity) {
  return capacity * int64_t(sizeof(Key)) / 16 + 1;
}

// The room the entries did not take, [min(emitted, capacity), capacity): keys past every tile, stored
// 16 bytes at a time (the part-groups at either end key by key). The host does not know where the room
// starts, so the grid is sized for the whole room but capped: each thread strides over the groups.
// One thread per key over the whole room took 46 us at 1M Gaussians, most of it blocks that had
// nothing to write (bench/TRAINING.md, "The tile ranges and the unused room 16 bytes a thread").
constexpr unsigned kFillBlocks = 1024;
template <class Key>
__global__ void fill_unused(const int64_t* emitted, int64_t capacity, Key past_last_tile, Key* keys) {
  constexpr int64_t kPer = sizeof(uint4) / sizeof(Key);
  const int64_t from = emitted_in_room(emitted, capacity);
  const int64_t first_group = (from + kPer - 1) / kPer, end_group = capacity / kPer;  // whole groups in the room
  const int64_t t = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (t < kPer) {
    if (from + t < min(first_group * kPer, capacity)) keys[from + t] = past_last_tile;
    if (end_group * kPer + t >= from && end_group * kPer + t < capacity) keys[end_group * kPer + t] = past_last_tile;
  }
  Key group[kPer];
  for (Key& k : group) k = past_last_tile;
  uint4 v;
  memcpy(&v, group, sizeof v);
  for (int64_t g = first_group + t; g < end_group; g += int64_t(gridDim.x) * blockDim.x)
    reinterpret_cast<uint4*>(keys)[g] = v;
}

// Range boundaries: where consecutive entries i, i + 1 differ in tile, i ends its tile's range and
// i + 1 starts the next one (the first entry starts one too). Only the emitted entries are read: the
// room past them holds the sentinel, which no range takes. Each thread compares the 16 bytes of keys
// it loads at once (and the next key): one thread per pair was bound by its instructions, and read
// the whole planned room. 32-bit indices (M < 2^31).
template <class Key>
__global__ void find_ranges(const Key* keys, const int64_t* emitted, unsigned capacity, Key past_last_tile,
                            int2* ranges) {
  constexpr unsigned kPer = sizeof(uint4) / sizeof(Key);
  const unsigned n = unsigned(emitted_in_room(emitted, capacity));
  for (unsigned t = blockIdx.x * blockDim.x + threadIdx.x; t * kPer < n; t += gridDim.x * blockDim.x) {
    const unsigned base = t * kPer;
    Key k[kPer + 1];
    if (base + kPer <= n) {
      const uint4 v = reinterpret_cast<const uint4*>(keys)[t];
      memcpy(k, &v, sizeof v);
    } else {
      for (unsigned j = 0; j < kPer; ++j) k[j] = base + j < n ? keys[base + j] : past_last_tile;
    }
    k[kPer] = base + kPer < n ? keys[base + kPer] : past_last_tile;
    if (base == 0 && k[0] < past_last_tile) ranges[k[0]].x = 0;
#pragma unroll
    for (unsigned j = 0; j < kPer; ++j) {
      if (k[j] == k[j + 1]) continue;
      if (k[j] < past_last_tile) ranges[k[j]].y = int(base + j + 1);
      if (k[j + 1] < past_last_tile) ranges[k[j + 1]].x = int(base + j + 1);
    }
  }
}

template <class K, class V>
cub::DoubleBuffer<V> radix_sort(CudaWorkspace& ws, int temp_slot, cub::DoubleBuffer<K>& keys, V* va, V* vb, int64_t n,
                                int end_bit, cudaStream_t stream, const char* what) {
  cub::DoubleBuffer<V> vals(va, vb);
  size_t bytes = 0;
  check(cub::DeviceRadixSort::SortPairs(nullptr, bytes, keys, vals, static_cast<int>(n), 0, end_bit, stream), what);
  void* temp = ws.bytes(temp_slot, bytes);
  check(cub::DeviceRadixSort::SortPairs(temp, bytes, keys, vals, static_cast<int>(n), 0, end_bit, stream), what);
  return vals;
}

// Emits the entries of the slots in depth order with Key-typed (camera, tile) keys, sorts them stably
// by tile (bits_for(past_last_tile) bits: the sentinel needs them too) and finds the tile ranges.
// Returns the slot of each sorted entry.
template <class Key>
const int32_t* group_by_tile(const ProjectedSlots& slots, const TileGrid& grid, const int32_t* order,
                             const int32_t* sorted_start, int64_t S, int64_t M, const int64_t* emitted,
                             uint32_t past_last_tile, int2* ranges, RasterSettings::EntryStores stores,
                             CudaWorkspace& ws, int first_slot, PhaseTimer* timer, cudaStream_t stream) {
  auto slot = [&](int k) { return first_slot + k; };
  const Key sentinel = static_cast<Key>(past_last_tile);
  Key* tk_a = ws.get<Key>(slot(kTileKeysA), M);
  int32_t* ent_a = ws.get<int32_t>(slot(kEntriesA), M);
  const unsigned blocks = stride_blocks(S, kEmitWarps * 32);
  using Stores = RasterSettings::EntryStores;
  const bool staged = stores == Stores::Automatic ? stage_entries(M, S, sizeof(Key) + sizeof(int32_t))
                                                  : stores == Stores::Staged;
  if (staged)
    emit_entries<Key, true><<<blocks, kEmitWarps * 32, 0, stream>>>(slots, grid, order, sorted_start, S, M, sentinel,
                                                                   tk_a, ent_a);
  else
    emit_entries<Key, false><<<blocks, kEmitWarps * 32, 0, stream>>>(slots, grid, order, sorted_start, S, M, sentinel,
                                                                    tk_a, ent_a);
  check_launch("emit_entries");
  fill_unused<<<std::min(stride_blocks(key_groups<Key>(M), 256), kFillBlocks), 256, 0, stream>>>(emitted, M, sentinel,
                                                                                                tk_a);
  check_launch("fill_unused");
  if (timer) timer->mark("emit keys");

  cub::DoubleBuffer<Key> tkeys(tk_a, ws.get<Key>(slot(kTileKeysB), M));
  const int32_t* sorted = radix_sort(ws, slot(kTemp), tkeys, ent_a, ws.get<int32_t>(slot(kEntriesB), M), M,
                                     bits_for(past_last_tile), stream, "tile sort")
                              .Current();
  if (timer) timer->mark("tile sort");

  find_ranges<<<stride_blocks(key_groups<Key>(M), 256), 256, 0, stream>>>(
      tkeys.Current(), emitted, static_cast<unsigned>(M), sentinel, ranges);
  check_launch("find_ranges");
  if (timer) timer->mark("tile ranges");
  return sorted;
}

}  // namespace

TileBins bin_and_sort(const ProjectedSlots& slots, const TileGrid& grid, int64_t capacity, int64_t covering_room,
                      RasterSettings::EntryStores stores, CudaWorkspace& ws, int first_slot, PhaseTimer* timer,
                      cudaStream_t stream) {
  if (capacity >= (int64_t(1) << 31))
    throw std::runtime_error("CUDA rasterizer: " + std::to_string(capacity) +
                             " tile intersections exceed the 2^31 the sorted index supports");
  if (slots.count >= (int64_t(1) << 31))
    throw std::runtime_error("CUDA rasterizer: more than 2^31 projected pairs in one call");
  const uint64_t tiles_total = uint64_t(grid.total_tiles);
  if (tiles_total >= (uint64_t(1) << 31)) throw std::runtime_error("CUDA rasterizer: too many cameras x tiles");
  const uint32_t past_last_tile = static_cast<uint32_t>(tiles_total);
  auto slot = [&](int k) { return first_slot + k; };

  TileBins bins;
  bins.entries = capacity;
  int2* ranges = ws.get<int2>(slot(kRanges), tiles_total);
  check(cudaMemsetAsync(ranges, 0, tiles_total * sizeof(int2), stream), "clearing tile ranges");
  bins.ranges = ranges;
  const int64_t S = std::min(std::max<int64_t>(covering_room, 1), slots.count), M = capacity;
  if (capacity == 0 || slots.count == 0) {  // nothing to blend: every tile is empty, raster order will do
    bins.slot_of_entry = ws.get<int32_t>(slot(kEntriesA), 1);
    return bins;
  }

  // 1. The slots that cover a tile, in depth order: S places (the plan's room for them).
  int32_t* covering = ws.get<int32_t>(slot(kCoveringSlots), slots.count);
  int64_t* covering_count = ws.get<int64_t>(slot(kCoveringCount), 1);
  {
    const thrust::counting_iterator<int32_t> all(0);
    size_t bytes = 0;
    check(cub::DeviceSelect::If(nullptr, bytes, all, covering, covering_count, slots.count,
                                CoversTile{slots.tile_count}, stream),
          "sizing the covering slots");
    check(cub::DeviceSelect::If(ws.bytes(slot(kTemp), bytes), bytes, all, covering, covering_count, slots.count,
                                CoversTile{slots.tile_count}, stream),
          "selecting the covering slots");
  }
  uint32_t* dk_a = ws.get<uint32_t>(slot(kDepthKeysA), S);
  int32_t* order_a = ws.get<int32_t>(slot(kOrderA), S);
  depth_keys<<<stride_blocks(S, 256), 256, 0, stream>>>(slots, covering, covering_count, S, dk_a, order_a);
  check_launch("depth_keys");
  cub::DoubleBuffer<uint32_t> dkeys(dk_a, ws.get<uint32_t>(slot(kDepthKeysB), S));
  const int32_t* order =
      radix_sort(ws, slot(kTemp), dkeys, order_a, ws.get<int32_t>(slot(kOrderB), S), S, raster::kDepthKeyBits, stream, "depth sort")
          .Current();
  // Entry offsets of the slots in depth order (int32: the room is below 2^31, checked above; a need past
  // 2^31 before the plan has caught up wraps them, and the kernels after clamp where they read the total).
  int32_t* sorted_start = ws.get<int32_t>(slot(kSortedStart), S);
  {
    auto counts = thrust::make_transform_iterator(thrust::counting_iterator<int64_t>(0),
                                                  CountOfSlot{slots.tile_count, order});
    size_t bytes = 0;
    check(cub::DeviceScan::ExclusiveSum(nullptr, bytes, counts, sorted_start, S, stream), "sizing entry offsets");
    check(cub::DeviceScan::ExclusiveSum(ws.bytes(slot(kTemp), bytes), bytes, counts, sorted_start, S, stream),
          "entry offsets");
  }
  int64_t* emitted = ws.get<int64_t>(slot(kEmitted), 1);
  emitted_total<<<1, 1, 0, stream>>>(sorted_start, slots.tile_count, order, S - 1, emitted);
  check_launch("emitted_total");
  if (timer) timer->mark("depth sort");

  // 2. + 3. Entries in depth order, keyed by (camera, tile), then grouped by tile. 16-bit keys halve
  // the key traffic of the emission and of every sort pass where the tiles of all cameras (and the
  // sentinel) fit: up to 8 cameras at 1080p.
  if (past_last_tile <= 0xffffu)
    bins.slot_of_entry = group_by_tile<uint16_t>(slots, grid, order, sorted_start, S, M, emitted, past_last_tile,
                                                 ranges, stores, ws, first_slot, timer, stream);
  else
    bins.slot_of_entry = group_by_tile<uint32_t>(slots, grid, order, sorted_start, S, M, emitted, past_last_tile,
                                                 ranges, stores, ws, first_slot, timer, stream);
  return bins;
}

}  // namespace splat::kernels::cuda
