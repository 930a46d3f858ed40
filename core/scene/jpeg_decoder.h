#pragma once
// JPEG photos decoded with libjpeg-turbo (Debian's libjpeg62-turbo, Ubuntu's libjpeg-turbo8), which
// OSS-Fuzz fuzzes continuously upstream and whose SIMD decoder is several times faster than
// stb_image's on the photos captures are made of (bench/DECODE.md). stb_image keeps the other
// formats (core/scene/image_loader.h).
#include <filesystem>
#include <optional>
#include <span>

#include "core/scene/scene.h"

namespace splat {

// Decodes the JPEG `bytes` of `file` to RGB (greyscale converted), which the header probe found to be
// `width` x `height` (checked again before the pixels are allocated). nullopt for a CMYK or YCCK JPEG
// (a print workflow's), which libjpeg does not convert to RGB: the caller decodes it otherwise. Throws
// SceneError naming the file when libjpeg refuses the data, when its size differs from the probe's,
// and when the data ends before the image does (libjpeg itself only warns and fills the rest with grey).
std::optional<ImageRGB8> decode_jpeg(const std::filesystem::path& file, std::span<const unsigned char> bytes,
                                     int width, int height);

}  // namespace splat
