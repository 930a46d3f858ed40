// Photos that stb_image 2.27 mishandles (core/scene/photo_structure.h; found by fuzz/fuzz_photo.cpp):
// refused naming the file and the problem, by the header probe and the decoder alike, before stb
// allocates gigabytes, loops forever or writes past a table; the intact files they are made
// from still decode.
#include <catch2/catch.hpp>

#include <stb_image_write.h>

#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include "core/scene/image_loader.h"
#include "tests/io/tiny_scene.h"
#include "tests/support/test_support.h"

namespace fs = std::filesystem;
namespace tiny = splat::test::tiny;
using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;

namespace {

constexpr int kWidth = 24, kHeight = 16;

std::vector<uint8_t> gradient_rgb() {
  std::vector<uint8_t> px;
  for (int y = 0; y < kHeight; ++y)
    for (int x = 0; x < kWidth; ++x) px.insert(px.end(), {uint8_t(10 * x), uint8_t(15 * y), 90});
  return px;
}

void append_to(void* out, void* data, int size) {
  static_cast<std::string*>(out)->append(static_cast<const char*>(data), static_cast<size_t>(size));
}

// stb_image_write's encoding of the gradient in the format `ext` names.
std::string encoded(const std::string& ext) {
  const std::vector<uint8_t> px = gradient_rgb();
  std::string out;
  if (ext == ".png") REQUIRE(stbi_write_png_to_func(append_to, &out, kWidth, kHeight, 3, px.data(), kWidth * 3));
  if (ext == ".jpg") REQUIRE(stbi_write_jpg_to_func(append_to, &out, kWidth, kHeight, 3, px.data(), 90));
  if (ext == ".hdr") {
    const std::vector<float> linear(px.begin(), px.end());
    REQUIRE(stbi_write_hdr_to_func(append_to, &out, kWidth, kHeight, 3, linear.data()));
  }
  return out;
}

// The SceneError message of probing and of decoding `bytes` stored as `file`, which must agree
// ("" when both accept it); each checked to start with the file.
std::string refusal(const fs::path& file, const std::string& bytes) {
  tiny::write_file(file, bytes);
  const std::string probe = tiny::scene_error_of([&] { splat::probe_images({file}, 1); });
  const std::string decode = tiny::scene_error_of([&] { splat::decode_image(file); });
  CHECK(probe == decode);
  if (!decode.empty()) CHECK_THAT(decode, StartsWith(file.string() + ": "));
  return decode;
}

}  // namespace

TEST_CASE("photo structure: a PNG chunk longer than the file is refused before stb allocates it", "[photos][bad]") {
  const fs::path dir = splat::test::scratch_dir("photo_structure_png");
  const std::string png = encoded(".png");
  REQUIRE(refusal(dir / "whole.png", png).empty());
  // The first chunk after the signature and IHDR (8 + 25 bytes) is IDAT; claim 1.7 GB for it.
  const size_t idat = png.find("IDAT") - 4;
  REQUIRE(idat == 33);
  std::string damaged = png;
  damaged.replace(idat, 4, std::string("\x67\x00\x00\x48", 4));
  CHECK_THAT(refusal(dir / "damaged.png", damaged),
             Contains("damaged or truncated: a PNG chunk claims 1728053320 bytes of data where the file has"));
}

TEST_CASE("photo structure: a PNG whose first IDAT is empty is refused; an empty one after data is not",
          "[photos][bad]") {
  const fs::path dir = splat::test::scratch_dir("photo_structure_png_empty_idat");
  const std::string png = encoded(".png");
  const size_t idat = png.find("IDAT") - 4;
  REQUIRE(idat == 33);
  const std::string empty_idat("\0\0\0\0IDAT\0\0\0\0", 12);  // no data; stb does not check the CRC
  CHECK_THAT(refusal(dir / "first_empty.png", png.substr(0, idat) + empty_idat + png.substr(idat)),
             Contains("a PNG whose first image data chunk (IDAT) is empty"));
  const size_t length = size_t(uint8_t(png[idat])) << 24 | size_t(uint8_t(png[idat + 1])) << 16 |
                        size_t(uint8_t(png[idat + 2])) << 8 | uint8_t(png[idat + 3]);
  const size_t after = idat + 12 + length;
  const fs::path later = dir / "later_empty.png";
  CHECK(refusal(later, png.substr(0, after) + empty_idat + png.substr(after)).empty());
  CHECK(splat::decode_image(later).pixels == gradient_rgb());
}

TEST_CASE("photo structure: stb's failure reason is quoted, control bytes escaped", "[photos][bad]") {
  // An unknown critical chunk type: stb splices its four bytes into the reason it gives.
  const std::string png = encoded(".png");
  std::string odd = png.substr(0, 33) + std::string("\0\0\0\0\x1b[2J\0\0\0\0", 12) + png.substr(33);
  // Only the decoder meets the chunk (the header probe stops at IHDR), so only its message is checked.
  const fs::path file = splat::test::scratch_dir("photo_structure_reason") / "odd.png";
  tiny::write_file(file, odd);
  const std::string e = tiny::scene_error_of([&] { splat::decode_image(file); });
  CHECK_THAT(e, Contains("not a readable image (stb_image: '\\x1B[2J PNG chunk not known')"));
  for (const char c : e) CHECK(static_cast<unsigned char>(c) >= 0x20);
}

