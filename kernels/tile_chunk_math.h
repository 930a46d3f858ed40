#pragma once
// How the backward blend splits long tile lists into chunks (kernels/cuda/tile_chunks.cuh): which tiles,
// into chunks of how many entries, and how many resume records that can take. One rule for the dispatch
// plan and both blend kernels, on the device, and for the CPU tests.
#include <cstdint>

#include "kernels/hd.h"

namespace splat::kernels {

// RasterSettings::backward_chunk_entries: chunks sized per call by chunk_entries_by_share.
inline constexpr int kChunksByShare = -1;

// A backward block is held to the chunk share: this many eighths of the call's even share (its tile
// entries over the blocks the device runs at once). A block that starts at once and is longer than the
// kernel's mean run per slot is the kernel's tail. A tile just under the whole share was not split, and
// its block ran on alone at the end (on bonsai's MCMC model at two images a call, tiles of about 2,500
// entries against a share of 2,670 ran the whole 1.4 ms kernel while most SMs were done at 1.25 ms,
// bench/TRAINING.md "Split at the chunk share"). Held to 5/8 (H200, bonsai, two images a call), the
// backward blend took 0.670 ms an image on the MCMC model against 0.744 when tiles were split past the
// whole share, and 0.359 against 0.378 on the default model; at 3/4 0.690 and 0.362, at 1/2 0.683 and
// 0.359.
inline constexpr int kChunkShareEighths = 5;

// Whether a tile of `entries` entries is longer than the chunk share of a call of `needed` entries with
// `slots` blocks at once.
SPLAT_HD bool outlasts_chunk_share(int64_t entries, int slots, int64_t needed) {
  return 8 * entries * (slots > 0 ? slots : 1) > kChunkShareEighths * needed;
}

// Entries per chunk in a call of `needed` tile entries, with `slots` backward blocks running at once:
// the chunk share, to the nearest multiple of `unit` (a chunk starts at a staged batch of the forward),
// at least one unit. Shorter chunks each pay again for loading their pixels and resuming; longer ones
// leave a tail.
SPLAT_HD int chunk_entries_by_share(int64_t needed, int slots, int unit) {
  const int64_t share = needed / (slots > 0 ? slots : 1);
  const int64_t units = (kChunkShareEighths * share / 8 + unit / 2) / unit;
  return int(units > 1 ? units : 1) * unit;
}

// The resume records (chunks after the first) a tile of `entries` entries wants with chunks of `chunk`
// entries (0: none): a tile is split where it is longer than a chunk and than the chunk share.
SPLAT_HD int64_t chunk_records_wanted(int64_t entries, int chunk, int slots, int64_t needed) {
  return chunk > 0 && entries > chunk && outlasts_chunk_share(entries, slots, needed) ? (entries - 1) / chunk : 0;
}

// The most records a call with chunks by share can want, whatever its size, for units of 10 entries or
// more (the plan's are 256). Its tiles want at most needed / chunk records. The chunk is one unit while
// the share is under about 2.4 units, so there needed / chunk < (2.4 + 1 / unit) slots; past that it is at
// least two units and about 5/8 of the share, and needed / chunk stays near 2 slots or under. The plan's
// records budget under chunks by share: the budget never binds there, and it does not grow with the call
// (one record a tile, the budget of fixed chunks, is about 650 MB at 1080p and 16 images a call).
SPLAT_HD int64_t chunk_records_most_by_share(int slots) { return 5 * int64_t(slots > 0 ? slots : 1) / 2 + 1; }

}  // namespace splat::kernels
