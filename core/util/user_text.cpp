#include "core/util/user_text.h"

#include <cstdint>

namespace splat {
namespace {

// Length of the valid UTF-8 sequence at the start of `s` and its code point, or 0 when the bytes
// there are not valid UTF-8 (overlong forms, surrogates and values above U+10FFFF included).
size_t utf8_sequence(std::string_view s, uint32_t& cp) {
  const auto byte = [&](size_t i) { return static_cast<uint8_t>(s[i]); };
  const uint8_t b0 = byte(0);
  if (b0 < 0x80) {
    cp = b0;
    return 1;
  }
  size_t n = 0;
  uint8_t lo = 0x80, hi = 0xBF;  // allowed range of the second byte
  if (b0 >= 0xC2 && b0 <= 0xDF) n = 2, cp = b0 & 0x1F;
  else if (b0 == 0xE0) n = 3, cp = b0 & 0x0F, lo = 0xA0;  // no overlong 3-byte forms
  else if (b0 >= 0xE1 && b0 <= 0xEF) n = 3, cp = b0 & 0x0F, hi = b0 == 0xED ? 0x9F : 0xBF;  // ED: no surrogates
  else if (b0 == 0xF0) n = 4, cp = b0 & 0x07, lo = 0x90;  // no overlong 4-byte forms
  else if (b0 >= 0xF1 && b0 <= 0xF4) n = 4, cp = b0 & 0x07, hi = b0 == 0xF4 ? 0x8F : 0xBF;  // <= U+10FFFF
  else return 0;
  if (s.size() < n || byte(1) < lo || byte(1) > hi) return 0;
  for (size_t i = 1; i < n; ++i) {
    if ((byte(i) & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (byte(i) & 0x3F);
  }
  return n;
}

// Characters that are valid text but steer the terminal or the line: C1 controls, and those that
// reorder the displayed text (bidi marks, embeddings, overrides, isolates) or break the line.
bool steers_display(uint32_t cp) {
  return (cp >= 0x80 && cp <= 0x9F) || cp == 0x061C || cp == 0x200E || cp == 0x200F ||
         (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069) || cp == 0x2028 || cp == 0x2029;
}

void append_hex_escape(std::string& out, uint8_t b) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  out += "\\x";
  out += kHex[b >> 4];
  out += kHex[b & 0xF];
}

}  // namespace

std::string quote_user_text(std::string_view raw, size_t max_chars) {
  std::string body;
  size_t shown = 0;  // characters `body` prints
  size_t pos = 0;
  std::string piece;
  while (pos < raw.size()) {
    uint32_t cp = 0;
    size_t n = utf8_sequence(raw.substr(pos), cp);
    piece.clear();
    size_t width = 0;
    if (n == 0) {  // not UTF-8: this one byte
      n = 1;
      append_hex_escape(piece, static_cast<uint8_t>(raw[pos]));
      width = 4;
    } else if (cp < 0x20 || cp == 0x7F || steers_display(cp)) {
      for (size_t i = 0; i < n; ++i) append_hex_escape(piece, static_cast<uint8_t>(raw[pos + i]));
      width = 4 * n;
    } else if (cp == '\\' || cp == '\'') {
      piece = {'\\', static_cast<char>(cp)};
      width = 2;
    } else {
      piece.assign(raw.substr(pos, n));
      width = 1;
    }
    if (shown + width > max_chars) break;
    body += piece;
    shown += width;
    pos += n;
  }
  std::string out = "'" + body;
  if (pos < raw.size()) return out + "...' (" + std::to_string(raw.size()) + " bytes)";
  return out + "'";
}

}  // namespace splat
