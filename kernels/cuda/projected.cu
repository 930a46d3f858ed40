// Host-side helpers of projected.cuh: the public view of projected slots and the image layouts of
// a call.
#include <stdexcept>
#include <string>

#include "kernels/cuda/projected.cuh"

namespace splat::kernels::cuda {
namespace {

template <class V, class S>
V* vectors(const S* p, size_t alignment, const char* what) {
  if (reinterpret_cast<uintptr_t>(p) % alignment != 0)
    throw std::invalid_argument(std::string("CUDA rasterizer: projected ") + what + " is not " +
                                std::to_string(alignment) + "-byte aligned");
  return reinterpret_cast<V*>(const_cast<S*>(p));
}

}  // namespace

ProjectedGaussians ProjectedSlots::view() const {
  return {count,
          camera_of,
          id_of,
          reinterpret_cast<const float*>(mean2d),
          reinterpret_cast<const float*>(conic_opacity),
          reinterpret_cast<const float*>(color_depth),
          reinterpret_cast<const int32_t*>(half),
          tile_count};
}

ProjectedSlots ProjectedSlots::over(const ProjectedGaussians& p) {
  ProjectedSlots s;
  s.count = p.count;
  s.packed = true;
  s.mean2d = vectors<float2>(p.mean2d, 8, "mean2d");
  s.conic_opacity = vectors<float4>(p.conic_opacity, 16, "conic_opacity");
  s.color_depth = vectors<float4>(p.color_depth, 16, "color_depth");
  s.half = vectors<int2>(p.half, 8, "half");
  s.tile_count = const_cast<int32_t*>(p.tiles);
  s.camera_of = const_cast<int32_t*>(p.camera);
  s.id_of = const_cast<int64_t*>(p.id);
  return s;
}

std::vector<ImageLayout> image_layouts(std::span<const Camera> cameras) {
  std::vector<ImageLayout> out(cameras.size());
  int64_t tiles = 0, pixels = 0;
  for (size_t c = 0; c < cameras.size(); ++c) {
    ImageLayout& l = out[c];
    l.width = cameras[c].width;
    l.height = cameras[c].height;
    l.tiles_x = raster::tiles_along(l.width);
    l.tiles_y = raster::tiles_along(l.height);
    l.tile_offset = tiles;
    l.pixel_offset = pixels;
    tiles += int64_t(l.tiles_x) * l.tiles_y;
    pixels += int64_t(l.width) * l.height;
  }
  return out;
}

TileGrid tile_grid(std::span<const ImageLayout> layouts, const ImageLayout* images) {
  TileGrid g;
  g.cameras = static_cast<int>(layouts.size());
  g.images = images;
  for (const ImageLayout& l : layouts) {
    g.total_tiles += int64_t(l.tiles_x) * l.tiles_y;
    g.total_pixels += int64_t(l.width) * l.height;
  }
  return g;
}

}  // namespace splat::kernels::cuda
