#pragma once
// What one rank of a distributed training run sees of the others (docs/ARCHITECTURE.md "Exchange").
//
// The training step needs four things from its peers, and this interface is exactly those:
//   - counts first: how many projected Gaussians each rank sends each other rank (all_to_all_counts),
//   - the sparse payload and, in reverse, its gradients (all_to_all_v of byte slices; all_to_all_buffers
//     for several columns at once),
//   - global decisions (the MCMC cap, the Gaussian count shown): a small sum on the host (all_reduce_sum),
//   - one model: shards gathered to rank 0 for PLY and checkpoints (gather), settings from rank 0 (broadcast).
// Backends implement the two primitives (all_to_all_v, all_reduce_sum); the rest is built on them here,
// so every backend gets the same semantics for free.
//
// Memory: byte buffers live where the rank computes, context(): host memory for a CPU rank, device
// memory on context().ordinal for a CUDA rank. all_reduce_sum works on host values (the decisions it
// serves are taken on the host).
//
// Ordering on CUDA: a collective reads what the work already enqueued on context().stream wrote, and
// its results are ready for the work enqueued on that stream after it returns (backends may return
// before the device copies finish; the in-process backend does, NCCL waits).
//
// Failure: every rank calls the same collectives in the same order. When a rank fails (throws, runs out
// of memory, loses its device) or a peer does not arrive within the timeout, every other rank's pending
// and later call throws CommError naming that rank and its device; no call waits forever.
#include <chrono>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/device_context.h"

namespace splat::transport {

// A collective that cannot complete: a rank failed or timed out (failed_rank() names it), or the ranks'
// arguments disagree (failed_rank() is -1 then).
class CommError : public std::runtime_error {
 public:
  CommError(const std::string& what, int failed_rank) : std::runtime_error(what), failed_rank_(failed_rank) {}
  int failed_rank() const { return failed_rank_; }

 private:
  int failed_rank_;
};

// How long a rank waits for its peers before it declares the run stuck. A backstop for a peer that hangs
// without failing: a peer that fails is reported at once. Long by default because one rank may
// legitimately keep the others waiting (rank 0 writing a checkpoint before the next collective).
struct CommOptions {
  std::chrono::milliseconds timeout{std::chrono::minutes(5)};
};

// "rank 2 (CUDA device 1)", "rank 0 (CPU)": how messages name a rank; its device alone, "CUDA device 1".
std::string describe_rank(int rank, const kernels::ComputeContext& where);
std::string describe_device(const kernels::ComputeContext& where);

// Where each peer's slice lies in one byte buffer: counts[p] bytes at byte offset offsets[p], one entry
// per rank (size() entries each; spans into the caller's host memory).
struct PeerSlices {
  std::span<const int64_t> counts;
  std::span<const int64_t> offsets;
};

// One buffer of an exchange over several buffers: all_to_all_v's arguments for that buffer.
struct ExchangeBuffer {
  const void* send = nullptr;
  PeerSlices sends;
  void* recv = nullptr;
  PeerSlices recvs;
};

class Communicator {
 public:
  virtual ~Communicator() = default;

  virtual int rank() const = 0;
  virtual int size() const = 0;
  virtual const kernels::ComputeContext& context() const = 0;

  // Sends send[sends.offsets[p], +sends.counts[p]) to rank p and receives recvs.counts[p] bytes from rank p
  // at recv + recvs.offsets[p], for every p including this rank. Counts must agree pairwise (what p sends q
  // is what q expects from p) and may be zero. Receive slices must not overlap each other or `send`.
  virtual void all_to_all_v(const void* send, PeerSlices sends, void* recv, PeerSlices recvs) = 0;
  // all_to_all_v of every buffer, as one collective: each column of a structure of arrays goes from its
  // own array to its own array, with nothing packed or unpacked on either side. Every rank passes the
  // same number of buffers. NCCL sends them all in one group (one launch, one wait); the default runs
  // one all_to_all_v per buffer, in order.
  virtual void all_to_all_buffers(std::span<const ExchangeBuffer> buffers);
  // all_to_all_buffers of rows gated by their sender (kernels/gated_rows.h): buffer b holds rows of
  // row_bytes[b] bytes (4, 8 or 16), every buffer's slice for a peer holds the same rows, and `gate`
  // (one int32 per send row, in context() memory, row-aligned with the sends) marks the rows their
  // receiver needs. A row whose gate is 0 arrives as sent, or is left out: the in-process backend
  // leaves it out (no bytes over the link between GPUs, and none written on the receiver, whose bytes
  // of that row stay as they were), except in buffer `zeroed` (-1: none), where it arrives as zeros so
  // that the receiver can tell the rows it holds. The default sends every row. Returns whether such
  // rows were left out.
  virtual bool all_to_all_gated(std::span<const ExchangeBuffer> buffers, std::span<const int64_t> row_bytes,
                                const int32_t* gate, int zeroed);

