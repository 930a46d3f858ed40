#pragma once
// The file formats Gaussians are exported in, chosen by the file name's extension: one table and one
// write function for `splatlab export` and the GUI's save alike.
#include <filesystem>
#include <optional>
#include <string>

#include "core/model/gaussian_model.h"

namespace splat {

enum class SplatFormat { Ply, CompressedPly };

struct SplatFormatInfo {
  SplatFormat format;
  const char* extension;    // the file name's ending, lower case
  const char* description;  // for help texts and refusals
};

// Longer endings first: "x.compressed.ply" is compressed, not a plain ".ply".
inline constexpr SplatFormatInfo kSplatFormats[] = {
    {SplatFormat::CompressedPly, ".compressed.ply", "compressed PLY of the PlayCanvas/SuperSplat web viewers, about 16 bytes a Gaussian"},
    {SplatFormat::Ply, ".ply", "3DGS PLY of float properties, as the reference code and most viewers read it"},
};

// The format a file name asks for (its ending, in any case), or nullopt.
std::optional<SplatFormat> splat_format_of(const std::filesystem::path& file);
const SplatFormatInfo& splat_format_info(SplatFormat format);
// ".ply, .compressed.ply": what a refusal lists.
std::string supported_splat_formats();

// The file name with its format ending (a known one, if any) replaced by `format`'s: the GUI's
// format choice. "a/b.ply" -> "a/b.compressed.ply"; "b" -> "b.compressed.ply".
std::filesystem::path with_splat_format(const std::filesystem::path& file, SplatFormat format);

// Writes `model` in the format `file`'s ending names. Throws std::invalid_argument naming the file
// and the supported endings for any other ending, PlyError when the file cannot be written.
void write_splats(const std::filesystem::path& file, const GaussianModel& model);
// Reads a file in the format its ending names (same refusal as write_splats).
GaussianModel read_splats(const std::filesystem::path& file);

}  // namespace splat
