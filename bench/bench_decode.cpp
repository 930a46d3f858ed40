// Photos decoded per second, JPEG with libjpeg-turbo (the loader's) against stb_image, on one thread
// and on all cores: every file of a scene's images/ folder (or the folder given), decoded --repeat
// times. Results: bench/DECODE.md.
//   bench_decode SCENE_OR_IMAGES_FOLDER [--repeat N]
#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "core/scene/image_loader.h"
#include "core/util/parallel_for.h"

namespace fs = std::filesystem;
using splat::JpegDecoder;

namespace {

// Photos a second over `repeat` passes through `files` on `threads` threads; `megapixels` gets the
// pixels of one pass.
double photos_per_s(const std::vector<fs::path>& files, JpegDecoder decoder, int threads, int repeat, double& megapixels) {
  std::vector<double> pixels(files.size());
  const auto t0 = std::chrono::steady_clock::now();
  for (int r = 0; r < repeat; ++r)
    splat::for_each_parallel(files.size(), threads, [&](size_t i) {
      const splat::ImageRGB8 img = splat::decode_image(files[i], decoder);
      pixels[i] = double(img.width) * img.height;
    });
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  megapixels = 0;
  for (double p : pixels) megapixels += p / 1e6;
  return double(files.size()) * repeat / s;
}

}  // namespace

int main(int argc, char** argv) {
  std::string folder;
  int repeat = 3;
  CLI::App app{"Photos decoded per second: libjpeg-turbo against stb_image, one thread and all cores"};
  app.add_option("folder", folder, "A scene folder (its images/) or a folder of photos")->required()->check(CLI::ExistingDirectory);
  app.add_option("--repeat", repeat, "Passes over the photos")->capture_default_str()->check(CLI::Range(1, 100));
  CLI11_PARSE(app, argc, argv);
  fs::path dir = folder;
  if (fs::is_directory(dir / "images")) dir /= "images";
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.is_regular_file()) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  if (files.empty()) {
    std::fprintf(stderr, "bench_decode: no photos in %s\n", dir.string().c_str());
    return 1;
  }
  const int cores = std::max(1u, std::thread::hardware_concurrency());
  std::printf("%s: %zu photos, %d pass(es), %d cores\n\n", dir.string().c_str(), files.size(), repeat, cores);
  std::printf("| decoder | threads | photos/s | megapixels/s |\n|---|---|---|---|\n");
  for (const int threads : {1, cores})
    for (const auto& [decoder, name] : {std::pair{JpegDecoder::Stb, "stb_image"}, {JpegDecoder::LibjpegTurbo, "libjpeg-turbo"}}) {
      double mp = 0;
      const double rate = photos_per_s(files, decoder, threads, repeat, mp);
      std::printf("| %s | %d | %.1f | %.1f |\n", name, threads, rate, rate * mp / double(files.size()));
      std::fflush(stdout);
    }
  return 0;
}
