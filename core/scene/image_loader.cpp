#include "core/scene/image_loader.h"

#include <stb_image.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <exception>
#include <fstream>
#include <iterator>
#include <limits>
#include <mutex>
#include <optional>
#include <span>
#include <thread>
#include <utility>

#include "core/util/parallel_for.h"
#include "core/scene/jpeg_decoder.h"
#include "core/scene/photo_format.h"
#include "core/scene/photo_structure.h"
#include "core/scene/scene_errors.h"
#include "core/util/user_text.h"

namespace splat {
namespace fs = std::filesystem;

namespace {

void require_file(const fs::path& file) {
  std::error_code ec;  // a path that cannot be looked at (a symbolic link loop) is named too
  const fs::file_status st = fs::status(file, ec);
  if (st.type() == fs::file_type::not_found) throw SceneError(file, "image listed in the reconstruction is missing");
  if (ec) throw SceneError(file, "cannot look at the image: " + ec.message());
  if (!fs::is_regular_file(st)) throw SceneError(file, "image path is not a regular file");
}

// stb_image's reason may carry the file's bytes: for an unknown critical PNG chunk it is the chunk's
// four type bytes spliced into a static buffer ("XXXX PNG chunk not known"), control bytes and all.
[[noreturn]] void fail_decode(const fs::path& file) {
  const char* why = stbi_failure_reason();
  throw SceneError(file, "not a readable image (stb_image: " + (why ? quote_user_text(why) : "unknown reason") + ")");
}

// Real captures are hundreds of pixels a side. A stored photo smaller than 8 px a side (a 1x1
// tracking pixel, an icon, a failed export) shows nothing of the scene, and is smaller than the
// loss's 11x11 SSIM window, so training on it would fit the window's padding. 8 px still admits
// the small synthetic scenes the tests write.
constexpr int kMinPhotoSide = 8;

void check_photo_size(const fs::path& file, int w, int h) {
  if (w < kMinPhotoSide || h < kMinPhotoSide)
    throw SceneError(file, "is " + std::to_string(w) + "x" + std::to_string(h) + " pixels; a photo must be at least " +
                               std::to_string(kMinPhotoSide) + "x" + std::to_string(kMinPhotoSide) +
                               " (smaller is a thumbnail or placeholder, not a view of the scene)");
}

// The whole file, at most what stb_image takes (its lengths are ints).
std::vector<unsigned char> read_bytes(const fs::path& file) {
  std::ifstream in(file, std::ios::binary | std::ios::ate);
  if (!in) throw SceneError(file, "cannot open image");
  const auto size = static_cast<size_t>(std::max<std::streamoff>(in.tellg(), 0));
  if (size > static_cast<size_t>(std::numeric_limits<int>::max()))
    throw SceneError(file, "is larger than 2 GB, more than the image decoder reads");
  std::vector<unsigned char> bytes(size);
  in.seekg(0);
  in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  if (!in) throw SceneError(file, "read error");
  return bytes;
}

// The file, checked for everything that must hold before stb_image sees any of it: a format
// splatlab reads under its name and none of the damage stb mishandles
// (core/scene/photo_structure.h), since its header probe already trips over some (a JPEG's Huffman
// tables come before its size).
std::vector<unsigned char> read_photo(const fs::path& file) {
  require_file(file);
  std::vector<unsigned char> bytes = read_bytes(file);
  check_photo_format(file, std::span(bytes).first(std::min(bytes.size(), kPhotoSignatureBytes)));
  check_photo_structure(file, sniff_photo_format(bytes), bytes);
  return bytes;
}

// The stored size from stb_image's header probe, at least the smallest photo's.
ImageSize probe_photo(const fs::path& file, const std::vector<unsigned char>& bytes) {
  int w = 0, h = 0, comp = 0;
  if (!stbi_info_from_memory(bytes.data(), static_cast<int>(bytes.size()), &w, &h, &comp)) fail_decode(file);
  check_photo_size(file, w, h);
  return {w, h};
}

// stb_image reads a file through these callbacks so that a decoder running past the end of the
// data is noticed: stb itself fills a cut-off file with zeros and decodes it (a truncated BMP or
// TGA comes back as a picture with a black bottom). A decoder asks for more only while it still
// needs data, so a request at the end means the file ended too early.
struct BoundedStream {
  const std::vector<unsigned char>& bytes;
  size_t pos = 0;
  bool ran_past_end = false;

