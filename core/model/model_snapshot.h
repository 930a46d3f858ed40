#pragma once
// An immutable copy of the Gaussians' parameters, on one device: what the training session
// publishes for the viewer, and what the viewer renders and exports from.
//
// Snapshots are shared as std::shared_ptr<const ModelSnapshot>: the session swaps in a new one at a
// step boundary, and whoever still holds an older one (the viewer, while drawing it) keeps it
// alive and unchanged. They are built whole by the factories below and never written afterwards,
// so readers on any thread need no lock.
//
// On CUDA the columns live on the source's ComputeContext and the copies that fill them are
// enqueued on that context's stream (device to device, no trip through the host): a reader on the
// same context sees them in stream order; a reader on another context copies them with copy_to,
// which waits for the source's stream. On the CPU backend the columns are host buffers that the
// CPU rasterizer reads directly.
//
// A distributed run (core/transport/) gathers one snapshot of the whole model onto rank 0's context: every
// rank's shard, concatenated in rank order (the order of the gathered model and its global ids), copied
// shard by shard through the communicator's gather, so device to device (peer copies between GPUs,
// stream-ordered copies between ranks on one GPU) and host copies for CPU ranks; nothing goes through the
// host on a GPU.
#include <array>
#include <cstdint>
#include <memory>
#include <span>

#include "core/model/device_gaussians.h"
#include "core/model/gaussian_model.h"
#include "kernels/buffer.h"
#include "kernels/rasterizer.h"

namespace splat::transport {
class Communicator;
}

namespace splat {

class ModelSnapshot {
 public:
  // The trainer's parameters (not their gradients or Adam moments), on the trainer's context.
  // `version` tells snapshots of one session apart; `step` is the trainer's step count.
  static std::shared_ptr<const ModelSnapshot> capture(const DeviceGaussians& g, uint64_t version, int step);
  // The whole model of a distributed run on rank 0's context (comm.context()), from every rank's shard
  // (`shard` on comm.context()); null on the other ranks. Collective: every rank calls it at the same step.
  static std::shared_ptr<const ModelSnapshot> gather(const DeviceGaussians& shard, transport::Communicator& comm,
                                                     uint64_t version, int step);
  // A host model's columns uploaded to `where` (version and step 0).
  static std::shared_ptr<const ModelSnapshot> upload(const GaussianModel& m, const kernels::ComputeContext& where);
  // The same snapshot on another context (same version and step).
  std::shared_ptr<const ModelSnapshot> copy_to(const kernels::ComputeContext& where) const;
  // A snapshot of the given rows (in range, in the order given; same version and step), gathered on
  // this snapshot's context (the viewer's crop box: no trip of the columns through the host).
  std::shared_ptr<const ModelSnapshot> rows(std::span<const int32_t> rows) const;

  uint64_t version() const { return version_; }
  int step() const { return step_; }
  int64_t size() const { return n_; }
  int sh_degree() const { return sh_degree_; }
  const kernels::ComputeContext& context() const { return where_; }
  // A column's fp32 values; empty for SH rest when the source stored it in bf16 (then held as such).
  const kernels::Buffer<float>& param(Group g) const { return params_[static_cast<int>(g)]; }

  // Pointers into the columns, for the rasterizer of this snapshot's backend.
  kernels::GaussiansView view() const;
  // The parameters on the host (PLY export, tests).
  GaussianModel download() const;

 private:
  ModelSnapshot() = default;
  // Copies every column of `source` (living on `from`) into a new snapshot on `to`.
  // Allocates group g's column of n_ rows on where_, of 2-byte (bf16, SH rest only) or 4-byte
  // values, and returns its memory.
  void* allocate(Group g, size_t element_bytes);
  static std::shared_ptr<ModelSnapshot> copy_of(const kernels::GaussiansView& source, int sh_degree,
                                                const kernels::ComputeContext& from, const kernels::ComputeContext& to);

  uint64_t version_ = 0;
  int step_ = 0;
  int64_t n_ = 0;
  int sh_degree_ = 3;
  kernels::ComputeContext where_;
  std::array<kernels::Buffer<float>, kGroupCount> params_;
  kernels::Buffer<uint16_t> sh_rest_bf16_;  // SH rest as the trainer stores it under mixed precision
};

}  // namespace splat
