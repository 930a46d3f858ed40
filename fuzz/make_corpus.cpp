// Writes the fuzz targets' seed corpus: a few small valid files per target, made by splatlab's own
// writers (COLMAP models, PLY, checkpoints) and stb_image_write (photos), each prefixed with the
// byte its target reads first (see fuzz_<target>.cpp). The output is checked in as fuzz/corpus/;
// rerun after a file format changes (README.md says how).
#include <stb_image_write.h>

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include "core/train/checkpoint.h"
#include "core/scene/colmap_writer.h"
#include "core/model/compressed_ply.h"
#include "core/model/ply_io.h"
#include "fuzz/photo_extensions.h"

namespace {
namespace fs = std::filesystem;
using Bytes = std::vector<uint8_t>;

Bytes read_all(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  return Bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// corpus/<target>/<name>: the prefix byte (when the target reads one), then the file's bytes.
void put(const fs::path& dir, const std::string& name, std::optional<uint8_t> prefix, const Bytes& body) {
  fs::create_directories(dir);
  std::ofstream out(dir / name, std::ios::binary | std::ios::trunc);
  if (prefix) out.put(static_cast<char>(*prefix));
  out.write(reinterpret_cast<const char*>(body.data()), static_cast<std::streamsize>(body.size()));
  if (!out) throw std::runtime_error((dir / name).string() + ": cannot write");
}

// Deterministic values in [-1, 1], so that the corpus is the same on every run.
float wobble(int i) { return static_cast<float>(std::sin(1.7 * i + 0.3)); }

// ---- COLMAP ------------------------------------------------------------------------------------

// A 64x48 camera of the model, its parameters set by role: focal 60, principal point at the centre,
// small distortion coefficients.
splat::colmap::Camera camera(int id, splat::CameraModel model) {
  splat::colmap::Camera c{id, model, 64, 48, {}};
  int k = 0;
  for (const std::string& name : splat::colmap::model_param_names(model)) {
    if (name == "f" || name == "fx" || name == "fy") c.params.push_back(60);
    else if (name == "cx") c.params.push_back(32);
    else if (name == "cy") c.params.push_back(24);
    else if (name == "omega") c.params.push_back(0.8);
    else c.params.push_back(0.01 * ++k);
  }
  return c;
}

void colmap_seeds(const fs::path& corpus, const fs::path& scratch) {
  using namespace splat::colmap;
  std::vector<Camera> all_models;
  for (int m = 0; m <= static_cast<int>(splat::CameraModel::ThinPrismFisheye); ++m)
    all_models.push_back(camera(m + 1, static_cast<splat::CameraModel>(m)));
  std::vector<Image> images;
  for (int i = 0; i < 3; ++i) {
    const double a = 0.3 * i, n = std::sqrt(1 + a * a);
    images.push_back({i + 1, {1 / n, 0, a / n, 0}, {0.5 * i, -0.1, 2.0}, i + 1, "view_" + std::to_string(i) + ".png"});
  }
  std::vector<Point> points;
  for (int i = 0; i < 5; ++i)
    points.push_back({static_cast<uint64_t>(i + 1), {wobble(3 * i), wobble(3 * i + 1), wobble(3 * i + 2) + 3},
                      {static_cast<uint8_t>(40 * i), 128, static_cast<uint8_t>(250 - 40 * i)}, 0.5 + 0.1 * i});
  const std::vector<Camera> one_camera = {camera(1, splat::CameraModel::Pinhole)};
  const std::vector<Image> one_image = {images[0]};
  const std::vector<Point> one_point = {points[0]};

  for (const bool binary : {true, false}) {
    const std::string ext = binary ? ".bin" : ".txt";
    const fs::path out = corpus / (binary ? "colmap_bin" : "colmap_txt");
    const auto write = binary ? write_colmap_binary : write_colmap_text;
    write(scratch, all_models, images, points);
    put(out, "cameras_all_models", 0, read_all(scratch / ("cameras" + ext)));
    put(out, "images_three", 1, read_all(scratch / ("images" + ext)));
    put(out, "points_five", 2, read_all(scratch / ("points3D" + ext)));
    write(scratch, one_camera, one_image, one_point);
    put(out, "cameras_one", 0, read_all(scratch / ("cameras" + ext)));
    put(out, "images_one", 1, read_all(scratch / ("images" + ext)));
    put(out, "points_one", 2, read_all(scratch / ("points3D" + ext)));
  }
}

// ---- PLY and checkpoints -----------------------------------------------------------------------

splat::GaussianModel model(int sh_degree, int rows) {
  splat::GaussianModel m(sh_degree, rows);
  int i = 0;
  for (std::vector<float>* col : {&m.means, &m.log_scales, &m.opacity_logits, &m.sh_dc, &m.sh_rest})
    for (float& v : *col) v = wobble(i++);
  for (int r = 0; r < rows; ++r) m.quats[4 * r] = 1;  // identity rotations
  return m;
}

// The same model as an ascii PLY: write_ply's header (every property a float) with its format
// line changed, and its rows as text.
Bytes ascii_ply(const fs::path& binary_ply) {
  const Bytes bin = read_all(binary_ply);
  const std::string text(bin.begin(), bin.end());
  const std::string end = "end_header\n";
  const size_t body = text.find(end) + end.size();
  std::string header = text.substr(0, body);
  const std::string from = "format binary_little_endian 1.0", to = "format ascii 1.0";
  header.replace(header.find(from), from.size(), to);
  size_t properties = 0;
  for (size_t p = 0; (p = header.find("\nproperty ", p)) != std::string::npos; ++p) ++properties;
  std::string rows;
  for (size_t k = 0; body + 4 * k + 4 <= bin.size(); ++k) {
    float v;
    std::memcpy(&v, bin.data() + body + 4 * k, 4);
    char num[32];
    std::snprintf(num, sizeof num, "%.9g", v);
    rows += std::string(k % properties ? " " : "") + num + ((k + 1) % properties ? "" : "\n");
  }
  const std::string out = header + rows;
  return Bytes(out.begin(), out.end());
}

void ply_seeds(const fs::path& corpus, const fs::path& scratch) {
  const fs::path out = corpus / "ply";
  for (const auto& [degree, rows] : {std::pair{0, 2}, {1, 2}, {3, 1}}) {
    const fs::path file = scratch / "seed.ply";
    splat::write_ply(file, model(degree, rows));
    put(out, "sh" + std::to_string(degree) + "_rows" + std::to_string(rows), std::nullopt, read_all(file));
    if (degree == 0) put(out, "sh0_rows2_ascii", std::nullopt, ascii_ply(file));
  }
}

// The compressed layout (core/model/compressed_ply.h), with and without its colour chunks' ranges
// mattering: one row, a partial chunk, and more than one chunk (256 rows each).
void compressed_ply_seeds(const fs::path& corpus, const fs::path& scratch) {
  const fs::path out = corpus / "compressed_ply";
  for (const auto& [degree, rows] : {std::pair{0, 1}, {1, 3}, {3, 300}}) {
    const fs::path file = scratch / "seed.compressed.ply";
    splat::write_compressed_ply(file, model(degree, rows));
    put(out, "sh" + std::to_string(degree) + "_rows" + std::to_string(rows), std::nullopt, read_all(file));
  }
}

void checkpoint_seeds(const fs::path& corpus, const fs::path& scratch) {
  const fs::path out = corpus / "checkpoint";
  for (const auto& [degree, rows] : {std::pair{0, 2}, {1, 0}, {3, 1}}) {
    splat::Checkpoint ck{{{"step", 100},
                          {"steps", 30000},
                          {"batch_size", 1},
                          {"packed", false},
                          {"sh_degree_cap", degree},
                          {"strategy", "default"},
                          {"strategy_state", nlohmann::json::object()},
                          {"sampler", {{"rng", "1 2 3"}, {"order", {2, 0, 1}}, {"pos", 1}}}},
                         splat::GaussianState::from_model(model(degree, rows))};
    for (splat::Group g : splat::kAllGroups) {
      splat::HostColumn& c = ck.gaussians.col(g);
      for (size_t i = 0; i < c.value.size(); ++i) c.exp_avg[i] = 0.01f * wobble(static_cast<int>(i)), c.exp_avg_sq[i] = 1e-4f;
    }
    const fs::path file = scratch / "seed.ckpt";
    splat::write_checkpoint(file, ck);
    // Prefix 1: the target re-checksums mutated files (fuzz_checkpoint.cpp).
    put(out, "sh" + std::to_string(degree) + "_rows" + std::to_string(rows), 1, read_all(file));
  }
}

// ---- photos ------------------------------------------------------------------------------------

uint8_t extension_index(const char* ext) {
  for (size_t i = 0; i < splat::fuzz::kPhotoExtensions.size(); ++i)
    if (std::string(splat::fuzz::kPhotoExtensions[i]) == ext) return static_cast<uint8_t>(i);
  throw std::logic_error(std::string("no photo extension ") + ext);
}

void append(void* context, void* data, int size) {
  auto* out = static_cast<Bytes*>(context);
  out->insert(out->end(), static_cast<uint8_t*>(data), static_cast<uint8_t*>(data) + size);
}

// A GIF with a 256-colour grey palette and 9-bit LZW codes that are all literals: the code table
// never reaches 512 entries for these few pixels, so the code width stays 9.
Bytes gif(int w, int h, const std::vector<uint8_t>& grey) {
  Bytes out = {'G', 'I', 'F', '8', '9', 'a', uint8_t(w), uint8_t(w >> 8), uint8_t(h), uint8_t(h >> 8), 0xF7, 0, 0};
  for (int i = 0; i < 256; ++i) out.insert(out.end(), {uint8_t(i), uint8_t(i), uint8_t(i)});
  out.insert(out.end(), {',', 0, 0, 0, 0, uint8_t(w), uint8_t(w >> 8), uint8_t(h), uint8_t(h >> 8), 0, 8});
  std::vector<int> codes = {256};  // clear
  codes.insert(codes.end(), grey.begin(), grey.end());
  codes.push_back(257);  // end of information
  Bytes packed;
  uint32_t acc = 0;
  int bits = 0;
  for (int c : codes) {
    acc |= static_cast<uint32_t>(c) << bits;
    for (bits += 9; bits >= 8; bits -= 8, acc >>= 8) packed.push_back(static_cast<uint8_t>(acc));
  }
  if (bits) packed.push_back(static_cast<uint8_t>(acc));
  for (size_t i = 0; i < packed.size(); i += 255) {
    const size_t n = std::min<size_t>(255, packed.size() - i);
    out.push_back(static_cast<uint8_t>(n));
    out.insert(out.end(), packed.begin() + i, packed.begin() + i + n);
  }
  out.insert(out.end(), {0, ';'});
  return out;
}

void photo_seeds(const fs::path& corpus) {
  const fs::path out = corpus / "photo";
  const int w = 12, h = 8;
  std::vector<uint8_t> rgb, grey, rgba;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const uint8_t r = static_cast<uint8_t>(20 * x), g = static_cast<uint8_t>(30 * y), b = static_cast<uint8_t>(7 * x * y);
      rgb.insert(rgb.end(), {r, g, b});
      rgba.insert(rgba.end(), {r, g, b, static_cast<uint8_t>(255 - 10 * x)});
      grey.push_back(static_cast<uint8_t>((r + g + b) / 3));
    }
  Bytes png, png_grey, png_rgba, jpg, bmp, tga_rle, tga_raw, hdr;
  stbi_write_png_to_func(append, &png, w, h, 3, rgb.data(), w * 3);
  stbi_write_png_to_func(append, &png_grey, w, h, 1, grey.data(), w);
  stbi_write_png_to_func(append, &png_rgba, w, h, 4, rgba.data(), w * 4);
  stbi_write_jpg_to_func(append, &jpg, w, h, 3, rgb.data(), 90);
  stbi_write_bmp_to_func(append, &bmp, w, h, 3, rgb.data());
  stbi_write_tga_with_rle = 1;
  stbi_write_tga_to_func(append, &tga_rle, w, h, 3, rgb.data());
  stbi_write_tga_with_rle = 0;
  stbi_write_tga_to_func(append, &tga_raw, w, h, 3, rgb.data());
  std::vector<float> linear(rgb.begin(), rgb.end());
  for (float& v : linear) v /= 255;
  stbi_write_hdr_to_func(append, &hdr, w, h, 3, linear.data());
  const std::string ppm_header = "P6\n" + std::to_string(w) + " " + std::to_string(h) + "\n255\n";
  Bytes ppm(ppm_header.begin(), ppm_header.end());
  ppm.insert(ppm.end(), rgb.begin(), rgb.end());

  put(out, "rgb.png", extension_index(".png"), png);
  put(out, "grey.png", extension_index(".png"), png_grey);
  put(out, "rgba.png", extension_index(".png"), png_rgba);
  put(out, "png_named.jpg", extension_index(".jpg"), png);  // the content decides, whatever the name
  put(out, "rgb.jpg", extension_index(".jpg"), jpg);
  put(out, "rgb.bmp", extension_index(".bmp"), bmp);
  put(out, "rle.tga", extension_index(".tga"), tga_rle);
  put(out, "raw.tga", extension_index(".tga"), tga_raw);
  put(out, "rgb.hdr", extension_index(".hdr"), hdr);
  put(out, "rgb.ppm", extension_index(".ppm"), ppm);
  put(out, "grey.gif", extension_index(".gif"), gif(w, h, grey));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s <corpus folder>   (writes <corpus folder>/<target>/<seed>)\n", argv[0]);
    return 2;
  }
  try {
    const fs::path corpus = argv[1];
    const fs::path scratch = fs::temp_directory_path() / ("splatlab-corpus-" + std::to_string(::getpid()));
    fs::create_directories(scratch);
    colmap_seeds(corpus, scratch);
    ply_seeds(corpus, scratch);
    compressed_ply_seeds(corpus, scratch);
    checkpoint_seeds(corpus, scratch);
    photo_seeds(corpus);
    fs::remove_all(scratch);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fuzz_make_corpus: %s\n", e.what());
    return 1;
  }
  return 0;
}
