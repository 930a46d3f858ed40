// libFuzzer target: a photo's way through the loader's checks and decoder (core/scene/image_loader.h,
// core/scene/photo_format.h): the signature-vs-extension check and stb_image's header probe
// (probe_images), then the decode (decode_image). Input: one byte that picks the file's extension
// (kPhotoExtensions, modulo its size), then the file.
//
// The scene loader decodes a photo only after its probed size matched its camera's (an integer
// fraction of it), so a header may not size a decode by itself; here a budget of kMaxPixels
// stands in for the camera. An accepted decode must have the size the probe reported, the size
// that the camera check was made on; anything else aborts.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "core/scene/image_loader.h"
#include "fuzz/fuzz_file.h"
#include "fuzz/photo_extensions.h"

namespace {

constexpr long kMaxPixels = 512 * 512;

void decode_within_budget(const std::filesystem::path& file) {
  const splat::ImageSize probed = splat::probe_images({file}, 1).at(0);
  if (static_cast<long>(probed.width) * probed.height > kMaxPixels) return;
  const splat::ImageRGB8 img = splat::decode_image(file);
  if (img.width != probed.width || img.height != probed.height ||
      img.pixels.size() != static_cast<size_t>(img.width) * img.height * 3) {
    std::fprintf(stderr, "splatlab fuzz: %s probed %dx%d but decoded %dx%d (%zu bytes)\n", file.c_str(), probed.width,
                 probed.height, img.width, img.height, img.pixels.size());
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using splat::fuzz::kPhotoExtensions;
  if (size == 0) return 0;
  const std::filesystem::path file =
      splat::fuzz::scratch_file(std::string("photo") + kPhotoExtensions[data[0] % kPhotoExtensions.size()]);
  splat::fuzz::write_file(file, {data + 1, size - 1});
  splat::fuzz::expect_accept_or_refuse(file, [&] { decode_within_budget(file); });
  return 0;
}
