#pragma once
// The records of the multi-GPU exchange (core/train/sharded/sharded_step.h), described once for packing on
// the sender and unpacking on the receiver (kernels/records.h):
//   forward  one projected pair: conic_opacity, color_depth (16 bytes each, first so that they stay
//            16-byte aligned), mean2d, half (8), global id (8), camera, tiles (4): 64 bytes
//   reverse  the gradients of one pair: d mean2d, d conic_opacity, d color_depth (16 each): 48 bytes
#include <cstdint>

#include "kernels/buffer.h"
#include "kernels/rasterizer.h"
#include "kernels/records.h"

namespace splat::sharded {

// The fields of a pair record over the columns of `p`: a ProjectedGaussians (sources) or
// ReceivedPairs::Columns (targets); Word is const uint32_t or uint32_t accordingly.
template <class Word, class Pairs>
kernels::BasicRecordFields<Word> pair_record(const Pairs& p) {
  kernels::BasicRecordFields<Word> f;
  kernels::add_record_field(f, p.conic_opacity, 4);
  kernels::add_record_field(f, p.color_depth, 4);
  kernels::add_record_field(f, p.mean2d, 2);
  kernels::add_record_field(f, p.half, 2);
  kernels::add_record_field(f, p.id, 1);
  kernels::add_record_field(f, p.camera, 1);
  kernels::add_record_field(f, p.tiles, 1);
  return f;
}

// The fields of a gradient record over three [count,4] gradient arrays.
template <class Word, class P>
kernels::BasicRecordFields<Word> gradient_record(const kernels::ProjectedGradArrays<P>& d) {
  kernels::BasicRecordFields<Word> f;
  kernels::add_record_field(f, d.mean2d, 4);
  kernels::add_record_field(f, d.conic_opacity, 4);
  kernels::add_record_field(f, d.color_depth, 4);
  return f;
}

// Pairs received in the exchange, one column per attribute as the rasterizer reads them.
class ReceivedPairs {
 public:
  // Writable pointers with the member names of kernels::ProjectedGaussians (for pair_record).
  struct Columns {
    int32_t* camera;
    int64_t* id;
    float *mean2d, *conic_opacity, *color_depth;
    int32_t *half, *tiles;
  };

  explicit ReceivedPairs(const kernels::ComputeContext& where)
      : camera_(where), half_(where), tiles_(where), id_(where), mean2d_(where), conic_opacity_(where),
        color_depth_(where) {}

  void resize(int64_t count) {
    count_ = count;
    const size_t m = size_t(count);
    camera_.resize(m), tiles_.resize(m), id_.resize(m), half_.resize(2 * m);
    mean2d_.resize(2 * m), conic_opacity_.resize(4 * m), color_depth_.resize(4 * m);
  }
  Columns columns() {
    return {camera_.data(), id_.data(), mean2d_.data(), conic_opacity_.data(), color_depth_.data(), half_.data(),
            tiles_.data()};
  }
  kernels::ProjectedGaussians view() const {
    return {count_, camera_.data(), id_.data(), mean2d_.data(), conic_opacity_.data(), color_depth_.data(),
            half_.data(), tiles_.data()};
  }

 private:
  int64_t count_ = 0;
  kernels::Buffer<int32_t> camera_, half_, tiles_;
  kernels::Buffer<int64_t> id_;
  kernels::Buffer<float> mean2d_, conic_opacity_, color_depth_;
};

}  // namespace splat::sharded
