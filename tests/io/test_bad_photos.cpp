// Photos that are cut short, mislabelled or too small: refused naming the file and the problem,
// while whole files of every format stb_image reads still decode.
#include <catch2/catch.hpp>

#include <stb_image_write.h>

#include <cstdint>
#include <string>

#include "core/scene/image_loader.h"
#include "core/scene/scene_errors.h"
#include "core/scene/scene_loader.h"
#include "tests/io/tiny_scene.h"
#include "tests/support/test_support.h"

namespace fs = std::filesystem;
namespace tiny = splat::test::tiny;
using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;

namespace {

// A 40x30 picture with a gradient, so that a decoder filling missing data with zeros shows.
splat::ImageRGB8 gradient() {
  splat::ImageRGB8 img{40, 30, {}};
  for (int y = 0; y < 30; ++y)
    for (int x = 0; x < 40; ++x) img.pixels.insert(img.pixels.end(), {uint8_t(6 * x), uint8_t(8 * y), 200});
  return img;
}

// An uncompressed 24-bit TGA (stb_image_write writes RLE ones only when asked; off here).
std::string tga_bytes(const splat::ImageRGB8& img) {
  std::string s(18, '\0');
  s[2] = 2;  // uncompressed true-colour
  s[12] = char(img.width & 0xff), s[13] = char(img.width >> 8);
  s[14] = char(img.height & 0xff), s[15] = char(img.height >> 8);
  s[16] = 24;
  s[17] = 0x20;  // top-left origin
  for (size_t i = 0; i < img.pixels.size(); i += 3)
    s += {char(img.pixels[i + 2]), char(img.pixels[i + 1]), char(img.pixels[i])};  // BGR
  return s;
}

// The bytes stb_image_write produces for `img` in the format `ext` names.
std::string encoded(const fs::path& dir, const splat::ImageRGB8& img, const std::string& ext) {
  const fs::path f = dir / ("encoded" + ext);
  const int w = img.width, h = img.height;
  const void* px = img.pixels.data();
  if (ext == ".png") REQUIRE(stbi_write_png(f.c_str(), w, h, 3, px, w * 3));
  if (ext == ".bmp") REQUIRE(stbi_write_bmp(f.c_str(), w, h, 3, px));
  if (ext == ".jpg") REQUIRE(stbi_write_jpg(f.c_str(), w, h, 3, px, 95));
  if (ext == ".tga") return tga_bytes(img);
  return tiny::read_file(f);
}

// decode_image's SceneError for `bytes` stored as dir/name ("" when it decodes), checked to
// start with the file.
std::string decode_error(const fs::path& file, const std::string& bytes) {
  tiny::write_file(file, bytes);
  const std::string e = tiny::scene_error_of([&] { splat::decode_image(file); });
  if (!e.empty()) CHECK_THAT(e, StartsWith(file.string() + ": "));
  return e;
}

}  // namespace

TEST_CASE("photos: whole files of each format decode, cut ones are refused as truncated", "[photos][bad]") {
  const fs::path dir = splat::test::scratch_dir("bad_photos_truncated");
  const splat::ImageRGB8 img = gradient();
  for (const std::string ext : {".png", ".jpg", ".bmp", ".tga"}) {
    INFO(ext);
    const std::string bytes = encoded(dir, img, ext);
    const fs::path f = dir / ("photo" + ext);
    REQUIRE(decode_error(f, bytes).empty());
    const splat::ImageRGB8 back = splat::decode_image(f);
    CHECK(back.width == 40);
    CHECK(back.height == 30);
    if (ext != ".jpg") CHECK(back.pixels == img.pixels);  // lossless formats: exact
    // A JPEG's trailing bytes after its end marker (camera makers append data there) are fine.
    if (ext == ".jpg") CHECK(decode_error(f, bytes + std::string(100, '\x07')).empty());

    for (const double kept : {0.9, 0.5}) {
      const std::string e = decode_error(f, bytes.substr(0, size_t(bytes.size() * kept)));
      CHECK_THAT(e, Contains("truncated") || Contains("not a readable image"));
      if (ext == ".bmp" || ext == ".tga") CHECK_THAT(e, Contains("truncated: the"));  // stb alone decodes these
    }
  }
}

