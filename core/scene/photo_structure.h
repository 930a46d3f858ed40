#pragma once
// Checks of a whole photo file for what stb_image (2.27, the version Debian 12 ships) mishandles,
// made before it decodes (found by fuzz/fuzz_photo.cpp with stb compiled in and instrumented):
//  - a PNG chunk that claims more bytes than the file holds: stb allocates that much first (up to
//    2 GB for a file of a few hundred bytes);
//  - a Radiance HDR run of length 0, or run-length data that ends early: stb loops forever;
//  - a JPEG Huffman table (DHT) whose 16 code counts add up to more than 256: stb writes past the
//    table, into the heap; a JPEG scan that decodes with a table no DHT defined: stb reads its
//    uninitialised table and indexes out of bounds with it;
//  - a 16-bit PNM (a maximum above 255): stb reads its samples in the wrong byte order, and
//    converts a greyscale one to RGB as 8-bit data, then reads twice that buffer's length;
//  - a PNG whose first image data chunk (IDAT) is empty: stb copies zero bytes from a null pointer.
// The first three are damaged files (a JPEG without its tables may come from a video stream that
// relies on the standard ones, which stb does not know); the last two are valid but cannot be read
// correctly (or safely) by this stb.
// The caller has checked that the file's length fits in an int (stb's lengths are ints).
#include <filesystem>
#include <span>

#include "core/scene/photo_format.h"

namespace splat {

// Throws SceneError naming the file and the problem when a file whose content is `format` (its
// sniffed signature) is one of those; every other file passes.
void check_photo_structure(const std::filesystem::path& file, PhotoFormat format, std::span<const unsigned char> bytes);

}  // namespace splat
