#pragma once
// Tile binning in two small sorts instead of one wide one:
//  1. the projected slots that cover a tile are selected and sorted by depth (32-bit keys, one entry
//     per slot): in a dense layout most pairs are culled (about three in four on a room-scale scene),
//     and the sort and the passes after it then run over the covering ones only;
//  2. every slot emits one entry per tile its ellipse reaches (raster::TileRows), in that depth
//     order, and a STABLE radix sort on the (camera, tile) index alone (bits(C * tiles) bits, two
//     8-bit passes for up to 8 cameras at 1080p) groups them by tile keeping depth order inside. The keys are 16-bit
//     wherever C * tiles + 1 fits (less traffic in every pass), 32-bit otherwise;
//  3. (plan_tile_dispatch, tile_chunks.cuh) the tiles are ordered by their entry counts, most first, for
//     the blending kernels: blocks are dispatched roughly in launch order, so the heaviest tiles start
//     first and the light ones fill the tail, instead of a heavy tile that happens to sit late in raster
//     order ending the kernel alone (the longest-job-first rule; a call of few images has few tiles to
//     hide a tail behind).
// Compared with sorting 64-bit (camera, tile, depth) keys this sorts 16- or 32-bit keys over ~15
// bits instead of 64-bit keys over ~45. Ties in depth keep slot order (the depth sort is stable too),
// i.e. increasing global id within a camera (the order kernels::ProjectedGaussians promises).
#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/cuda/cuda_workspace.cuh"
#include "kernels/cuda/projected.cuh"
#include "kernels/phase_timer.h"
#include "kernels/rasterizer.h"

namespace splat::kernels::cuda {

struct TileBins {
  int64_t entries = 0;                     // room for intersections: the planned capacity
  const int32_t* slot_of_entry = nullptr;  // [entries] slot ids sorted by (camera, tile, depth)
  const int2* ranges = nullptr;            // [grid.total_tiles] half-open [begin, end) into slot_of_entry
  // Filled by plan_tile_dispatch (tile_chunks.cuh); null: raster order.
  const int32_t* heavy_first = nullptr;    // [grid.total_tiles] tile indices, most entries first
  const uint16_t* heavy_entries = nullptr;  // [grid.total_tiles] their entry counts (saturated at 65535)
};

// Workspace slots this stage uses, from `first_slot` on.
constexpr int kBinningSlots = 14;

// Room for `capacity` entries and `covering_room` slots that cover a tile, both planned by the host
// from earlier calls (kernels/capacity_plan.h) or counted. Where more slots cover a tile than there is
// room for, the covering slots past the room in slot order are left out; where more entries are
// needed than there is room for, the deepest slots' entries are (the ones most hidden behind the
// others). Unused room gets keys past every tile, so it is sorted last and never blended. Marks the
// stages "depth sort", "emit keys", "tile sort" and "tile ranges" on `timer` (null: none). The tiles'
// dispatch order (heavy_first, heavy_entries) is left to plan_tile_dispatch (tile_chunks.cuh).
// `stores`: how the entries are written (RasterSettings::entry_stores).
TileBins bin_and_sort(const ProjectedSlots& slots, const TileGrid& grid, int64_t capacity, int64_t covering_room,
                      RasterSettings::EntryStores stores, CudaWorkspace& ws, int first_slot, PhaseTimer* timer,
                      cudaStream_t stream);

// Number of bits needed to represent v (0 for v == 0).
inline int bits_for(uint64_t v) {
  int b = 0;
  while (v) {
    ++b;
    v >>= 1;
  }
  return b;
}

}  // namespace splat::kernels::cuda
