#pragma once
// How an in-process rank pulls bytes out of its peers' buffers. CPU ranks memcpy. CUDA ranks enqueue
// device copies on their own stream, ordered by events against the peers' streams, so that no rank
// waits on the host for device work (ranks sharing one GPU keep it busy).
//
// Within one collective (see rendezvous.h) a rank calls: stage_rows() for each peer slice of a gated
// exchange and sends_ready() before posting, copy_from() (or copy_rows_from()) for each peer slice
// after the first barrier, reads_done() before the second barrier, and after_reader() for each peer
// that read its send buffer (or staging area) after the second barrier. Tokens are
// opaque (a cudaEvent_t on CUDA, null on the CPU) and stay valid until the rank's next collective.
#include <cstddef>
#include <memory>
#include <span>
#include <vector>

#include "kernels/buffer.h"

#include "kernels/device_context.h"
#include "kernels/gated_rows.h"

namespace splat::transport {

class RankCopier {
 public:
  explicit RankCopier(const kernels::ComputeContext& where) : where_(where) {}
  virtual ~RankCopier() = default;
  // In a gated exchange, before sends_ready(): packs the rows whose gate is set of `columns` (their
  // sources: this rank's slice for peer `peer`, `rows` rows) into this rank's staging area for that
  // peer (kernels/gated_rows.h, stage_gated_rows), where the peer's copy_rows_from reads them. Returns
  // the area. It is written again only by this rank's next staging for that peer, which its stream
  // orders after the peer's reads (after_reader).
  const void* stage_rows(int peer, std::span<const kernels::RowColumn> columns, int64_t rows, const int32_t* gate);
  // Token: this rank's send buffer holds what its stream wrote so far.
  virtual void* sends_ready() = 0;
  // Copies `bytes` from a peer's buffer, once that peer's ready token has passed, into this rank's buffer.
  virtual void copy_from(void* dst, const void* src, size_t bytes, void* peer_ready) = 0;
  // Likewise for `rows` rows of several columns gated by a peer's flags (kernels/gated_rows.h): the
  // rows whose gate is 0 are not read, and written (as zeros) only in the columns marked zero_gated.
  // `staged`: the peer's stage_rows area for this rank, whose packed rows are read instead of the
  // columns' sources (null: the rows are read in place). `peer_device`: the CUDA device holding the
  // peer's buffers (-1: host memory). Returns whether it could leave the rows out: a CUDA rank copies
  // every row, as sent, from a GPU whose memory it cannot reach directly.
  virtual bool copy_rows_from(std::span<const kernels::RowColumn> columns, int64_t rows, const int32_t* gate,
                              const void* staged, void* peer_ready, int peer_device) = 0;
  // Token: this rank's copies (reads of its peers' buffers) are complete.
  virtual void* reads_done() = 0;
  // Later work on this rank's stream (writes into its send buffer) waits for a peer's reads.
  virtual void after_reader(void* reader_done) = 0;

 protected:
  kernels::ComputeContext where_;

 private:
  std::vector<kernels::Buffer<std::byte>> staging_;  // per peer
};

// memcpy for CPU ranks; stream-ordered device copies for CUDA ranks (context's device and stream).
std::unique_ptr<RankCopier> make_rank_copier(const kernels::ComputeContext& where);

}  // namespace splat::transport
