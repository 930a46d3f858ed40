#pragma once
// What a photo file holds, from its first bytes, checked against what its extension says.
// stb_image picks its decoder from the content and tries TGA last, a format without a signature,
// so any bytes that happen to form a TGA header decode as a picture: a truncated TGA named .jpg
// did. Comparing the signature with the extension first refuses such a file by name.
#include <cstddef>
#include <filesystem>
#include <span>

namespace splat {

enum class PhotoFormat { Jpeg, Png, Bmp, Gif, Psd, Pnm, Hdr, Pic, Tga, Unknown };

const char* photo_format_name(PhotoFormat f);

// Bytes the signatures need; fewer (a tiny file) simply match nothing longer than they are.
inline constexpr size_t kPhotoSignatureBytes = 16;

// The format whose signature the leading bytes carry; Unknown when none does (TGA, which has no
// signature, included).
PhotoFormat sniff_photo_format(std::span<const unsigned char> head);

// The format the file's extension names (case-insensitive); Unknown for other extensions.
PhotoFormat format_of_extension(const std::filesystem::path& file);

// Throws SceneError naming the file when no decoder would read it for what it is: no known
// signature under an extension whose format has one (a damaged file, or a TGA named .jpg), or no
// known signature under an unknown extension. A known signature is accepted under any name (the
// content decides, as it does for the decoder); TGA, which has none, only as .tga.
void check_photo_format(const std::filesystem::path& file, std::span<const unsigned char> head);

}  // namespace splat
