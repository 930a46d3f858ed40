#pragma once
// Long tile lists split into chunks for the backward blend.
//
// A blend kernel runs one block per tile, and a block replays its tile's list alone: the heaviest tile
// of a call (thousands of entries where the scene is dense) sets a floor under the kernel's time
// whatever the other tiles do. With few images per call (small batches, or a batch shared by ranks)
// that floor is most of the kernel: bonsai's backward blend cost about 0.49 ms per call on top of its
// cost per image (docs/ARCHITECTURE.md, "Splitting long tile lists"). So the backward takes a long list
// in chunks of `entries` entries, each chunk a block of its own. A chunk replays its entries back to
// front from the state the replay would have reached coming from the end of the list
// (raster::replay_resume); forward keeps what that needs: one record per pixel at each chunk start
// (T and the colour and depth sums so far) and the pixel's sums at its end.
//
// The tiles' dispatch order is planned here too (TileBins::heavy_first, heavy_entries): most entries
// first, by classes of entry counts a quarter of an octave wide (binning.cuh, step 3). Two kernels of
// 1,024 tiles a block do the order and the split together, where the order alone was a radix sort of
// four launches and the split a scan, a clear and a placing kernel (nine launches of a few
// microseconds each, about 0.05 ms a call at 1080p; bench/TRAINING.md, "The dispatch plan in two
// launches").
//
// Which tiles are split is decided on the device from the entry counts, in the heavy-first order
// (kernels/tile_chunk_math.h holds the rule). A tile is split where it is longer than the chunk share:
// 5/8 of the call's total over the blocks the device runs at once (`slots`), into chunks of about that
// length (chunk_entries_by_share; the plan writes the call's length where both blend kernels read it).
// No block then runs much past the kernel's mean run per slot. A call of many images has enough work to
// hide its long tiles behind, and there few tiles reach the share; the chunks would only cost (each loads
// its pixels again). Held to the whole share, a tile just under it ran alone at the end of the kernel
// (bench/TRAINING.md, "Split at the chunk share"); split later (past 2 or 4 shares) most of the gain at
// batch 1 was lost (bonsai, H100: backward blend 0.593 ms at one share, 0.650 at two, 0.850 at four). Such
// a tile wants b_i = (entries_i - 1) / entries more blocks. The records are bounded by a budget the host
// knows: under chunks by share, all a call can want (chunk_records_most_by_share); with a fixed length,
// kRecordsPerTile per tile of the call, and there the tiles that come first (the heaviest) get theirs
// first, so a call with more long tiles than the budget splits its heaviest ones. The forward blend
// shares the pixels of the split tiles that outlast its own even share (its own slots) among several
// blocks (blend_forward.cu).
#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/cuda/binning.cuh"
#include "kernels/cuda/cuda_workspace.cuh"
#include "kernels/tile_chunk_math.h"

namespace splat::kernels::cuda {

struct TileChunks {
  const int* entries = nullptr;   // [1] (device) per chunk in this call, a positive multiple of kBlockPixels
  int64_t blocks = 0;             // backward blocks to launch, at least one per work item
  const int64_t* needed = nullptr;  // the call's entry count (device): the even shares are of it
  const int2* per_tile = nullptr;  // [tiles] by heavy-first position: its first record, its chunks
  const int2* work = nullptr;      // [blocks] heavy-first position and chunk of each block; x < 0: none
  float4* at_start = nullptr;      // [records * kBlockPixels]: T, Σ cαT (rgb) at a chunk start
  float* depth_at_start = nullptr;  // [records * kBlockPixels]: Σ αTz there
  float4* at_end = nullptr;        // [pixels]: Σ cαT (rgb), Σ αTz at the pixel's end, where it kept a record
};

// Whether a tile of `entries` entries outlasts a kernel's even share of the call's `needed` entries
// over the `slots` blocks it runs at once.
__device__ inline bool outlasts_share(int64_t entries, int slots, int64_t needed) { return entries * slots > needed; }

// Workspace slots this stage uses, from `first_slot` on.
constexpr int kTileChunkSlots = 9;
// Records per tile of the call that the budget allows with a fixed chunk length (each kBlockPixels x 20
// bytes).
constexpr int kRecordsPerTile = 1;

// Fills bins.heavy_first and heavy_entries (the dispatch order) and returns the split of the tiles'
// lists into chunks of `entries` (RasterSettings::backward_chunk_entries: 0, none, every tile one block;
// kChunksByShare, the length chunk_entries_by_share gives this call; otherwise a positive multiple of
// kBlockPixels). `needed`: the call's entry count (device; null: no chunks); `slots`: the backward
// blocks the device runs at once (blend_backward_slots).
TileChunks plan_tile_dispatch(TileBins& bins, const TileGrid& grid, int entries, const int64_t* needed, int slots,
                              CudaWorkspace& ws, int first_slot, cudaStream_t stream);

}  // namespace splat::kernels::cuda
