#pragma once
// Device memory that one stream fills and others read for as long as they hold it: the viewer's
// snapshots of the model (core/model/model_snapshot.h); also the scratch of the model's whole-column
// edits (core/model/device_gaussians.h), which wants the same: no wait for the whole device when it
// goes back, and the pool's memory again at the next edit. Free of the CUDA headers, like stream.h.
//
// Why not a Buffer: a Buffer's memory goes back with cudaFree, which waits for the whole device. A
// snapshot is dropped by whichever thread lets go of it last, the trainer's or the viewer's, every few
// hundred milliseconds, and a wait for the whole device there drains the training queue (the trainer's
// thread, or a viewer's wait that holds the device) and makes the trainer wait for the viewer's render.
// So this memory comes from the device's stream-ordered pool (cudaMallocAsync, in the order of the
// stream that fills it), every stream that touches it records its use (an event, no wait), and it goes
// back with cudaFreeAsync on a stream of its own that waits, on the device, for those uses: no host
// waits either way. The pool is told not to hand memory freed this way to another stream by making
// that stream wait for the free (cudaMemPoolReuseAllowInternalDependencies off), which would make a
// training stream wait for the viewer's render; the memory is reused once its free has run. And the pool
// keeps as much freed memory as the largest block needed (its release threshold), so that the next
// snapshot reuses its predecessor's memory instead of mapping new memory on the trainer's thread.
// On the CPU backend the memory is host memory and uses are nothing to record.
#include <cstddef>
#include <memory>

#include "kernels/device_context.h"

namespace splat::kernels {

class HandoffBlock {
 public:
  HandoffBlock();
  // `bytes` on `maker`'s device, usable by work enqueued on `maker`'s stream from now on (others wait
  // for an event of that stream first). Throws OutOfMemory (kernels/buffer.h) when the device has no room.
  HandoffBlock(const ComputeContext& maker, size_t bytes);
  ~HandoffBlock();
  HandoffBlock(HandoffBlock&& o) noexcept;
  HandoffBlock& operator=(HandoffBlock&& o) noexcept;
  HandoffBlock(const HandoffBlock&) = delete;
  HandoffBlock& operator=(const HandoffBlock&) = delete;

  void* data() const { return ptr_; }
  size_t bytes() const { return bytes_; }

  // The work enqueued on `user`'s stream so far may touch the memory: it is given back only once that
  // work has run. Every stream that reads or writes the memory on the device calls it after enqueueing
  // that work, the maker's included; host reads that wait for their copies need not. Safe from several
  // threads at once. Nothing to do on the CPU.
  void used_on(const ComputeContext& user) const;

 private:
  struct Uses;
  void release() noexcept;

  ComputeContext where_;  // device and ordinal; the stream plays no part once allocated
  void* ptr_ = nullptr;
  size_t bytes_ = 0;
  std::unique_ptr<Uses> uses_;
};

}  // namespace splat::kernels
