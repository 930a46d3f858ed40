#pragma once
// Counting a projected pair list's pairs per camera block, on the device that holds it: the
// send counts of the multi-GPU exchange (each rank renders one block of the batch's cameras, and
// the project stage emits pairs ordered by camera, so block q's pairs are one contiguous range).
// Counting where the pairs live keeps the per-pair camera array off the host; only the `blocks`
// counts travel, with the counts exchange.
#include <cstdint>

#include "kernels/device_context.h"

namespace splat::kernels {

// counts[q] = number of the `count` pairs whose camera is in block q (kernels/camera_blocks_math.h:
// `cameras` cameras in `blocks` contiguous blocks), q < blocks. `camera` must be sorted ascending
// with values in [0, cameras); both arrays live in `where`. On CUDA enqueued on the context's
// stream, not waited for. Throws std::invalid_argument when blocks < 1 or cameras < blocks.
void count_pairs_per_block(const ComputeContext& where, const int32_t* camera, int64_t count, int cameras, int blocks,
                           int64_t* counts);

// The CPU reference (count_pairs_per_block calls it for Device::CPU).
void count_pairs_per_block_reference(const int32_t* camera, int64_t count, int cameras, int blocks, int64_t* counts);

}  // namespace splat::kernels
