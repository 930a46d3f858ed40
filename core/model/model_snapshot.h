#pragma once
// An immutable copy of the Gaussians' parameters, on one device: what the training session
// publishes for the viewer, and what the viewer renders and exports from.
//
// Snapshots are shared as std::shared_ptr<const ModelSnapshot>: the session swaps in a new one at a
// step boundary, and whoever still holds an older one (the viewer, while drawing it) keeps it
// alive and unchanged. They are built whole by the factories below and never written afterwards,
// so readers on any thread need no lock.
//
// On CUDA the copies that fill a snapshot are enqueued on the stream of the context that makes it (the
// trainer's, which is a non-blocking stream of its own: kernels/stream.h), device to device, with no trip
// through the host and no host wait, and an event (`ready`) is recorded after them. The columns live on
// the device's plain context (ordinal, no stream: context()), since the snapshot outlives the trainer and
// its stream. A reader never assumes stream order with the maker: one on the device waits for the event
// on its own stream (ready_on, no host wait) before its kernels read the columns; the host reads
// (download, column_host, copy_to) wait for the event first. Nothing is ever written into a snapshot once
// made. Its columns live in one block of hand-off memory (kernels/handoff_memory.h): taken from the
// device's stream-ordered pool in the maker's stream order, and given back, when the last holder lets
// go, in stream order after every use recorded on it: the maker's copies, and each reader's work, which a
// reader on the device records with used_on after enqueueing it. No host wait either way, so the thread
// that drops a snapshot (the trainer's when it publishes the next, or the viewer's) never waits for the
// device, and a trainer that publishes the next snapshot never touches what a viewer may still be reading.
// On the CPU backend the columns are host buffers that the CPU rasterizer reads directly.
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
#include <vector>

#include "core/model/device_gaussians.h"
#include "core/model/gaussian_model.h"
#include "kernels/buffer.h"
#include "kernels/handoff_memory.h"
#include "kernels/rasterizer.h"
#include "kernels/stream.h"

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
  // A snapshot of the given rows (in range, in the order given; same version and step), gathered on the
  // device by `on` (the viewer's crop box, on the viewer's stream: no trip of the columns through the
  // host, no wait for the trainer's stream) when it is a context of this snapshot's CUDA device, else on
  // the snapshot's own context.
  std::shared_ptr<const ModelSnapshot> rows(std::span<const int32_t> rows, const kernels::ComputeContext& on) const;
  std::shared_ptr<const ModelSnapshot> rows(std::span<const int32_t> rows) const { return this->rows(rows, where_); }

  // Makes `reader`'s later work wait, on the device, for the copies that filled this snapshot (no host
  // wait); call it before enqueueing anything on `reader` that reads the columns (view()).
  void ready_on(const kernels::ComputeContext& reader) const { ready_.wait_on(reader); }
  // `reader`'s work enqueued so far may read the columns: the memory goes back only after it has run.
  // A reader on the device calls it after enqueueing its reads (no host wait); host reads need not.
  void used_on(const kernels::ComputeContext& reader) const { memory_.used_on(reader); }

  uint64_t version() const { return version_; }
  int step() const { return step_; }
  int64_t size() const { return n_; }
  int sh_degree() const { return sh_degree_; }
  // The device the columns live on (a CUDA context carries no stream: see above).
  const kernels::ComputeContext& context() const { return where_; }
  // A column's fp32 values; empty for SH rest when the source stored it in bf16 (then held as such). On
  // CUDA read them on the device after ready_on, or on the host with column_host.
  std::span<const float> param(Group g) const;
  // param(g) on the host, once the copies that filled it have run.
  std::vector<float> column_host(Group g) const;

  // Pointers into the columns, for the rasterizer of this snapshot's backend.
  kernels::GaussiansView view() const;
  // The parameters on the host (PLY export, tests).
  GaussianModel download() const;

 private:
  ModelSnapshot() = default;
  // Lays out every column of n_ rows at sh_degree_ in one block on `maker`'s device, in `maker`'s stream
  // order (SH rest as 2-byte bf16 values when `bf16_rest`, everything else fp32), and sets where_.
  void allocate(const kernels::ComputeContext& maker, bool bf16_rest);
  // Group g's memory in the block, and its size in bytes.
  void* column(Group g) const;
  size_t column_bytes(Group g) const { return bytes_[static_cast<int>(g)]; }
  // Copies every column of `source` (living on `from`) into a new snapshot on `to`'s device, enqueued on
  // `to`'s stream, and records `ready` after them.
  static std::shared_ptr<ModelSnapshot> copy_of(const kernels::GaussiansView& source, int sh_degree,
                                                const kernels::ComputeContext& from, const kernels::ComputeContext& to);

  uint64_t version_ = 0;
  int step_ = 0;
  int64_t n_ = 0;
  int sh_degree_ = 3;
  kernels::ComputeContext where_;  // device and ordinal, no stream
  kernels::StreamEvent ready_;     // after the copies that filled the columns
  kernels::HandoffBlock memory_;   // every column
  std::array<size_t, kGroupCount> offset_{}, bytes_{};  // of each group's column in memory_
  bool bf16_rest_ = false;  // SH rest as the trainer stores it under mixed precision
};

}  // namespace splat
