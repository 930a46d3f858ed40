#include "core/scene/photo_structure.h"

#include <stb_image.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <tuple>

#include "core/scene/scene_errors.h"

namespace splat {
namespace {

// Every chunk up to IEND (4-byte big-endian length, 4-byte type, the data, a 4-byte CRC) must fit
// in the file. A file that ends between chunks is left to the decoder's truncation check. The first
// image data chunk (IDAT) must not be empty: stb copies its zero bytes from a null buffer (undefined
// behaviour, which the sanitizers stop on).
void check_png_chunks(const std::filesystem::path& file, std::span<const unsigned char> bytes) {
  constexpr size_t kSignature = 8, kHeader = 8, kCrc = 4;
  bool image_data = false;  // an IDAT with data seen
  for (size_t pos = kSignature; pos + kHeader <= bytes.size();) {
    const uint32_t length = uint32_t{bytes[pos]} << 24 | uint32_t{bytes[pos + 1]} << 16 | uint32_t{bytes[pos + 2]} << 8 | bytes[pos + 3];
    const size_t left = bytes.size() - pos - kHeader;
    if (length > left || left - length < kCrc)
      throw SceneError(file, "damaged or truncated: a PNG chunk claims " + std::to_string(length) +
                                 " bytes of data where the file has " + std::to_string(left) + " left");
    if (std::memcmp(bytes.data() + pos + 4, "IEND", 4) == 0) return;
    if (std::memcmp(bytes.data() + pos + 4, "IDAT", 4) == 0) {
      if (length == 0 && !image_data)
        throw SceneError(file, "a PNG whose first image data chunk (IDAT) is empty: valid, but the decoder this "
                               "build uses (stb_image) mishandles it; save the photo again with any image editor");
      image_data = image_data || length > 0;
    }
    pos += kHeader + length + kCrc;
  }
}

// Reads the Radiance HDR header the way stb_image does, so that the run-length walk below starts
// where stb's decoder will: lines up to '\n', each cut at 1023 characters (the rest of a longer
// line skipped), a line that is empty or starts with a NUL byte ending the header.
class HdrHeader {
 public:
  explicit HdrHeader(std::span<const unsigned char> bytes) : bytes_(bytes) {}
  std::string line() {
    std::string s;
    while (pos_ < bytes_.size()) {
      const char c = static_cast<char>(bytes_[pos_++]);
      if (c == '\n') break;
      s += c;
      if (s.size() == kMaxLine) {
        while (pos_ < bytes_.size() && bytes_[pos_++] != '\n') {
        }
        break;
      }
    }
    return s;
  }
  size_t pos() const { return pos_; }

