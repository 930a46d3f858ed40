#pragma once
// The photo fuzz target's first input byte picks the file's extension from this list (modulo its
// size); the seed corpus writer uses the same list to prefix each photo with its extension's index.
#include <array>

namespace splat::fuzz {

// Every format stb_image reads, under its usual extension, and one extension no format has.
inline constexpr std::array<const char*, 10> kPhotoExtensions = {".jpg", ".png", ".bmp", ".gif", ".psd",
                                                                 ".ppm", ".hdr", ".pic", ".tga", ".txt"};

}  // namespace splat::fuzz
