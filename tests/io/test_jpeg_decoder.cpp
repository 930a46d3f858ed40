// JPEG photos through libjpeg-turbo (core/scene/jpeg_decoder.h): the pixels stb_image decodes, up to
// the two decoders' rounding (IDCT and chroma upsampling differ by a level or two), colour and grey,
// also behind fill bytes; a cut or damaged file refused naming it; and the shared captures' photos.
#include <catch2/catch.hpp>

#include <stb_image_write.h>

// jpeglib.h needs size_t and FILE declared first.
#include <cstddef>
#include <cstdio>
#include <jpeglib.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "core/scene/image_loader.h"
#include "tests/io/tiny_scene.h"
#include "tests/support/test_support.h"

namespace fs = std::filesystem;
namespace tiny = splat::test::tiny;
using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;
using splat::JpegDecoder;

namespace {

void append_to(void* out, void* data, int size) {
  static_cast<std::string*>(out)->append(static_cast<const char*>(data), static_cast<size_t>(size));
}

// A photo-like test image: smooth gradients with a sharp checker, `comp` channels, as a JPEG.
std::string jpeg(int w, int h, int comp, int quality = 90) {
  std::vector<uint8_t> px;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      for (int c = 0; c < comp; ++c)
        px.push_back(uint8_t(((x / 8 + y / 8) % 2 ? 60 : 0) + (3 * x + 5 * y + 70 * c) % 190));
  std::string out;
  REQUIRE(stbi_write_jpg_to_func(append_to, &out, w, h, comp, px.data(), quality));
  return out;
}

struct Difference {
  double mean = 0;
  int max = 0;
};
Difference difference(const splat::ImageRGB8& a, const splat::ImageRGB8& b) {
  REQUIRE(a.width == b.width);
  REQUIRE(a.height == b.height);
  REQUIRE(a.pixels.size() == b.pixels.size());
  Difference d;
  for (size_t i = 0; i < a.pixels.size(); ++i) {
    const int v = std::abs(int(a.pixels[i]) - int(b.pixels[i]));
    d.mean += v;
    d.max = std::max(d.max, v);
  }
  d.mean /= double(a.pixels.size());
  return d;
}

// A CMYK JPEG as a print workflow writes one, encoded by libjpeg itself (stb_image_write has no CMYK).
std::string cmyk_jpeg(int w, int h) {
  jpeg_compress_struct c{};
  jpeg_error_mgr err{};
  c.err = jpeg_std_error(&err);
  jpeg_create_compress(&c);
  unsigned char* out = nullptr;
  unsigned long size = 0;
  jpeg_mem_dest(&c, &out, &size);
  c.image_width = JDIMENSION(w);
  c.image_height = JDIMENSION(h);
  c.input_components = 4;
  c.in_color_space = JCS_CMYK;
  jpeg_set_defaults(&c);
  jpeg_start_compress(&c, TRUE);
  std::vector<unsigned char> row(size_t(w) * 4);
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x)
      for (int k = 0; k < 4; ++k) row[size_t(x) * 4 + k] = static_cast<unsigned char>(40 * k + 3 * x + 5 * y);
    JSAMPROW r = row.data();
    jpeg_write_scanlines(&c, &r, 1);
  }
  jpeg_finish_compress(&c);
  std::string bytes(reinterpret_cast<const char*>(out), size);
  jpeg_destroy_compress(&c);
  std::free(out);
  return bytes;
}

}  // namespace

TEST_CASE("jpeg decoder: a CMYK JPEG, which libjpeg does not turn into RGB, decodes through stb_image",
          "[photos][jpeg]") {
  const fs::path file = splat::test::scratch_dir("jpeg_decoder_cmyk") / "print.jpg";
  tiny::write_file(file, cmyk_jpeg(32, 24));
  const splat::ImageRGB8 img = splat::decode_image(file);
  CHECK(img.width == 32);
  CHECK(img.height == 24);
  CHECK(img.pixels == splat::decode_image(file, JpegDecoder::Stb).pixels);
}

TEST_CASE("jpeg decoder: libjpeg-turbo gives stb_image's pixels up to rounding, colour and grey", "[photos][jpeg]") {
  const fs::path dir = splat::test::scratch_dir("jpeg_decoder_pixels");
  for (const int comp : {3, 1})
    for (const auto& [w, h] : {std::pair{64, 48}, {97, 61}}) {  // whole and partial 16x16 blocks
      INFO(comp << " channel(s), " << w << "x" << h);
      const fs::path file = dir / ("photo" + std::to_string(comp) + "_" + std::to_string(w) + ".jpg");
      tiny::write_file(file, jpeg(w, h, comp));
      const splat::ImageRGB8 turbo = splat::decode_image(file), stb = splat::decode_image(file, JpegDecoder::Stb);
      const Difference d = difference(turbo, stb);
      CHECK(d.mean < 0.5);
      CHECK(d.max <= 8);  // at the checker's edges, where the chroma upsampling differs most
      if (comp == 1)
        for (size_t i = 0; i < turbo.pixels.size(); i += 3) {
          REQUIRE(turbo.pixels[i] == turbo.pixels[i + 1]);
          REQUIRE(turbo.pixels[i] == turbo.pixels[i + 2]);
        }
    }
  // 0xFF fill before the start of the image, as stb and the format sniff allow: the same picture.
  const std::string whole = jpeg(64, 48, 3);
  tiny::write_file(dir / "plain.jpg", whole);
  tiny::write_file(dir / "filled.jpg", "\xFF\xFF\xFF" + whole);
  CHECK(splat::decode_image(dir / "filled.jpg").pixels == splat::decode_image(dir / "plain.jpg").pixels);
}

TEST_CASE("jpeg decoder: a cut or damaged JPEG is refused naming the file", "[photos][jpeg][bad]") {
  const fs::path dir = splat::test::scratch_dir("jpeg_decoder_bad");
  const std::string whole = jpeg(64, 48, 3);
  const fs::path cut = dir / "cut.jpg";
  tiny::write_file(cut, whole.substr(0, whole.size() * 6 / 10));
  CHECK_THAT(tiny::scene_error_of([&] { splat::decode_image(cut); }),
             StartsWith(cut.string() + ": ") && Contains("truncated: the JPEG data ends before the image does"));
  // The frame header's component count made impossible (SOF0: FF C0, length, precision, height,
  // width, then the count): libjpeg's own refusal, named.
  std::string damaged = whole;
  const size_t sof = damaged.find("\xFF\xC0");
  REQUIRE(sof != std::string::npos);
  damaged[sof + 9] = '\x09';
  const fs::path bad = dir / "bad.jpg";
  tiny::write_file(bad, damaged);
  CHECK_THAT(tiny::scene_error_of([&] { splat::decode_image(bad); }), StartsWith(bad.string() + ": "));
}

TEST_CASE("jpeg decoder: the shared captures' photos decode as stb decodes them", "[photos][jpeg][data]") {
  for (const std::string name : {"cup", "bonsai"}) {
    const std::optional<fs::path> scene = splat::test::shared_scene(name);
    if (!scene) continue;
    std::vector<fs::path> photos;
    for (const auto& e : fs::directory_iterator(*scene / "images")) photos.push_back(e.path());
    std::sort(photos.begin(), photos.end());
    REQUIRE(photos.size() >= 3);
    for (size_t i = 0; i < 3; ++i) {
      INFO(photos[i]);
      const Difference d = difference(splat::decode_image(photos[i]), splat::decode_image(photos[i], JpegDecoder::Stb));
      CHECK(d.mean < 0.5);
    }
  }
}