 private:
  static constexpr size_t kMaxLine = 1023;
  std::span<const unsigned char> bytes_;
  size_t pos_ = 0;
};

// After the header and the "-Y <height> +X <width>" line, each scanline of a width in 8..32767
// that starts with 2, 2 and the width (16 bits, big-endian) holds, for each of its 4 channels,
// runs up to the width: a count above 128 repeats the next byte count - 128 times, a count of
// 1..128 copies that many bytes. stb_image reads a count of 0, and reads 0 for every byte past
// the end of the file, as a run that fills nothing, and never stops.
void check_hdr_runs(const std::filesystem::path& file, std::span<const unsigned char> bytes) {
  HdrHeader header(bytes);
  header.line();  // #?RADIANCE or #?RGBE
  for (std::string l = header.line(); !l.empty() && l[0] != '\0'; l = header.line()) {
  }
  const std::string resolution = header.line();
  if (resolution.compare(0, 3, "-Y ") != 0) return;  // stb refuses other layouts itself
  char* rest = nullptr;
  const long height = std::strtol(resolution.c_str() + 3, &rest, 10);
  while (*rest == ' ') ++rest;
  if (std::strncmp(rest, "+X ", 3) != 0) return;
  const long width = std::strtol(rest + 3, nullptr, 10);
  if (width < 8 || width >= 32768) return;  // stored flat, pixel by pixel: stb reads a fixed count
  const auto fail = [&](const std::string& problem) {
    throw SceneError(file, "damaged or truncated: the HDR run-length data " + problem);
  };
  size_t pos = header.pos();
  for (long y = 0; y < height; ++y) {
    if (pos + 4 > bytes.size()) fail("ends at scanline " + std::to_string(y) + " of " + std::to_string(height));
    if (bytes[pos] != 2 || bytes[pos + 1] != 2 || (bytes[pos + 2] & 0x80)) return;  // flat from here on, as stb reads it
    pos += 4;  // stb refuses a scanline whose width differs itself
    for (int channel = 0; channel < 4; ++channel)
      for (long x = 0; x < width;) {
        if (pos >= bytes.size()) fail("ends at scanline " + std::to_string(y) + " of " + std::to_string(height));
        const int count = bytes[pos++];
        if (count == 0) fail("has a run of length 0 at byte " + std::to_string(pos - 1));
        x += count > 128 ? count - 128 : count;
        pos += count > 128 ? 1 : static_cast<size_t>(count);
      }
  }
}

// JPEG: markers (0xFF, fill bytes 0xFF, a code), most followed by a 16-bit big-endian length
// that counts itself; entropy-coded data after a scan header, in which 0xFF 0x00 is a data byte
// and 0xFF 0xD0..0xD7 a restart marker. The walk skips segments by their length and data byte by
// byte to the next marker, as stb_image does, and reads each DHT segment the way stb does (its
// tables one after the other while the length left is positive: a class/id byte, 16 counts,
// then as many values as the counts add up to), also where that runs past the segment's length.
// Two faults of stb 2.27 are refused: a table of more than 256 codes (stb writes past it), and a
// scan that decodes with a table no DHT before it defined (stb's tables are uninitialised heap
// memory then, and it indexes with what it finds there: reads out of bounds that differ from run
// to run). Which tables a scan decodes with follows stb: a baseline scan both of its components'
// tables, a progressive one the DC table in a first DC scan and the AC table in an AC scan.
void check_jpeg_huffman_tables(const std::filesystem::path& file, std::span<const unsigned char> bytes) {
  const auto byte = [&](size_t i) -> int { return i < bytes.size() ? bytes[i] : 0; };  // stb reads 0 past the end
  constexpr size_t kMaxCodes = 256;
  std::array<std::array<bool, 4>, 2> defined{};  // [DC, AC][table id]
  bool progressive = false;
  for (size_t pos = 0; pos < bytes.size();) {  // from the start: the 0xFF fill before SOI too
    if (bytes[pos] != 0xFF) {
      ++pos;
      continue;
    }
    while (pos < bytes.size() && bytes[pos] == 0xFF) ++pos;
    if (pos >= bytes.size()) return;
    const int marker = bytes[pos++];
    if (marker == 0x00 || marker == 0x01 || (marker >= 0xD0 && marker <= 0xD8)) continue;  // no length
    if (marker == 0xD9) return;                                                           // end of image
    const size_t length = static_cast<size_t>(byte(pos) << 8 | byte(pos + 1));
    const std::string where = " at byte " + std::to_string(pos - 2);
    if (marker >= 0xC0 && marker <= 0xC2) progressive = marker == 0xC2;  // the frames stb decodes
    if (marker == 0xC4) {
      size_t at = pos + 2;
      for (long left = static_cast<long>(length) - 2; left > 0 && at < bytes.size();) {
        const int table = byte(at);
        if (table >> 4 > 1 || (table & 15) > 3) break;  // stb refuses the table
        size_t codes = 0;
        for (int i = 1; i <= 16; ++i) codes += static_cast<size_t>(byte(at + static_cast<size_t>(i)));
        if (codes > kMaxCodes)
          throw SceneError(file, "damaged: a JPEG Huffman table (DHT" + where + ") defines " + std::to_string(codes) +
                                     " codes, more than the " + std::to_string(kMaxCodes) + " a table holds");
        defined[static_cast<size_t>(table >> 4)][static_cast<size_t>(table & 15)] = true;
        at += 17 + codes;
        left -= static_cast<long>(17 + codes);
      }
    }
    if (marker == 0xDA) {  // component count, then (component, DC table << 4 | AC table) each, then Ss
      const int components = byte(pos + 2);
      const size_t tables = pos + 3, after = tables + 2 * static_cast<size_t>(std::max(components, 0));
      const int spectral_start = byte(after), successive_high = byte(after + 2) >> 4;
      const bool uses_dc = !progressive || (spectral_start == 0 && successive_high == 0);
      const bool uses_ac = !progressive || spectral_start != 0;
      for (int c = 0; c < components; ++c) {
        const int t = byte(tables + 2 * static_cast<size_t>(c) + 1), dc = t >> 4, ac = t & 15;
        if (dc > 3 || ac > 3) break;  // stb refuses the scan
        for (const auto& [used, kind, id] : {std::tuple{uses_dc, 0, dc}, std::tuple{uses_ac, 1, ac}})
          if (used && !defined[static_cast<size_t>(kind)][static_cast<size_t>(id)])
            throw SceneError(file, std::string("damaged: a JPEG scan (SOS") + where + ") decodes with Huffman table " +
                                       (kind == 0 ? "DC " : "AC ") + std::to_string(id) + ", which no DHT before it defines");
      }
    }
    pos += std::max<size_t>(length, 2);
  }
}

}  // namespace

void check_photo_structure(const std::filesystem::path& file, PhotoFormat format, std::span<const unsigned char> bytes) {
  if (format == PhotoFormat::Png) check_png_chunks(file, bytes);
  if (format == PhotoFormat::Hdr) check_hdr_runs(file, bytes);
  if (format == PhotoFormat::Jpeg) check_jpeg_huffman_tables(file, bytes);
  if (format == PhotoFormat::Pnm && stbi_is_16_bit_from_memory(bytes.data(), static_cast<int>(bytes.size())))
    throw SceneError(file, "is a 16-bit PNM, which the image decoder (stb_image 2.27) reads wrongly; convert it to 8 bits "
                           "or to PNG");
}

}  // namespace splat