TEST_CASE("photos: content that is not the format its extension says is refused", "[photos][bad]") {
  const fs::path dir = splat::test::scratch_dir("bad_photos_format");
  const splat::ImageRGB8 img = gradient();
  const std::string tga = tga_bytes(img);

  // A truncated TGA named .jpg (stb would decode it as a TGA).
  CHECK_THAT(decode_error(dir / "a.jpg", tga.substr(0, tga.size() / 2)),
             Contains("not a JPEG file as its extension '.jpg' says") && Contains("starts with bytes 00 00 02 00"));
  // A whole TGA named .png.
  CHECK_THAT(decode_error(dir / "b.png", tga), Contains("not a PNG file"));
  // A PNG named .JPG or a JPEG named .tga: real photos under the wrong name; the content decides.
  CHECK(decode_error(dir / "c.JPG", encoded(dir, img, ".png")).empty());
  CHECK(decode_error(dir / "d.tga", encoded(dir, img, ".jpg")).empty());
  // Unknown extension: a known signature decides, none is refused.
  CHECK(decode_error(dir / "frame_0001", encoded(dir, img, ".png")).empty());
  CHECK_THAT(decode_error(dir / "e.dat", tga), Contains("not a photo format splatlab reads"));
  CHECK_THAT(decode_error(dir / "empty.jpg", ""), Contains("not a JPEG file") && Contains("it is empty"));

  // probe_images (header only) refuses the same files.
  tiny::write_file(dir / "f.jpg", tga);
  const std::string e = tiny::scene_error_of([&] { splat::probe_images({dir / "f.jpg"}, 1); });
  CHECK_THAT(e, StartsWith((dir / "f.jpg").string() + ": ") && Contains("not a JPEG file"));
}

TEST_CASE("photos: a photo under 8 px a side is refused with the minimum", "[photos][bad]") {
  const fs::path dir = splat::test::scratch_dir("bad_photos_size");
  const fs::path one = dir / "one.png";
  tiny::write_png(one, tiny::solid_image(1, 1, {1, 2, 3}));
  const std::string e = decode_error(one, tiny::read_file(one));
  CHECK_THAT(e, Contains("is 1x1 pixels; a photo must be at least 8x8"));
  // The same from the header alone.
  CHECK_THAT(tiny::scene_error_of([&] { splat::probe_images({one}, 1); }), Contains("is 1x1 pixels"));
  // 8x8 is accepted; 40x7 is not.
  tiny::write_png(dir / "eight.png", tiny::solid_image(8, 8, {1, 2, 3}));
  CHECK(splat::decode_image(dir / "eight.png").width == 8);
  tiny::write_png(dir / "flat.png", tiny::solid_image(40, 7, {1, 2, 3}));
  CHECK_THAT(tiny::scene_error_of([&] { splat::probe_images({dir / "flat.png"}, 1); }), Contains("is 40x7 pixels"));

  // In a scene, the loader names the photo, even when it only reads headers.
  const fs::path scene = dir / "scene";
  tiny::write_tiny_scene(scene, tiny::tiny_reconstruction(4), false);
  const fs::path photo = scene / "images" / "img_2.png";
  tiny::write_png(photo, tiny::solid_image(1, 1, {9, 9, 9}));
  for (const bool load_images : {true, false}) {
    splat::SceneLoadOptions o;
    o.load_images = load_images;
    o.show_progress = false;
    CHECK_THAT(tiny::scene_error_of([&] { splat::load_scene(scene, o); }),
               StartsWith(photo.string() + ": ") && Contains("1x1 pixels"));
  }
}