  // all_to_all_gated without a copy, where every rank's kernels reach every other rank's memory (the
  // in-process backend: CPU ranks, or CUDA ranks on one GPU or on GPUs with peer access): the caller's
  // own work writes its rows straight into its peers' receive buffers. open_mapped_writes takes the
  // exchange's buffers (their send pointers are not read) and returns where this rank's slice for peer q
  // begins in q's receive buffer b, as [b][q] (q = rank() included), with this rank's later work
  // ordered after every peer's earlier work (which may still read those buffers). The caller then
  // enqueues the writes (all of the rows the gate keeps, and zeros in the zeroed column for the others)
  // and calls close_mapped_writes: every rank's later work then sees every peer's writes. Both are
  // collectives. Where the backend cannot (the default) open_mapped_writes returns an empty vector on
  // every rank, nothing is to be closed, and the caller exchanges with all_to_all_gated instead.
  virtual std::vector<std::vector<void*>> open_mapped_writes(std::span<const ExchangeBuffer> buffers);
  virtual void close_mapped_writes();
  // The other way round: where each peer q's slice for this rank begins in q's send buffer b, as [b][q]
  // (q = rank() included), with this rank's later work ordered after everything each peer's work wrote
  // before (it reads them there instead of receiving a copy). A peer writes those send buffers again
  // only after its next exchange of any kind, whose waits order it after this rank's reads enqueued
  // before it. Empty where the backend cannot map (the default), as above.
  virtual std::vector<std::vector<const void*>> open_mapped_reads(std::span<const ExchangeBuffer> buffers);
  // Says that this rank's work enqueued so far includes its last read of the buffers of its latest
  // mapped exchanges (its receive buffers, the peers' send buffers): the next open_mapped_writes then
  // orders the peers after this point rather than after everything this rank enqueues until that
  // collective. A rank that trains on between the two (its optimizer, its next projection's set-up)
  // then holds back no peer whose own open comes later: the peer finds the point long passed instead of
  // waiting for the rank's latest work and a hop between the devices. Not a collective; the default
  // does nothing (every open orders after all earlier work).
  virtual void finish_mapped_reads() {}

  // Element-wise sum over ranks, in place, on host values; every rank gets the same bits (the in-process
  // backend adds in rank order; MPI and NCCL give every rank the same result). Sizes must agree.
  virtual void all_reduce_sum(std::span<float> host_values) = 0;
  virtual void all_reduce_sum(std::span<int64_t> host_values) = 0;

  // --- Built on the two primitives above. ---

  // The counts exchange: send_counts[p] (what this rank will send p) arrives at p as recv_counts[rank()].
  // Both arrays hold size() values on context() memory, so the caller copies recv_counts (with anything
  // else it needs) to the host in one transfer.
  void all_to_all_counts(const int64_t* send_counts, int64_t* recv_counts);

  // Copies `bytes` at `data` on rank `root` into `data` on every other rank (context() memory).
  void broadcast(void* data, int64_t bytes, int root);

  // Every rank's value, in rank order, on every rank (host): shard sizes before a gather, for instance.
  std::vector<int64_t> all_gather_value(int64_t mine);

  // Rank `root` receives every rank's `bytes` bytes at `send`, concatenated in rank order, into `recv`
  // (context() memory, room for the sum of bytes_per_rank; unused on the other ranks). bytes_per_rank is
  // what all_gather_value(bytes) returned, known on every rank.
  void gather(const void* send, int64_t bytes, void* recv, std::span<const int64_t> bytes_per_rank, int root = 0);

  // Returns on every rank once every rank has entered it (host order only; device work is not waited for).
  void barrier();

 protected:
  // Throws std::invalid_argument unless both slice sets have size() non-negative entries.
  void check_slices(PeerSlices sends, PeerSlices recvs) const;
};

}  // namespace splat::transport
