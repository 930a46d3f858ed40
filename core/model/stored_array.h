#pragma once
// One array of a parameter column on the device (values, or one of Adam's moments) in its
// storage precision: fp32 elements, or 2-byte bf16 encodings where the column's table asks for
// bf16 and a kernel reads that encoding (core/model/param_columns.h). An fp32 array of a bf16
// column holds values rounded to bf16. Host values go in and come out as fp32, rounded to nearest
// on the way in.
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "kernels/buffer.h"
#include "kernels/handoff_memory.h"
#include "kernels/precision.h"
#include "kernels/storage_math.h"

namespace splat {

class StoredColumnArray {
 public:
  StoredColumnArray() = default;
  StoredColumnArray(const kernels::ComputeContext& where, Precision precision, bool two_bytes);

  Precision precision() const { return precision_; }
  bool two_bytes() const { return two_bytes_; }
  size_t size() const { return two_bytes_ ? b16_.size() : f32_.size(); }
  size_t bytes() const { return two_bytes_ ? b16_.bytes() : f32_.bytes(); }
  // Bytes allocated (the size plus the spare capacity kept for growth).
  size_t capacity_bytes() const { return two_bytes_ ? b16_.capacity() * 2 : f32_.capacity() * 4; }

  // The elements as stored (fp32 or bf16) and the size of one.
  const void* data() const { return two_bytes_ ? static_cast<const void*>(b16_.data()) : f32_.data(); }
  void* data() { return two_bytes_ ? static_cast<void*>(b16_.data()) : f32_.data(); }
  size_t element_bytes() const { return two_bytes_ ? 2 : 4; }

  void upload(std::span<const float> values);
  std::vector<float> download() const;
  void zero();
  // Row i becomes old row index[i] (-1: zeros; index on this array's device), rows of `width` values; the gather goes through
  // `scratch` (see refill).
  void gather(const int32_t* index, int width, int64_t n_out, const kernels::HandoffBlock& scratch);
  // Replaces the elements with `n` that fill(old, element_bytes, out) writes into `out` (n elements
  // of element_bytes, 4 or 2) from the ones now held, `old`: an edit that moves encodings as they are,
  // whatever the precision. `out` is `scratch`, made on this array's context with room for n elements
  // of 4 bytes (its uses are recorded here); the result is then copied into this array's own
  // allocation, which grows only when it must (Buffer::resize). So an edit of many columns allocates
  // one scratch, not one column each: with ranks as threads of one process, a refinement's
  // allocations and frees (cudaFree waits for the whole device) were what made it slower at 4 GPUs
  // than at 1 (bench/TWO_GPUS.md).
  using Fill = std::function<void(const void* old, size_t element_bytes, void* out)>;
  void refill(size_t n, const Fill& fill, const kernels::HandoffBlock& scratch);

  // The fp32 elements; throws std::logic_error for a 2-byte array.
  kernels::Buffer<float>& f32();
  const kernels::Buffer<float>& f32() const;
  // The bf16 encodings (null for an fp32 array).
  const kernels::Bf16* bf16() const { return two_bytes_ ? reinterpret_cast<const kernels::Bf16*>(b16_.data()) : nullptr; }
  kernels::StoredArray stored();

 private:
  Precision precision_ = Precision::F32;
  bool two_bytes_ = false;
  kernels::Buffer<float> f32_;
  kernels::Buffer<uint16_t> b16_;
};

}  // namespace splat