TEST_CASE("photo structure: HDR run-length data with an empty run or cut short is refused", "[photos][bad]") {
  const fs::path dir = splat::test::scratch_dir("photo_structure_hdr");
  const std::string hdr = encoded(".hdr");
  REQUIRE(refusal(dir / "whole.hdr", hdr).empty());
  CHECK(splat::decode_image(dir / "whole.hdr").width == kWidth);
  // The first scanline: 2 2 0 24, then the red channel's first run count.
  const size_t scanline = hdr.find(std::string("\x02\x02\x00\x18", 4));
  REQUIRE(scanline != std::string::npos);
  std::string empty_run = hdr;
  empty_run[scanline + 4] = 0;
  CHECK_THAT(refusal(dir / "empty_run.hdr", empty_run),
             Contains("damaged or truncated: the HDR run-length data has a run of length 0 at byte " +
                      std::to_string(scanline + 4)));
  // Cut inside the third scanline (stb would read zeros, runs that fill nothing, forever).
  const size_t third = hdr.find(std::string("\x02\x02\x00\x18", 4), hdr.find(std::string("\x02\x02\x00\x18", 4), scanline + 4) + 4);
  REQUIRE(third != std::string::npos);
  CHECK_THAT(refusal(dir / "cut.hdr", hdr.substr(0, third + 9)), Contains("run-length data ends at scanline 2 of 16"));
}

TEST_CASE("photo structure: a JPEG Huffman table with more than 256 codes is refused", "[photos][bad]") {
  const fs::path dir = splat::test::scratch_dir("photo_structure_jpeg");
  const std::string jpg = encoded(".jpg");
  REQUIRE(refusal(dir / "whole.jpg", jpg).empty());
  // The DHT segment: FF C4, its length, then per table a class/id byte and 16 code counts.
  const size_t dht = jpg.find("\xFF\xC4");
  REQUIRE(dht != std::string::npos);
  std::string damaged = jpg;
  damaged[dht + 5] = '\xFF';  // the counts of 1- and 2-bit codes: 255 each
  damaged[dht + 6] = '\xFF';
  CHECK_THAT(refusal(dir / "damaged.jpg", damaged),
             Contains("damaged: a JPEG Huffman table (DHT at byte " + std::to_string(dht) + ") defines") &&
                 Contains("codes, more than the 256 a table holds"));
  // stb takes 0xFF bytes before the start of the image as fill and decodes the file as a JPEG
  // whatever its name; under a name without a signature of its own (TGA) it is checked all the same.
  REQUIRE(refusal(dir / "filled.tga", "\xFF\xFF\xFF" + jpg).empty());
  CHECK_THAT(refusal(dir / "filled_damaged.tga", "\xFF\xFF\xFF" + damaged),
             Contains("damaged: a JPEG Huffman table (DHT at byte " + std::to_string(dht + 3) + ") defines"));
}

TEST_CASE("photo structure: a JPEG scan decoding with a Huffman table no DHT defines is refused", "[photos][bad]") {
  const fs::path dir = splat::test::scratch_dir("photo_structure_jpeg_tables");
  const std::string jpg = encoded(".jpg");
  // Without its DHT segment (FF C4 and the length that counts itself), every table is undefined.
  const size_t dht = jpg.find("\xFF\xC4");
  REQUIRE(dht != std::string::npos);
  const size_t length = static_cast<unsigned char>(jpg[dht + 2]) << 8 | static_cast<unsigned char>(jpg[dht + 3]);
  std::string without = jpg;
  without.erase(dht, 2 + length);
  REQUIRE(without.find("\xFF\xC4") == std::string::npos);
  const size_t sos = without.find("\xFF\xDA");
  CHECK_THAT(refusal(dir / "no_tables.jpg", without),
             Contains("damaged: a JPEG scan (SOS at byte " + std::to_string(sos) +
                      ") decodes with Huffman table DC 0, which no DHT before it defines"));
}

TEST_CASE("photo structure: 16-bit PNM is refused, 8-bit PNM decodes", "[photos][bad]") {
  const fs::path dir = splat::test::scratch_dir("photo_structure_pnm");
  const auto pnm = [](char kind, int channels, int max) {
    std::string s = std::string("P") + kind + "\n" + std::to_string(kWidth) + " " + std::to_string(kHeight) + "\n" +
                    std::to_string(max) + "\n";
    for (int i = 0; i < kWidth * kHeight * channels; ++i) {
      if (max > 255) s += char(i % 7);  // 16-bit samples are big-endian: the high byte first
      s += char(i % 251);
    }
    return s;
  };
  CHECK_THAT(refusal(dir / "grey16.pgm", pnm('5', 1, 65535)), Contains("is a 16-bit PNM"));
  CHECK_THAT(refusal(dir / "colour16.ppm", pnm('6', 3, 1000)), Contains("is a 16-bit PNM"));
  for (const auto& [name, kind, channels] : {std::tuple{"grey8.pgm", '5', 1}, {"colour8.ppm", '6', 3}}) {
    REQUIRE(refusal(dir / name, pnm(kind, channels, 255)).empty());
    const splat::ImageRGB8 img = splat::decode_image(dir / name);
    CHECK(img.width == kWidth);
    CHECK(img.pixels[3] == (channels == 1 ? 1 : 3));  // the second pixel's red: sample 1 or sample 3
  }
}
