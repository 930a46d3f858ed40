#pragma once
// Storage precisions of the engine's arrays. Arithmetic is fp32 always; a narrower precision
// says how values are stored at rest (parameter columns, Adam moments). Defined here, at the
// bottom layer, so that the kernels' public structs and core's parameter columns name the same
// type. The conversions are in kernels/storage_math.h.
//   F32   the default.
//   BF16  fp32's exponent range with 8 significant bits: what mixed precision stores (SH rest
//         coefficients and Adam moments, docs/ARCHITECTURE.md "Precision columns"). fp16 is not
//         offered: far coordinates overflow its 65504 and squared gradients underflow it.
#include <cstddef>
#include <cstdint>

namespace splat {

enum class Precision : uint8_t { F32, BF16 };
constexpr size_t element_size(Precision p) { return p == Precision::F32 ? 4 : 2; }
// "f32", "bf16": the spelling of checkpoint headers and messages.
inline const char* precision_name(Precision p) { return p == Precision::BF16 ? "bf16" : "f32"; }

}  // namespace splat