  static int read(void* user, char* out, int size) {
    auto& s = *static_cast<BoundedStream*>(user);
    const size_t n = std::min(static_cast<size_t>(std::max(size, 0)), s.bytes.size() - s.pos);
    if (n == 0 && size > 0) s.ran_past_end = true;
    std::memcpy(out, s.bytes.data() + s.pos, n);
    s.pos += n;
    return static_cast<int>(n);
  }
  static void skip(void* user, int n) {
    auto& s = *static_cast<BoundedStream*>(user);
    if (n > 0 && static_cast<size_t>(n) > s.bytes.size() - s.pos) s.ran_past_end = true;
    s.pos = std::min(s.bytes.size(), s.pos + static_cast<size_t>(std::max(n, 0)));
  }
  static int eof(void* user) {
    const auto& s = *static_cast<const BoundedStream*>(user);
    return s.pos >= s.bytes.size();
  }
};

}  // namespace

fs::path images_dir_for(const fs::path& scene_folder, int data_factor) {
  if (data_factor > 1) {
    const fs::path d = scene_folder / ("images_" + std::to_string(data_factor));
    if (fs::is_directory(d)) return d;
  }
  return scene_folder / "images";
}

ImageSize downsampled_size(ImageSize s, int factor) {
  auto shrink = [factor](int v) { return std::max(1, static_cast<int>(std::lround(static_cast<double>(v) / factor))); };
  return {shrink(s.width), shrink(s.height)};
}

std::vector<ImageSize> probe_images(const std::vector<fs::path>& files, int threads) {
  std::vector<ImageSize> sizes(files.size());
  for_each_parallel(files.size(), threads, [&](size_t i) { sizes[i] = probe_photo(files[i], read_photo(files[i])); });
  return sizes;
}

ImageRGB8 decode_image(const fs::path& file, JpegDecoder jpeg) {
  const std::vector<unsigned char> bytes = read_photo(file);
  const ImageSize probed = probe_photo(file, bytes);
  if (jpeg == JpegDecoder::LibjpegTurbo && sniff_photo_format(bytes) == PhotoFormat::Jpeg)
    if (std::optional<ImageRGB8> img = decode_jpeg(file, bytes, probed.width, probed.height)) return std::move(*img);
  int w = 0, h = 0, comp = 0;
  BoundedStream stream{bytes};
  const stbi_io_callbacks io{&BoundedStream::read, &BoundedStream::skip, &BoundedStream::eof};
  stbi_uc* data = stbi_load_from_callbacks(&io, &stream, &w, &h, &comp, 3);
  if (stream.ran_past_end) {  // whether or not stb noticed
    stbi_image_free(data);
    const PhotoFormat f = sniff_photo_format(bytes);  // Unknown here means a .tga (checked above)
    throw SceneError(file, std::string("truncated: the ") + (f == PhotoFormat::Unknown ? "TGA" : photo_format_name(f)) +
                               " data ends before the image does (an incomplete copy or download?)");
  }
  if (!data) fail_decode(file);
  ImageRGB8 img;
  img.width = w;
  img.height = h;
  img.pixels.assign(data, data + static_cast<size_t>(w) * h * 3);
  stbi_image_free(data);
  return img;
}

namespace {
struct Tap {
  int src;
  float weight;
};
// For each output index, the source indices it overlaps and the overlap fraction of its span.
std::vector<std::vector<Tap>> area_taps(int in, int out) {
  std::vector<std::vector<Tap>> taps(out);
  const double scale = static_cast<double>(in) / out;
  for (int o = 0; o < out; ++o) {
    const double lo = o * scale, hi = (o + 1) * scale;
    for (int s = static_cast<int>(std::floor(lo)); s < std::min(in, static_cast<int>(std::ceil(hi))); ++s) {
      const double overlap = std::min(hi, s + 1.0) - std::max(lo, static_cast<double>(s));
      if (overlap > 0) taps[o].push_back({s, static_cast<float>(overlap / scale)});
    }
  }
  return taps;
}
}  // namespace

ImageRGB8 resize_area(const ImageRGB8& src, int width, int height) {
  const auto tx = area_taps(src.width, width);
  const auto ty = area_taps(src.height, height);
  // Horizontal pass into floats, then vertical pass with rounding.
  std::vector<float> rows(static_cast<size_t>(src.height) * width * 3);
  for (int y = 0; y < src.height; ++y)
    for (int x = 0; x < width; ++x)
      for (const Tap& t : tx[x])
        for (int c = 0; c < 3; ++c)
          rows[(static_cast<size_t>(y) * width + x) * 3 + c] += t.weight * src.pixels[(static_cast<size_t>(y) * src.width + t.src) * 3 + c];
  ImageRGB8 out;
  out.width = width;
  out.height = height;
  out.pixels.resize(static_cast<size_t>(width) * height * 3);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x)
      for (int c = 0; c < 3; ++c) {
        float v = 0;
        for (const Tap& t : ty[y]) v += t.weight * rows[(static_cast<size_t>(t.src) * width + x) * 3 + c];
        out.pixels[(static_cast<size_t>(y) * width + x) * 3 + c] = static_cast<uint8_t>(std::clamp(std::lround(v), 0L, 255L));
      }
  return out;
}

std::vector<ImageRGB8> load_images(const std::vector<fs::path>& files, int threads, const ImageFinish& finish,
                                   Progress* progress) {
  std::vector<ImageRGB8> images(files.size());
  for_each_parallel(files.size(), threads, [&](size_t i) {
    images[i] = finish ? finish(i, decode_image(files[i])) : decode_image(files[i]);
    if (progress) progress->add();
  });
  return images;
}

}  // namespace splat
