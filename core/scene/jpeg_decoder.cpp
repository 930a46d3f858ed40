#include "core/scene/jpeg_decoder.h"

// jpeglib.h needs size_t and FILE declared first.
#include <cstddef>
#include <cstdio>
#include <csetjmp>
#include <string>

#include <jpeglib.h>
#include <jerror.h>  // after jpeglib.h: the message codes

#include "core/scene/scene_errors.h"
#include "core/util/user_text.h"

namespace splat {
namespace {

// libjpeg reports a fatal error by calling error_exit, which must not return: it jumps back to
// decode_jpeg's setjmp (no C++ object with a destructor lives between the two). Warnings are counted:
// the one for data that ends too early (JWRN_JPEG_EOF) makes the photo truncated.
struct ErrorManager {
  jpeg_error_mgr pub;
  std::jmp_buf jump;
  char message[JMSG_LENGTH_MAX] = {};
  bool ended_early = false;
};

[[noreturn]] void on_error(j_common_ptr cinfo) {
  auto* e = reinterpret_cast<ErrorManager*>(cinfo->err);
  e->pub.format_message(cinfo, e->message);
  std::longjmp(e->jump, 1);
}

void on_message(j_common_ptr cinfo, int level) {
  auto* e = reinterpret_cast<ErrorManager*>(cinfo->err);
  if (level < 0 && e->pub.msg_code == JWRN_JPEG_EOF) e->ended_early = true;
}

enum class Outcome { Decoded, Refused, OtherSize, FourChannels };

// The decode between setjmp and the end, free of C++ objects with destructors (longjmp skips them);
// `img` lives in the caller. Refused: e.message says why.
Outcome decode(j_decompress_ptr cinfo, ErrorManager& e, std::span<const unsigned char> bytes, ImageRGB8& img) {
  if (setjmp(e.jump)) return Outcome::Refused;
  jpeg_create_decompress(cinfo);
  jpeg_mem_src(cinfo, bytes.data(), static_cast<unsigned long>(bytes.size()));
  jpeg_read_header(cinfo, TRUE);
  if (cinfo->jpeg_color_space == JCS_CMYK || cinfo->jpeg_color_space == JCS_YCCK) return Outcome::FourChannels;
  cinfo->out_color_space = JCS_RGB;
  jpeg_start_decompress(cinfo);
  if (int(cinfo->output_width) != img.width || int(cinfo->output_height) != img.height) return Outcome::OtherSize;
  img.pixels.resize(size_t(img.width) * img.height * 3);
  while (cinfo->output_scanline < cinfo->output_height) {
    JSAMPROW row = img.pixels.data() + size_t(cinfo->output_scanline) * img.width * 3;
    jpeg_read_scanlines(cinfo, &row, 1);
  }
  jpeg_finish_decompress(cinfo);
  return Outcome::Decoded;
}

}  // namespace

std::optional<ImageRGB8> decode_jpeg(const std::filesystem::path& file, std::span<const unsigned char> bytes, int width,
                                     int height) {
  jpeg_decompress_struct cinfo{};
  ErrorManager e;
  cinfo.err = jpeg_std_error(&e.pub);
  e.pub.error_exit = on_error;
  e.pub.emit_message = on_message;
  // 0xFF bytes before the start-of-image marker are fill to stb_image and to the format sniff
  // (core/scene/photo_format.h); libjpeg wants the marker first.
  size_t start = 0;
  while (start + 1 < bytes.size() && bytes[start] == 0xFF && bytes[start + 1] == 0xFF) ++start;
  ImageRGB8 img;
  img.width = width;
  img.height = height;
  Outcome outcome = Outcome::Refused;
  try {
    outcome = decode(&cinfo, e, bytes.subspan(start), img);
  } catch (...) {  // the pixels' allocation
    jpeg_destroy_decompress(&cinfo);
    throw;
  }
  const int decoded_w = int(cinfo.output_width), decoded_h = int(cinfo.output_height);
  jpeg_destroy_decompress(&cinfo);
  if (outcome == Outcome::FourChannels) return std::nullopt;
  if (outcome == Outcome::Refused)
    throw SceneError(file, "not a readable image (libjpeg: " + quote_user_text(e.message) + ")");
  if (outcome == Outcome::OtherSize)
    throw SceneError(file, "the JPEG frame is " + std::to_string(decoded_w) + "x" + std::to_string(decoded_h) +
                               " where its header probe said " + std::to_string(width) + "x" + std::to_string(height));
  if (e.ended_early)
    throw SceneError(file, "truncated: the JPEG data ends before the image does (an incomplete copy or download?)");
  return img;
}

}  // namespace splat
