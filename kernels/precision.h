#pragma once
// Storage precisions of the engine's arrays. Arithmetic is fp32 always; a narrower precision
// says how values are stored at rest (parameter columns, projected attributes). Defined here,
// at the bottom layer, so that the kernels' public structs and core's parameter columns name
// the same type.
#include <cstddef>
#include <cstdint>

namespace splat {

enum class Precision : uint8_t { F32, BF16 };
constexpr size_t element_size(Precision p) { return p == Precision::BF16 ? 2 : 4; }
// "f32", "bf16": the spelling of checkpoint headers and messages.
inline const char* precision_name(Precision p) { return p == Precision::BF16 ? "bf16" : "f32"; }

}  // namespace splat
