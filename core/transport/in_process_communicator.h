#pragma once
// The in-process backend: R ranks as threads of one process, meeting at a shared Rendezvous. CPU ranks
// exchange host memory with memcpy; CUDA ranks (several on one GPU, each with its own stream, or one per
// GPU where NCCL is absent) exchange device memory with stream-ordered device copies (rank_copier.h).
// Each rank pulls its receive slices out of its peers' send buffers, except in a gated exchange, where
// each rank writes its send slices into its peers' receive buffers (rank_copier.h says why).
#include <memory>
#include <optional>
#include <utility>

#include "core/transport/communicator.h"
#include "core/transport/rank_copier.h"
#include "core/transport/rendezvous.h"

namespace splat::transport {

class InProcessCommunicator final : public Communicator {
 public:
  // Rank `rank` of `group`, computing on `where`. The rank's thread is the only caller of its methods.
  InProcessCommunicator(std::shared_ptr<Rendezvous> group, int rank, const kernels::ComputeContext& where);

  int rank() const override { return rank_; }
  int size() const override { return group_->size(); }
  const kernels::ComputeContext& context() const override { return where_; }

  void all_to_all_v(const void* send, PeerSlices sends, void* recv, PeerSlices recvs) override;
  // One collective for every buffer: one pair of barriers, one ready and one done token.
  void all_to_all_buffers(std::span<const ExchangeBuffer> buffers) override;
  // One collective likewise; each peer's rows arrive through one gated copy (rank_copier.h).
  bool all_to_all_gated(std::span<const ExchangeBuffer> buffers, std::span<const int64_t> row_bytes,
                        const int32_t* gate, int zeroed) override;
  // Mapped wherever every rank's device reaches every other's memory (asked once, from the posted devices).
  std::vector<std::vector<void*>> open_mapped_writes(std::span<const ExchangeBuffer> buffers) override;
  void close_mapped_writes() override;
  std::vector<std::vector<const void*>> open_mapped_reads(std::span<const ExchangeBuffer> buffers) override;
  void finish_mapped_reads() override;
  void all_reduce_sum(std::span<float> host_values) override;
  void all_reduce_sum(std::span<int64_t> host_values) override;

 private:
  // all_to_all_buffers, gated where `gate` is given; whether every gated row was left out.
  bool exchange(const char* op, std::span<const ExchangeBuffer> buffers, std::span<const int64_t> row_bytes,
                const int32_t* gate, int zeroed);
  // Writes this rank's gated rows for peer p into p's receive buffers (after the first barrier);
  // whether they were gated.
  bool copy_gated_to(int p, std::span<const ExchangeBuffer> buffers, std::span<const int64_t> row_bytes,
                     const int32_t* gate, int zeroed);
  template <class T>
  void reduce(std::span<T> host_values, const char* op);
  // After the first barrier: whether every rank's kernels reach every other rank's buffers (one host, one
  // GPU, or GPUs with peer access). Every rank answers alike: the answer depends on the posts only.
  bool ranks_reach_each_other();
  // One collective that posts `buffers` and this rank's ready token `ready`, and, where the ranks reach each
  // other, orders this rank's later work after every peer's token and returns where(peer's post,
  // buffer) for every buffer and peer, [buffer][peer]; else empty.
  template <class Where>
  auto open_mapped(const char* op, std::span<const ExchangeBuffer> buffers, void* ready, Where&& where)
      -> std::vector<std::vector<decltype(where(std::declval<const ExchangeBuffer&>()))>>;
  // After the first barrier: every rank checks every rank's post, so they all take the same decision.
  void check_posts_agree(const char* op) const;
  [[noreturn]] void disagree(const std::string& what) const;
  // Runs the part of a collective between its barriers, then the second barrier. A failure in between
  // still meets the peers there before it propagates (they may be reading this rank's posts and
  // buffers), then stops the group.
  template <class Work>
  void then_second_barrier(const char* op, Work&& work);

  std::shared_ptr<Rendezvous> group_;
  int rank_;
  kernels::ComputeContext where_;
  std::unique_ptr<RankCopier> copier_;
  int reach_ = -1;             // ranks_reach_each_other(): -1 not asked yet, else its answer
  bool mapped_open_ = false;   // open_mapped_writes returned slices that close_mapped_writes has not closed
  // The ready token finish_mapped_reads recorded, for the next open_mapped_writes to post; any collective
  // that records the token again since (a later point of the same stream) clears it.
  std::optional<void*> reads_finished_;
  void* ready();  // records this rank's ready token now (copier_->ready()), clearing reads_finished_
};

}  // namespace splat::transport
