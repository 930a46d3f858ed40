#include "core/image_loader.h"

#include <stb_image.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <exception>
#include <mutex>
#include <thread>

#include "core/scene_errors.h"

namespace splat {
namespace fs = std::filesystem;

namespace {

// Runs fn(i) for i in [0, n) on up to `threads` threads. Stops handing out work after a failure
// and rethrows the failure with the smallest index, so the reported error does not depend on
// thread timing.
void for_each_parallel(size_t n, int threads, const std::function<void(size_t)>& fn) {
  const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
  const size_t workers = std::min<size_t>(n, threads > 0 ? static_cast<size_t>(threads) : hw);
  std::atomic<size_t> next{0};
  std::atomic<bool> failed{false};
  std::mutex error_mutex;
  size_t error_index = n;
  std::exception_ptr error;
  auto work = [&] {
    for (size_t i; !failed && (i = next++) < n;) {
      try {
        fn(i);
      } catch (...) {
        std::lock_guard lock(error_mutex);
        if (i < error_index) {
          error_index = i;
          error = std::current_exception();
        }
        failed = true;
      }
    }
  };
  std::vector<std::thread> pool;
  for (size_t w = 1; w < workers; ++w) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
  if (error) std::rethrow_exception(error);
}

void require_file(const fs::path& file) {
  if (!fs::exists(file)) throw SceneError(file, "image listed in the reconstruction is missing");
  if (!fs::is_regular_file(file)) throw SceneError(file, "image path is not a regular file");
}

[[noreturn]] void fail_decode(const fs::path& file) {
  const char* why = stbi_failure_reason();
  throw SceneError(file, std::string("not a readable image (stb_image: ") + (why ? why : "unknown reason") + ")");
}

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
  for_each_parallel(files.size(), threads, [&](size_t i) {
    require_file(files[i]);
    int w = 0, h = 0, comp = 0;
    if (!stbi_info(files[i].c_str(), &w, &h, &comp)) fail_decode(files[i]);
    sizes[i] = {w, h};
  });
  return sizes;
}

ImageRGB8 decode_image(const fs::path& file) {
  require_file(file);
  int w = 0, h = 0, comp = 0;
  stbi_uc* data = stbi_load(file.c_str(), &w, &h, &comp, 3);
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
