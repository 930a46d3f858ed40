#include "core/model/stored_array.h"

#include <stdexcept>
#include <utility>

#include "kernels/row_ops.h"

namespace splat {

StoredColumnArray::StoredColumnArray(const kernels::ComputeContext& where, Precision precision, bool two_bytes)
    : precision_(precision), two_bytes_(two_bytes), f32_(where), b16_(where) {
  if (two_bytes && precision != Precision::BF16)
    throw std::logic_error(std::string("StoredColumnArray: only bf16 is stored in 2 bytes, not ") +
                           precision_name(precision));
}

void StoredColumnArray::upload(std::span<const float> values) {
  if (two_bytes_) {
    std::vector<uint16_t> bits(values.size());
    for (size_t i = 0; i < values.size(); ++i) bits[i] = kernels::bf16_nearest(values[i]);
    b16_.upload(bits);
    return;
  }
  if (precision_ == Precision::F32) return f32_.upload(values);
  std::vector<float> rounded(values.begin(), values.end());
  for (float& v : rounded) v = kernels::round_nearest(v, precision_);
  f32_.upload(rounded);
}

std::vector<float> StoredColumnArray::download() const {
  if (!two_bytes_) return f32_.download();
  const std::vector<uint16_t> bits = b16_.download();
  std::vector<float> values(bits.size());
  for (size_t i = 0; i < bits.size(); ++i) values[i] = kernels::bf16_to_float(bits[i]);
  return values;
}

void StoredColumnArray::zero() {
  if (two_bytes_)
    b16_.zero();
  else
    f32_.zero();
}

void StoredColumnArray::gather(const int32_t* index, int width, int64_t n_out,
                               const kernels::HandoffBlock& scratch) {
  const kernels::ComputeContext& where = two_bytes_ ? b16_.context() : f32_.context();
  refill(
      static_cast<size_t>(n_out) * width,
      [&](const void* old, size_t element_bytes, void* out) {
        kernels::gather_rows(where, out, old, element_bytes, width, index, n_out);
      },
      scratch);
}

void StoredColumnArray::refill(size_t n, const Fill& fill, const kernels::HandoffBlock& scratch) {
  const size_t bytes = n * element_bytes();
  const kernels::ComputeContext& where = two_bytes_ ? b16_.context() : f32_.context();
  fill(data(), element_bytes(), scratch.data());
  scratch.used_on(where);  // recorded before anything below can throw, so the block outlives the fill
  // A reallocation waits for the fill, which read the old elements.
  if (two_bytes_) b16_.resize(n);
  else f32_.resize(n);
  kernels::copy_bytes(data(), where, scratch.data(), where, bytes);
  scratch.used_on(where);
}

kernels::Buffer<float>& StoredColumnArray::f32() {
  if (two_bytes_) throw std::logic_error("StoredColumnArray: a bf16 array has no fp32 elements");
  return f32_;
}
const kernels::Buffer<float>& StoredColumnArray::f32() const {
  if (two_bytes_) throw std::logic_error("StoredColumnArray: a bf16 array has no fp32 elements");
  return f32_;
}

kernels::StoredArray StoredColumnArray::stored() {
  if (two_bytes_) return {nullptr, b16_.data(), precision_};
  return {f32_.data(), nullptr, precision_};
}

}  // namespace splat
