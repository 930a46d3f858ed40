#include "core/scene/photo_format.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <string>

#include "core/scene/scene_errors.h"
#include "core/util/user_text.h"

namespace splat {
namespace {

bool starts_with(std::span<const unsigned char> head, const char* sig, size_t n) {
  return head.size() >= n && std::memcmp(head.data(), sig, n) == 0;
}

// "00 00 02 00 ...": the leading bytes, for a message about a file whose signature is wrong.
std::string leading_bytes(std::span<const unsigned char> head) {
  if (head.empty()) return "it is empty";
  std::string s = "it starts with bytes";
  for (size_t i = 0; i < std::min<size_t>(head.size(), 8); ++i) {
    char hex[4];
    std::snprintf(hex, sizeof hex, " %02X", head[i]);
    s += hex;
  }
  return s;
}

}  // namespace

const char* photo_format_name(PhotoFormat f) {
  switch (f) {
    case PhotoFormat::Jpeg: return "JPEG";
    case PhotoFormat::Png: return "PNG";
    case PhotoFormat::Bmp: return "BMP";
    case PhotoFormat::Gif: return "GIF";
    case PhotoFormat::Psd: return "PSD";
    case PhotoFormat::Pnm: return "PNM";
    case PhotoFormat::Hdr: return "HDR";
    case PhotoFormat::Pic: return "PIC";
    case PhotoFormat::Tga: return "TGA";
    case PhotoFormat::Unknown: break;
  }
  return "unknown";
}

PhotoFormat sniff_photo_format(std::span<const unsigned char> head) {
  // stb_image takes any run of 0xFF before the start-of-image code 0xD8 as fill bytes (no other
  // format's signature starts with 0xFF), so such a file is a JPEG to it, whatever its name says.
  const size_t fill = static_cast<size_t>(std::find_if(head.begin(), head.end(), [](unsigned char b) { return b != 0xFF; }) - head.begin());
  if (fill >= 1 && fill < head.size() && head[fill] == 0xD8) return PhotoFormat::Jpeg;
  if (starts_with(head, "\x89PNG\r\n\x1A\n", 8)) return PhotoFormat::Png;
  if (starts_with(head, "BM", 2)) return PhotoFormat::Bmp;
  if (starts_with(head, "GIF87a", 6) || starts_with(head, "GIF89a", 6)) return PhotoFormat::Gif;
  if (starts_with(head, "8BPS", 4)) return PhotoFormat::Psd;
  if (starts_with(head, "P5", 2) || starts_with(head, "P6", 2)) return PhotoFormat::Pnm;  // the binary PNMs stb reads
  if (starts_with(head, "#?RADIANCE", 10) || starts_with(head, "#?RGBE", 6)) return PhotoFormat::Hdr;
  if (starts_with(head, "\x53\x80\xF6\x34", 4)) return PhotoFormat::Pic;
  return PhotoFormat::Unknown;
}

PhotoFormat format_of_extension(const std::filesystem::path& file) {
  std::string ext = file.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (ext == ".jpg" || ext == ".jpeg" || ext == ".jpe" || ext == ".jfif") return PhotoFormat::Jpeg;
  if (ext == ".png") return PhotoFormat::Png;
  if (ext == ".bmp" || ext == ".dib") return PhotoFormat::Bmp;
  if (ext == ".gif") return PhotoFormat::Gif;
  if (ext == ".psd") return PhotoFormat::Psd;
  if (ext == ".pnm" || ext == ".ppm" || ext == ".pgm") return PhotoFormat::Pnm;
  if (ext == ".hdr") return PhotoFormat::Hdr;
  if (ext == ".pic") return PhotoFormat::Pic;
  if (ext == ".tga") return PhotoFormat::Tga;
  return PhotoFormat::Unknown;
}

void check_photo_format(const std::filesystem::path& file, std::span<const unsigned char> head) {
  const PhotoFormat named = format_of_extension(file);
  const PhotoFormat content = sniff_photo_format(head);
  // A known signature decides, whatever the name says: stb decodes by content, and photos saved
  // under the wrong extension are real data. TGA has no signature, so only a .tga name vouches for it.
  if (content != PhotoFormat::Unknown || named == PhotoFormat::Tga) return;
  if (named == PhotoFormat::Unknown)
    throw SceneError(file, "not a photo format splatlab reads (JPEG, PNG, BMP, GIF, PSD, PNM, HDR, PIC, or TGA named .tga): " +
                               leading_bytes(head));
  const std::string ext = quote_user_text(file.extension().string());
  throw SceneError(file, std::string("not a ") + photo_format_name(named) + " file as its extension " + ext +
                             " says: " + leading_bytes(head) + ", not the " + photo_format_name(named) +
                             " signature (a damaged file, or another format renamed)");
}

}  // namespace splat
