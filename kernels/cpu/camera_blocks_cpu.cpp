// CPU references of the per-block pair counts (the same per-block function as the CUDA kernel) and of
// the per-camera sums.
#include "kernels/camera_blocks.h"
#include "kernels/camera_blocks_math.h"

namespace splat::kernels {

void count_pairs_per_block_reference(const int32_t* camera, int64_t count, int cameras, int blocks, int64_t* counts) {
  for (int q = 0; q < blocks; ++q) counts[q] = pairs_in_block(camera, count, q, cameras, blocks);
}

void sum_per_camera_reference(const int32_t* camera, const int32_t* values, int64_t count, int first_camera,
                              int cameras, int64_t* sums) {
  for (int c = 0; c < cameras; ++c) sums[c] = 0;
  for (int64_t i = 0; i < count; ++i) {
    const int c = camera[i] - first_camera;
    if (c >= 0 && c < cameras) sums[c] += values[i];
  }
}

}  // namespace splat::kernels
