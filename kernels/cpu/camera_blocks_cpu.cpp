// CPU reference of the per-block pair counts: the same per-block function as the CUDA kernel.
#include "kernels/camera_blocks.h"
#include "kernels/camera_blocks_math.h"

namespace splat::kernels {

void count_pairs_per_block_reference(const int32_t* camera, int64_t count, int cameras, int blocks, int64_t* counts) {
  for (int q = 0; q < blocks; ++q) counts[q] = pairs_in_block(camera, count, q, cameras, blocks);
}

}  // namespace splat::kernels
