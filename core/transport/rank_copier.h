#pragma once
// How an in-process rank moves bytes between its buffers and its peers': it pulls whole slices out of
// their send buffers, and writes gated rows into their receive buffers (over a link a write does not
// wait for a round trip, a read does). CPU ranks memcpy. CUDA ranks enqueue device copies on their
// own stream, ordered by events against the peers' streams, so that no rank waits on the host for
// device work (ranks sharing one GPU keep it busy).
//
// Within one collective (see rendezvous.h) a rank calls: ready() before posting, copy_from() or
// copy_rows_to() for each peer slice after the first barrier (copy_own_rows() for its own slice of a
// gated exchange), copies_done() before the second barrier, and after_peer() for each peer whose copies
// touched its buffers after the second barrier.
// Tokens are opaque (a cudaEvent_t on CUDA, null on the CPU) and stay valid until the rank's next
// collective.
#include <cstddef>
#include <memory>

#include <span>

#include "kernels/device_context.h"
#include "kernels/gated_rows.h"

namespace splat::transport {

class RankCopier {
 public:
  virtual ~RankCopier() = default;
  // Token: this rank's send buffers hold what its stream wrote so far, and its receive buffers are no
  // longer read by its stream (peers may write them).
  virtual void* ready() = 0;
  // Copies `bytes` from a peer's buffer, once that peer's ready token has passed, into this rank's buffer.
  virtual void copy_from(void* dst, const void* src, size_t bytes, void* peer_ready) = 0;
  // Writes `rows` rows of several columns of this rank's, gated by its flags (kernels/gated_rows.h),
  // into a peer's buffers once that peer's ready token has passed: the rows whose gate is 0 are not
  // read, and written (as zeros) only in the columns marked zero_gated. `peer_device`: the CUDA device
  // holding the peer's buffers (-1: host memory). Returns whether it could leave the rows out: a CUDA
  // rank copies every row, as sent, to a GPU whose memory it cannot reach directly.
  virtual bool copy_rows_to(std::span<const kernels::RowColumn> columns, int64_t rows, const int32_t* gate,
                            void* peer_ready, int peer_device) = 0;
  // copy_rows_to() for this rank's own rows, into its own receive buffers: it needs no peer, so on CUDA it
  // starts once this rank is ready, on a second stream beside the copies to the peers (which wait for
  // those peers), and the rank's stream joins it before its later work.
  virtual void copy_own_rows(std::span<const kernels::RowColumn> columns, int64_t rows, const int32_t* gate) = 0;
  // Token: this rank's copies (reads of its peers' buffers, writes into them) are complete.
  virtual void* copies_done() = 0;
  // Later work on this rank's stream (writes into its send buffers, reads of its receive buffers)
  // waits for a peer's copies; given a peer's ready token, for its buffers to be free.
  virtual void after_peer(void* peer_token) = 0;
};

// memcpy for CPU ranks; stream-ordered device copies for CUDA ranks (context's device and stream).
std::unique_ptr<RankCopier> make_rank_copier(const kernels::ComputeContext& where);

}  // namespace splat::transport
