// Makes a distorted copy of a pinhole COLMAP scene: every photo is re-rendered as a known lens
// would have taken it (bilinear resampling of the pinhole photo), and cameras.bin names that lens.
// Training on the copy against the original measures what undistortion costs (bench/TRAINING.md).
//
//   make_distorted_scene <pinhole scene> <out folder> SIMPLE_RADIAL <k>
//   make_distorted_scene <pinhole scene> <out folder> OPENCV <k1> <k2> <p1> <p2>
//
// The lens keeps each camera's focal length and principal point; it must map every photo pixel to
// a ray the pinhole photo shows (pincushion lenses, k > 0, do), or the copy would carry black
// borders of its own; the program refuses such a lens.
#include <stb_image_write.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/scene/colmap_reader.h"
#include "core/scene/colmap_writer.h"
#include "core/scene/image_loader.h"
#include "core/scene/lens_model.h"
#include "core/scene/undistort.h"

using namespace splat;
namespace fs = std::filesystem;

namespace {

ImageRGB8 distort_photo(const ImageRGB8& pinhole, const LensCamera& lens, const fs::path& name) {
  ImageRGB8 out{pinhole.width, pinhole.height, std::vector<uint8_t>(pinhole.pixels.size())};
  for (int y = 0; y < out.height; ++y)
    for (int x = 0; x < out.width; ++x) {
      const Vec2<double> d{(x + 0.5 - lens.cx) / lens.fx, (y + 0.5 - lens.cy) / lens.fy};
      const auto n = undistort_normalized(lens, d);
      const Vec2<double> src{n ? lens.fx * n->x + lens.cx : -1, n ? lens.fy * n->y + lens.cy : -1};
      if (!n || src.x < 0 || src.y < 0 || src.x > pinhole.width || src.y > pinhole.height)
        throw std::runtime_error(name.string() + ": the lens maps pixel (" + std::to_string(x) + ", " + std::to_string(y) +
                                 ") outside the pinhole photo; use a pincushion lens (k > 0)");
      const auto rgb = sample_bilinear(pinhole, src);
      for (int c = 0; c < 3; ++c)
        out.pixels[(static_cast<size_t>(y) * out.width + x) * 3 + c] = static_cast<uint8_t>(std::lround(rgb[c]));
    }
  return out;
}

}  // namespace

int main(int argc, char** argv) try {
  if (argc < 5) {
    std::fprintf(stderr, "usage: %s <pinhole scene> <out> SIMPLE_RADIAL k | OPENCV k1 k2 p1 p2\n", argv[0]);
    return 2;
  }
  const fs::path src = argv[1], dst = argv[2];
  const std::string model = argv[3];
  std::vector<double> dist;
  for (int i = 4; i < argc; ++i) dist.push_back(std::stod(argv[i]));
  const bool radial = model == "SIMPLE_RADIAL";
  if (!(radial ? dist.size() == 1 : model == "OPENCV" && dist.size() == 4))
    throw std::invalid_argument("expected SIMPLE_RADIAL k or OPENCV k1 k2 p1 p2");

  colmap::Reconstruction rec = colmap::read_reconstruction(colmap::find_sparse_dir(src));
  std::map<int, LensCamera> lenses;
  for (colmap::Camera& c : rec.cameras) {
    if (c.model != CameraModel::SimplePinhole && c.model != CameraModel::Pinhole)
      throw std::invalid_argument("camera " + std::to_string(c.id) + " is not a pinhole");
    const double fx = c.params[0], fy = c.model == CameraModel::Pinhole ? c.params[1] : fx;
    const double cx = c.params[c.params.size() - 2], cy = c.params.back();
    if (radial) {
      if (fx != fy) throw std::invalid_argument("SIMPLE_RADIAL needs fx == fy (camera " + std::to_string(c.id) + ")");
      c.model = CameraModel::SimpleRadial;
      c.params = {fx, cx, cy, dist[0]};
    } else {
      c.model = CameraModel::OpenCV;
      c.params = {fx, fy, cx, cy, dist[0], dist[1], dist[2], dist[3]};
    }
    lenses[c.id] = lens_camera(c.model, c.width, c.height, c.params);
  }
  fs::create_directories(dst / "images");
  for (size_t i = 0; i < rec.images.size(); ++i) {
    const colmap::Image& im = rec.images[i];
    const fs::path in = src / "images" / im.name, out = dst / "images" / im.name;
    const ImageRGB8 photo = decode_image(in);
    const LensCamera& lens = lenses.at(im.camera_id);
    if (photo.width != lens.width || photo.height != lens.height)
      throw std::runtime_error(in.string() + ": not its camera's size");
    const ImageRGB8 warped = distort_photo(photo, lens, in);
    fs::create_directories(out.parent_path());
    if (!stbi_write_jpg(out.c_str(), warped.width, warped.height, 3, warped.pixels.data(), 95))
      throw std::runtime_error(out.string() + ": cannot write");
    std::fprintf(stderr, "\r%zu / %zu", i + 1, rec.images.size());
  }
  colmap::write_colmap_binary(dst / "sparse" / "0", rec.cameras, rec.images, rec.points);
  std::fprintf(stderr, "\nwrote %s (%s", dst.c_str(), model.c_str());
  for (double d : dist) std::fprintf(stderr, " %g", d);
  std::fprintf(stderr, ")\n");
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "error: %s\n", e.what());
  return 1;
}
