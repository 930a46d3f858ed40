#pragma once
// How a batch's cameras are split into contiguous blocks (one per rank of a multi-GPU step) and
// where a block's pairs lie in a projected pair list; shared by the CPU reference and the CUDA
// kernel of kernels/camera_blocks.h, and by the host code that needs the same rule.
#include <cstdint>

#include "kernels/hd.h"

namespace splat::kernels {

// First camera of block q of `blocks` over `cameras` cameras: floor(cameras * q / blocks), so
// blocks differ in size by at most one and every block is non-empty when cameras >= blocks.
SPLAT_HD int block_first_camera(int q, int cameras, int blocks) {
  return static_cast<int>(int64_t(cameras) * q / blocks);
}

// Cameras in block q: block_first_camera(q + 1) - block_first_camera(q).
SPLAT_HD int block_cameras(int q, int cameras, int blocks) {
  return block_first_camera(q + 1, cameras, blocks) - block_first_camera(q, cameras, blocks);
}

// Number of the `count` pairs (sorted by ascending camera) whose camera is below c: binary search.
SPLAT_HD int64_t pairs_below_camera(const int32_t* camera, int64_t count, int c) {
  int64_t lo = 0, hi = count;
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo) / 2;
    if (camera[mid] < c)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

// Pairs of block q: those whose camera lies in [block_first_camera(q), block_first_camera(q + 1)).
SPLAT_HD int64_t pairs_in_block(const int32_t* camera, int64_t count, int q, int cameras, int blocks) {
  return pairs_below_camera(camera, count, block_first_camera(q + 1, cameras, blocks)) -
         pairs_below_camera(camera, count, block_first_camera(q, cameras, blocks));
}

}  // namespace splat::kernels
