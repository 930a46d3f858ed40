#pragma once
// Conversions between fp32 and the narrow storage precisions (kernels/precision.h), shared by the
// CPU reference, the CUDA kernels and core's host state, so that every backend stores a value with
// the same bits.
//
// Rounding: to nearest (ties to even) when a value is converted once (uploads, checkpoints), and
// stochastic where a value is rewritten every step (Adam's updates of bf16 parameters and moments):
// a bf16 SH coefficient near 0.1 has a spacing of 2^-11 ~ 5e-4, larger than twice the Adam step of
// its learning rate (1.25e-4), so rounding to nearest would undo nearly every update. Stochastic
// rounding rounds up with probability equal to the remainder's fraction of the spacing, so the
// stored value moves by the update on average. The random bits come from a hash of (seed, index),
// the same on every backend, so the CUDA step stays bitwise the CPU step.
#include <cstdint>
#include <cstring>

#include "kernels/hd.h"
#include "kernels/precision.h"

namespace splat::kernels {

SPLAT_HD uint32_t float_bits(float v) {
#if defined(__CUDA_ARCH__)
  return __float_as_uint(v);
#else
  uint32_t b;
  std::memcpy(&b, &v, 4);
  return b;
#endif
}
SPLAT_HD float bits_float(uint32_t b) {
#if defined(__CUDA_ARCH__)
  return __uint_as_float(b);
#else
  float v;
  std::memcpy(&v, &b, 4);
  return v;
#endif
}
SPLAT_HD bool is_nan_bits(uint32_t b) { return (b & 0x7fffffffu) > 0x7f800000u; }

// bf16 is the upper half of an fp32.
SPLAT_HD float bf16_to_float(uint16_t h) { return bits_float(uint32_t(h) << 16); }
// Nearest, ties to even; NaN stays a (quiet) NaN, infinities stay.
SPLAT_HD uint16_t bf16_nearest(float v) {
  uint32_t b = float_bits(v);
  if (is_nan_bits(b)) return uint16_t((b >> 16) | 0x40);
  b += 0x7fffu + ((b >> 16) & 1u);
  return uint16_t(b >> 16);
}
// Stochastic: rounds away from zero with probability (dropped low half) / 2^16, given 16 uniform
// random bits in `random`. Finite values stay finite unless they are within one spacing of the
// largest bf16; NaN and infinities stay.
SPLAT_HD uint16_t bf16_stochastic(float v, uint32_t random) {
  const uint32_t b = float_bits(v);
  if (is_nan_bits(b)) return uint16_t((b >> 16) | 0x40);
  if ((b & 0x7fffffffu) == 0x7f800000u) return uint16_t(b >> 16);
  return uint16_t((b + (random & 0xffffu)) >> 16);
}

// The nearest value precision `p` stores, as an fp32.
SPLAT_HD float round_nearest(float v, Precision p) {
  return p == Precision::BF16 ? bf16_to_float(bf16_nearest(v)) : v;
}

// 32 random bits for element `index` of a stream named by `seed`: the seed's 64 bits folded by a
// multiply (the same for every element of a stream, so a kernel computes it once), then added to the
// index times the golden ratio and mixed by "lowbias32" (C. Wellons' 32-bit integer hash, full avalanche
// in two multiplies). Deterministic, so both backends draw the same bits. Adam rounds an element's
// parameter and both moments from one draw (adam_math.h, element_rounding_bits): a 64-bit SplitMix64
// draw per element, or three, made that bandwidth-bound step compute-bound on an H100
// (bench/TRAINING.md, "Mixed precision: where the step time goes"). Indices wrap at 2^32: elements that
// far apart share their bits, which biases nothing.
SPLAT_HD uint32_t rounding_bits(uint64_t seed, uint64_t index) {
  uint32_t x = uint32_t(index) * 0x9E3779B9u + uint32_t((seed * 0x9E3779B97F4A7C15ull) >> 32);
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  x *= 0x846ca68bu;
  return x ^ (x >> 16);
}

// A bf16 value as the rasterizer reads it: T(x) with T float or double decodes it, so the SH
// evaluation (raster_math.h, templated on the stored scalar) reads bf16 rows without a copy.
struct Bf16 {
  uint16_t bits = 0;
  SPLAT_HD explicit operator float() const { return bf16_to_float(bits); }
  SPLAT_HD explicit operator double() const { return double(bf16_to_float(bits)); }
};
static_assert(sizeof(Bf16) == 2, "Bf16 rows are arrays of 2-byte values");

// An array of values in a storage precision, as the optimizer reads and writes it: either 2-byte
// bf16 encodings (`bf16`, precision BF16) or fp32 elements (`f32`) holding values rounded to
// `precision` (a bf16 column whose kernels read fp32 is emulated this way). Exactly one is set.
struct StoredArray {
  float* f32 = nullptr;
  uint16_t* bf16 = nullptr;
  Precision precision = Precision::F32;
};
SPLAT_HD float load_stored(const StoredArray& a, int64_t i) { return a.bf16 ? bf16_to_float(a.bf16[i]) : a.f32[i]; }
// Stores v at i: bf16 stochastically with `random`, fp32 as it is.
SPLAT_HD void store_stored(const StoredArray& a, int64_t i, float v, uint32_t random) {
  if (a.bf16) a.bf16[i] = bf16_stochastic(v, random);
  else if (a.precision == Precision::BF16) a.f32[i] = bf16_to_float(bf16_stochastic(v, random));
  else a.f32[i] = v;
}

}  // namespace splat::kernels
