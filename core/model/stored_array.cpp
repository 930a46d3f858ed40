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

void StoredColumnArray::gather(const kernels::Buffer<int32_t>& index, int width, int64_t n_out,
                               kernels::Buffer<float>& scratch_f32, kernels::Buffer<uint16_t>& scratch_b16) {
  const size_t n = static_cast<size_t>(n_out) * width;
  if (two_bytes_) {
    scratch_b16.resize(n);
    kernels::gather_rows(b16_.context(), scratch_b16.data(), b16_.data(), width, index.data(), n_out);
    std::swap(b16_, scratch_b16);
  } else {
    scratch_f32.resize(n);
    kernels::gather_rows(f32_.context(), scratch_f32.data(), f32_.data(), width, index.data(), n_out);
    std::swap(f32_, scratch_f32);
  }
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
