#pragma once
// The parameter columns of a Gaussian, described once: name, floats per Gaussian, storage
// precision and optimizer group. The host model, the host and device training state, the
// optimizer, the row edits and the checkpoints all iterate this table, so a column is added or
// changed here and nowhere else. (PLY keeps the standard 3DGS property layout, its own order.)
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include "kernels/precision.h"
#include "kernels/rasterizer.h"

namespace splat {

// Parameter groups: each has its own learning rate and its own Adam moments, and is one column.
enum class Group : int { Means = 0, LogScales, Quats, Opacity, ShDc, ShRest };
inline constexpr int kGroupCount = 6;

// A column's Precision (kernels/precision.h) is how its values are stored at rest (host state,
// checkpoints); a BF16 column holds only values bf16 can represent. Adam's moments are always fp32.

struct ColumnSpec {
  Group group;
  const char* name;
  int fixed_width;      // floats per Gaussian independent of the SH degree
  bool per_sh_rest;     // plus 3 floats per SH coefficient beyond DC
  Precision storage;
  constexpr int width(int sh_degree) const {
    return fixed_width + (per_sh_rest ? 3 * (kernels::sh_coeffs_for_degree(sh_degree) - 1) : 0);
  }
};

// A full table, indexed by Group. Tests may pass a modified copy (e.g. a bf16 column).
using ColumnTable = std::array<ColumnSpec, kGroupCount>;

inline constexpr ColumnTable kParamColumns = {{
    {Group::Means, "means", 3, false, Precision::F32},
    {Group::LogScales, "log_scales", 3, false, Precision::F32},
    {Group::Quats, "quats", 4, false, Precision::F32},
    {Group::Opacity, "opacity_logits", 1, false, Precision::F32},
    {Group::ShDc, "sh_dc", 3, false, Precision::F32},
    {Group::ShRest, "sh_rest", 0, true, Precision::F32},
}};

constexpr bool table_is_indexed_by_group(const ColumnTable& t) {
  for (int i = 0; i < kGroupCount; ++i)
    if (static_cast<int>(t[i].group) != i) return false;
  return true;
}
static_assert(table_is_indexed_by_group(kParamColumns), "kParamColumns[i] must describe Group i");

inline constexpr std::array<Group, kGroupCount> kAllGroups = [] {
  std::array<Group, kGroupCount> a{};
  for (int i = 0; i < kGroupCount; ++i) a[i] = kParamColumns[i].group;
  return a;
}();

inline const char* group_name(Group g) { return kParamColumns[static_cast<int>(g)].name; }
// Floats per row of a group for a storage SH degree.
inline constexpr int group_width(Group g, int sh_degree) { return kParamColumns[static_cast<int>(g)].width(sh_degree); }

// Storage conversions, header-only (the fuzz build compiles a fixed list of core sources).
// round_to_storage: the nearest
// value (ties to even) `p` can store; NaN stays NaN, infinities stay. encode_values /
// decode_values: values in their storage encoding (little-endian, element_size(p) bytes each)
// and back.
namespace detail {
// bf16 is the upper half of an fp32: round the lower half away, to nearest, ties to even.
inline uint16_t to_bf16(float v) {
  uint32_t bits;
  std::memcpy(&bits, &v, 4);
  if (std::isnan(v)) return static_cast<uint16_t>((bits >> 16) | 0x40);  // keep it a (quiet) NaN
  bits += 0x7fffu + ((bits >> 16) & 1u);
  return static_cast<uint16_t>(bits >> 16);
}
inline float from_bf16(uint16_t h) {
  const uint32_t bits = static_cast<uint32_t>(h) << 16;
  float v;
  std::memcpy(&v, &bits, 4);
  return v;
}
}  // namespace detail

inline float round_to_storage(float v, Precision p) {
  return p == Precision::BF16 ? detail::from_bf16(detail::to_bf16(v)) : v;
}

inline std::vector<unsigned char> encode_values(std::span<const float> values, Precision p) {
  std::vector<unsigned char> out(values.size() * element_size(p));
  if (p == Precision::F32) {
    if (!values.empty()) std::memcpy(out.data(), values.data(), out.size());
    return out;
  }
  for (size_t i = 0; i < values.size(); ++i) {
    const uint16_t h = detail::to_bf16(values[i]);
    std::memcpy(out.data() + 2 * i, &h, 2);
  }
  return out;
}

inline void decode_values(const void* bytes, Precision p, std::span<float> out) {
  if (out.empty()) return;  // no buffer to copy from or to
  if (p == Precision::F32) {
    std::memcpy(out.data(), bytes, out.size() * 4);
    return;
  }
  const auto* b = static_cast<const unsigned char*>(bytes);
  for (size_t i = 0; i < out.size(); ++i) {
    uint16_t h;
    std::memcpy(&h, b + 2 * i, 2);
    out[i] = detail::from_bf16(h);
  }
}

}  // namespace splat
