#pragma once
// Image files -> ImageRGB8, decoded on several threads (JPEG with libjpeg-turbo, the other formats with
// stb_image), plus the area filter
// that downsamples them for a data factor. Missing or undecodable files throw SceneError.
#include <filesystem>
#include <functional>
#include <vector>

#include "core/util/progress.h"
#include "core/scene/scene.h"

namespace splat {

struct ImageSize {
  int width = 0, height = 0;
};

// The images folder for a data factor: images_N/ when N > 1 and it exists, else images/.
std::filesystem::path images_dir_for(const std::filesystem::path& scene_folder, int data_factor);

// The size an image gets when downsampled by `factor` (rounded, at least 1x1).
ImageSize downsampled_size(ImageSize stored, int factor);

// Reads only the headers, on `threads` threads (0 = all cores).
std::vector<ImageSize> probe_images(const std::vector<std::filesystem::path>& files, int threads);

// Which decoder reads JPEG photos: libjpeg-turbo (core/scene/jpeg_decoder.h, the loader's) or
// stb_image (as every other format; bench_decode and the tests compare the two).
enum class JpegDecoder { LibjpegTurbo, Stb };

ImageRGB8 decode_image(const std::filesystem::path& file, JpegDecoder jpeg = JpegDecoder::LibjpegTurbo);

// Box filter weighted by the exact overlap of each output pixel with the source pixels, so
// every source pixel contributes in proportion to its area (no aliasing when shrinking).
ImageRGB8 resize_area(const ImageRGB8& src, int width, int height);

// Decodes every file on `threads` threads (0 = all cores) and passes each image through
// finish(index, image) on the same thread (resizing, undistortion). When several files fail,
// the error of the first one in list order is thrown. progress (optional) gets one add per file.
using ImageFinish = std::function<ImageRGB8(size_t index, ImageRGB8 decoded)>;
std::vector<ImageRGB8> load_images(const std::vector<std::filesystem::path>& files, int threads,
                                   const ImageFinish& finish, Progress* progress = nullptr);

}  // namespace splat
