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
#include "kernels/storage_math.h"
#include "kernels/rasterizer.h"

namespace splat {

// Parameter groups: each has its own learning rate and its own Adam moments, and is one column.
enum class Group : int { Means = 0, LogScales, Quats, Opacity, ShDc, ShRest };
inline constexpr int kGroupCount = 6;

// A column's precisions (kernels/precision.h): `storage` is how its values are stored (host
// state, checkpoints, the device), `moments` how its two Adam moments are stored on the device. A
// narrow column holds only values its precision represents; the optimizer computes in fp32 and
// rounds what it writes back (kernels/storage_math.h). On the device, BF16 arrays take 2 bytes per
// value where a kernel reads them (SH rest values, every moment); other BF16 columns are fp32
// arrays holding bf16 values (DeviceGaussians). Host state and checkpoints keep moments as fp32.

struct ColumnSpec {
  Group group;
  const char* name;
  int fixed_width;      // floats per Gaussian independent of the SH degree
  bool per_sh_rest;     // plus 3 floats per SH coefficient beyond DC
  Precision storage;
  Precision moments = Precision::F32;
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

// Mixed precision (--amp, docs/ARCHITECTURE.md "Precision columns"): the SH rest coefficients, 45 of
// a Gaussian's 59 values, are stored in bf16, and every column's Adam moments too; the other
// values stay fp32: the means need fp32's precision (a far scene's coordinates in the thousands
// with sub-millimetre steps), and the scales, rotations, opacities and base colours are few (14
// values) and decide the geometry and tone the loss sees first. Measured on the demo scene (5 seeds,
// tests/core/test_amp.cpp): this table ends +0.05 dB from fp32; with those 14 values in bf16 as well,
// -0.11 dB. Moments only steer the step's size and direction, for which 8 significant bits do; bf16
// keeps fp32's range, so squared gradients (1e-12 and below) do not underflow as they would in
// fp16.
inline constexpr ColumnTable kAmpColumns = {{
    {Group::Means, "means", 3, false, Precision::F32, Precision::BF16},
    {Group::LogScales, "log_scales", 3, false, Precision::F32, Precision::BF16},
    {Group::Quats, "quats", 4, false, Precision::F32, Precision::BF16},
    {Group::Opacity, "opacity_logits", 1, false, Precision::F32, Precision::BF16},
    {Group::ShDc, "sh_dc", 3, false, Precision::F32, Precision::BF16},
    {Group::ShRest, "sh_rest", 0, true, Precision::BF16, Precision::BF16},
}};

// Whether group g is stored in fp32 in both of the product's tables: the strategies' device plans write
// fp32 values into such columns in place (kernels/refine_plan.h, kernels/mcmc_relocate.h).
constexpr bool stored_fp32(Group g) {
  return kParamColumns[static_cast<int>(g)].storage == Precision::F32 &&
         kAmpColumns[static_cast<int>(g)].storage == Precision::F32;
}

// The same columns with other precisions: tables differ in precisions only.
constexpr bool same_columns(const ColumnTable& a, const ColumnTable& b) {
  for (int i = 0; i < kGroupCount; ++i)
    if (a[i].group != b[i].group || a[i].fixed_width != b[i].fixed_width || a[i].per_sh_rest != b[i].per_sh_rest)
      return false;
  return true;
}
static_assert(same_columns(kParamColumns, kAmpColumns), "the AMP table describes the same columns");

constexpr bool table_is_indexed_by_group(const ColumnTable& t) {
  for (int i = 0; i < kGroupCount; ++i)
    if (static_cast<int>(t[i].group) != i) return false;
  return true;
}
static_assert(table_is_indexed_by_group(kParamColumns), "kParamColumns[i] must describe Group i");
static_assert(table_is_indexed_by_group(kAmpColumns), "kAmpColumns[i] must describe Group i");

inline constexpr std::array<Group, kGroupCount> kAllGroups = [] {
  std::array<Group, kGroupCount> a{};
  for (int i = 0; i < kGroupCount; ++i) a[i] = kParamColumns[i].group;
  return a;
}();

inline const char* group_name(Group g) { return kParamColumns[static_cast<int>(g)].name; }
// Floats per row of a group for a storage SH degree.
inline constexpr int group_width(Group g, int sh_degree) { return kParamColumns[static_cast<int>(g)].width(sh_degree); }
// The widest group's width (the SH rest at degree 1 and above): what a scratch for any column holds per row.
inline constexpr int widest_group_width(int sh_degree) {
  int w = 0;
  for (Group g : kAllGroups) w = group_width(g, sh_degree) > w ? group_width(g, sh_degree) : w;
  return w;
}

// Storage conversions, header-only (the fuzz build compiles a fixed list of core sources), on the
// kernels' shared bit conversions (kernels/storage_math.h). round_to_storage: the nearest value
// (ties to even) `p` can store; NaN stays NaN, infinities stay. encode_values / decode_values:
// values in their storage encoding (little-endian, element_size(p) bytes each) and back.
inline float round_to_storage(float v, Precision p) { return kernels::round_nearest(v, p); }

inline std::vector<unsigned char> encode_values(std::span<const float> values, Precision p) {
  std::vector<unsigned char> out(values.size() * element_size(p));
  if (p == Precision::F32) {
    if (!values.empty()) std::memcpy(out.data(), values.data(), out.size());
    return out;
  }
  for (size_t i = 0; i < values.size(); ++i) {
    const uint16_t h = kernels::bf16_nearest(values[i]);
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
    out[i] = kernels::bf16_to_float(h);
  }
}

}  // namespace splat
