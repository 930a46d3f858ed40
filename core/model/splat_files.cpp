#include "core/model/splat_files.h"

#include <algorithm>
#include <cctype>
#include <stdexcept>

#include "core/model/compressed_ply.h"
#include "core/model/ply_io.h"
#include "core/util/user_text.h"

namespace splat {
namespace {

SplatFormat format_or_refuse(const std::filesystem::path& file) {
  if (const auto f = splat_format_of(file)) return *f;
  throw std::invalid_argument(quote_user_text(file.string(), 400) + ": unknown splat file extension; supported: " +
                              supported_splat_formats());
}

}  // namespace

std::optional<SplatFormat> splat_format_of(const std::filesystem::path& file) {
  std::string name = file.filename().string();
  std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  for (const SplatFormatInfo& f : kSplatFormats) {
    const std::string_view ext = f.extension;
    if (name.size() > ext.size() && name.ends_with(ext)) return f.format;
  }
  return std::nullopt;
}

const SplatFormatInfo& splat_format_info(SplatFormat format) {
  for (const SplatFormatInfo& f : kSplatFormats)
    if (f.format == format) return f;
  throw std::logic_error("a splat format without a table entry");
}

std::string supported_splat_formats() {
  std::string out;
  // Listed shortest first, the order a reader meets them in (the table is ordered for matching).
  for (auto it = std::rbegin(kSplatFormats); it != std::rend(kSplatFormats); ++it)
    out += std::string(out.empty() ? "" : ", ") + it->extension;
  return out;
}

std::filesystem::path with_splat_format(const std::filesystem::path& file, SplatFormat format) {
  std::string name = file.filename().string();
  if (const auto old = splat_format_of(file)) name = name.substr(0, name.size() - std::string_view(splat_format_info(*old).extension).size());
  return file.parent_path() / (name + splat_format_info(format).extension);
}

void write_splats(const std::filesystem::path& file, const GaussianModel& model) {
  switch (format_or_refuse(file)) {
    case SplatFormat::Ply: return write_ply(file, model);
    case SplatFormat::CompressedPly: return write_compressed_ply(file, model);
  }
}

GaussianModel read_splats(const std::filesystem::path& file) {
  switch (format_or_refuse(file)) {
    case SplatFormat::Ply: return read_ply(file);
    case SplatFormat::CompressedPly: return read_compressed_ply(file);
  }
  throw std::logic_error("a splat format without a reader");
}

}  // namespace splat
