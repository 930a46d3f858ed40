#pragma once
// How an in-process rank pulls bytes out of its peers' buffers. CPU ranks memcpy. CUDA ranks enqueue
// device copies on their own stream, ordered by events against the peers' streams, so that no rank
// waits on the host for device work (ranks sharing one GPU keep it busy).
//
// Within one collective (see rendezvous.h) a rank calls: sends_ready() before posting, copy_from()
// (or copy_rows_from()) for each peer slice after the first barrier, reads_done() before the second barrier, and
// after_reader() for each peer that read its send buffer after the second barrier. Tokens are
// opaque (a cudaEvent_t on CUDA, null on the CPU) and stay valid until the rank's next collective.
#include <cstddef>
#include <memory>

#include <span>

#include "kernels/device_context.h"
#include "kernels/gated_rows.h"

namespace splat::transport {

class RankCopier {
 public:
  virtual ~RankCopier() = default;
  // Token: this rank's send buffer holds what its stream wrote so far.
  virtual void* sends_ready() = 0;
  // Copies `bytes` from a peer's buffer, once that peer's ready token has passed, into this rank's buffer.
  virtual void copy_from(void* dst, const void* src, size_t bytes, void* peer_ready) = 0;
  // Likewise for `rows` rows of several columns gated by a peer's flags (kernels/gated_rows.h): the
  // rows whose gate is 0 are not read, and written (as zeros) only in the columns marked zero_gated.
  // `peer_device`: the CUDA device holding the
  // peer's buffers (-1: host memory). Returns whether it could leave the rows out: a CUDA rank copies
  // every row, as sent, from a GPU whose memory it cannot reach directly.
  virtual bool copy_rows_from(std::span<const kernels::RowColumn> columns, int64_t rows, const int32_t* gate,
                              void* peer_ready, int peer_device) = 0;
  // Token: this rank's copies (reads of its peers' buffers) are complete.
  virtual void* reads_done() = 0;
  // Later work on this rank's stream (writes into its send buffer) waits for a peer's reads.
  virtual void after_reader(void* reader_done) = 0;
};

// memcpy for CPU ranks; stream-ordered device copies for CUDA ranks (context's device and stream).
std::unique_ptr<RankCopier> make_rank_copier(const kernels::ComputeContext& where);

}  // namespace splat::transport
