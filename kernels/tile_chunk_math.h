#pragma once
// How long the backward blend's chunks of a long tile list are (kernels/cuda/tile_chunks.cuh): one rule
// for the dispatch plan and both blend kernels, on the device, and for the CPU tests.
#include <cstdint>

#include "kernels/hd.h"

namespace splat::kernels {

// RasterSettings::backward_chunk_entries: chunks sized per call by chunk_entries_by_share.
inline constexpr int kChunksByShare = -1;

// Entries per chunk in a call of `needed` tile entries, with `slots` backward blocks running at once:
// three quarters of the even share (needed / slots), to the nearest multiple of `unit` (a chunk starts
// at a staged batch of the forward), at least one unit. A split tile outlasts the share, so its chunks
// are a little shorter than the share and the heavy-first dispatch packs them; shorter chunks each pay
// again for loading their pixels and resuming, longer ones leave a tail. The best fixed length grew with
// the share: on bonsai (H200, 1,056 backward slots; bench/TRAINING.md, "Chunks by the call's even
// share") 512 entries at about 780 a share, 1,024 at 1,300, 2,048 at 2,600.
SPLAT_HD int chunk_entries_by_share(int64_t needed, int slots, int unit) {
  const int64_t share = needed / (slots > 0 ? slots : 1);
  const int64_t units = (3 * share / 4 + unit / 2) / unit;
  return int(units > 1 ? units : 1) * unit;
}

}  // namespace splat::kernels
