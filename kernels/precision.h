#pragma once
// Storage precisions of the engine's arrays. Arithmetic is fp32 always; a narrower precision
// says how values are stored at rest (parameter columns, Adam moments). Defined here, at the
// bottom layer, so that the kernels' public structs and core's parameter columns name the same
// type. The conversions are in kernels/storage_math.h.
//   F32   the default.
//   BF16  fp32's exponent range with 8 significant bits: what mixed precision stores (SH rest
//         coefficients and Adam moments, DESIGN.md "Mixed precision and memory").
//   F16   fp16 (max 65504, 11 significant bits): not used by the trainer; it exists so that the
//         tests can show why a naive all-fp16 layout fails where the mixed one does not.
#include <cstddef>
#include <cstdint>

namespace splat {

enum class Precision : uint8_t { F32, BF16, F16 };
inline constexpr Precision kAllPrecisions[] = {Precision::F32, Precision::BF16, Precision::F16};
constexpr size_t element_size(Precision p) { return p == Precision::F32 ? 4 : 2; }
// "f32", "bf16", "f16": the spelling of checkpoint headers and messages.
inline const char* precision_name(Precision p) {
  return p == Precision::BF16 ? "bf16" : p == Precision::F16 ? "f16" : "f32";
}

}  // namespace splat
