#include "core/transport/in_process_communicator.h"

#include <cstddef>
#include <exception>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/device.h"

namespace splat::transport {

InProcessCommunicator::InProcessCommunicator(std::shared_ptr<Rendezvous> group, int rank,
                                             const kernels::ComputeContext& where)
    : group_(std::move(group)), rank_(rank), where_(where), copier_(make_rank_copier(where)) {
  if (rank_ < 0 || rank_ >= group_->size())
    throw std::invalid_argument("rank " + std::to_string(rank_) + " is not a rank of " +
                                std::to_string(group_->size()));
}

void InProcessCommunicator::disagree(const std::string& what) const {
  throw CommError("ranks disagree: " + what, -1);
}

template <class Work>
void InProcessCommunicator::then_second_barrier(const char* op, Work&& work) {
  std::exception_ptr failure;
  try {
    work();
  } catch (...) {
    failure = std::current_exception();
  }
  group_->arrive_and_wait(rank_, op);
  if (!failure) return;
  try {
    std::rethrow_exception(failure);
  } catch (const std::exception& e) {
    group_->abort(rank_, e.what());  // the group is out of step from here on: stop it
    throw;
  }
}

void InProcessCommunicator::check_posts_agree(const char* op) const {
  const Rendezvous::Post& first = group_->posted(rank_, 0);
  for (int p = 1; p < size(); ++p)
    if (std::string_view(group_->posted(rank_, p).op) != first.op)
      disagree(group_->rank_name(0) + " called " + first.op + ", " + group_->rank_name(p) + " called " +
               group_->posted(rank_, p).op);
  for (int p = 0; p < size(); ++p) {
    const Rendezvous::Post& from = group_->posted(rank_, p);
    if (from.value_count != first.value_count)
      disagree(std::string(op) + " of " + std::to_string(first.value_count) + " values on " + group_->rank_name(0) +
               ", " + std::to_string(from.value_count) + " on " + group_->rank_name(p));
    if (from.buffers.size() != first.buffers.size())
      disagree(std::string(op) + " of " + std::to_string(first.buffers.size()) + " buffers on " +
               group_->rank_name(0) + ", " + std::to_string(from.buffers.size()) + " on " + group_->rank_name(p));
  }
  for (size_t b = 0; b < first.buffers.size(); ++b)
    for (int p = 0; p < size(); ++p)
      for (int q = 0; q < size(); ++q) {
        const int64_t sent = group_->posted(rank_, p).buffers[b].sends.counts[q],
                      expected = group_->posted(rank_, q).buffers[b].recvs.counts[p];
        if (sent != expected)
          disagree(group_->rank_name(p) + " sends " + std::to_string(sent) + " bytes to " + group_->rank_name(q) +
                   ", which expects " + std::to_string(expected) +
                   (first.buffers.size() > 1 ? " (buffer " + std::to_string(b) + ")" : std::string()));
      }
}

void InProcessCommunicator::all_to_all_v(const void* send, PeerSlices sends, void* recv, PeerSlices recvs) {
  const ExchangeBuffer one{send, sends, recv, recvs};
  all_to_all_buffers(std::span(&one, 1));
}

void InProcessCommunicator::all_to_all_buffers(std::span<const ExchangeBuffer> buffers) {
  exchange("all_to_all_v", buffers, {}, nullptr, -1);
}

bool InProcessCommunicator::all_to_all_gated(std::span<const ExchangeBuffer> buffers,
                                             std::span<const int64_t> row_bytes, const int32_t* gate, int zeroed) {
  if (row_bytes.size() != buffers.size() || buffers.size() > size_t(kernels::kMostRowColumns))
    throw std::invalid_argument(describe_rank(rank_, where_) + ": all_to_all_gated of " +
                                std::to_string(buffers.size()) + " buffers with " + std::to_string(row_bytes.size()) +
                                " row widths (at most " + std::to_string(kernels::kMostRowColumns) + ")");
  for (const int64_t w : row_bytes)
    if (w != 4 && w != 8 && w != 16)
      throw std::invalid_argument(describe_rank(rank_, where_) + ": all_to_all_gated rows of " + std::to_string(w) +
                                  " bytes (4, 8 or 16)");
  if (zeroed < -1 || zeroed >= int(buffers.size()))
    throw std::invalid_argument(describe_rank(rank_, where_) + ": all_to_all_gated zeroes buffer " +
                                std::to_string(zeroed) + " of " + std::to_string(buffers.size()));
  return exchange("all_to_all_gated", buffers, row_bytes, gate, zeroed);
}

bool InProcessCommunicator::exchange(const char* op, std::span<const ExchangeBuffer> buffers,
                                     std::span<const int64_t> row_bytes, const int32_t* gate, int zeroed) {
  bool left_out = gate != nullptr;
  for (const ExchangeBuffer& b : buffers) check_slices(b.sends, b.recvs);
  Rendezvous::Post& mine = group_->post(rank_);
  mine = Rendezvous::Post{.op = op, .buffers = buffers, .row_bytes = row_bytes,
                          .cuda_device = where_.device == kernels::Device::CUDA ? where_.ordinal : -1};
  mine.ready = ready();
  group_->arrive_and_wait(rank_, op);

  then_second_barrier(op, [&] {
    check_posts_agree(op);
    // The peers first, from the next rank on (no two ranks start with the same peer), then this rank's
    // own rows after its done token: a peer waits on the token and needs none of the own rows, which
    // on two GPUs had held each rank's peer up by 10-20 us an exchange (bench/TWO_GPUS.md, "The ranks'
    // timelines").
    for (int k = 1; k <= size(); ++k) {
      const int p = (rank_ + k) % size();
      if (p == rank_) mine.done = copier_->copies_done();
      if (gate) {
        left_out = copy_gated_to(p, buffers, row_bytes, gate, zeroed) && left_out;
        continue;
      }
      for (size_t b = 0; b < buffers.size(); ++b) {
        const int64_t bytes = buffers[b].recvs.counts[p];
        if (bytes == 0) continue;
        const Rendezvous::Post& from = group_->posted(rank_, p);
        const ExchangeBuffer& theirs = from.buffers[b];
        copier_->copy_from(static_cast<std::byte*>(buffers[b].recv) + buffers[b].recvs.offsets[p],
                           static_cast<const std::byte*>(theirs.send) + theirs.sends.offsets[rank_],
                           static_cast<size_t>(bytes), from.ready);
      }
    }
  });

  // Every done token is recorded now (each rank records before the second barrier), and this
  // collective's posts stay put until this rank moves on to its next one (rendezvous.h). A gated
  // exchange's peers wrote into this rank's receive buffers; another's read its send buffers.
  for (int q = 0; q < size(); ++q) {
    bool touched = false;
    for (const ExchangeBuffer& b : buffers) touched = touched || (gate ? b.recvs : b.sends).counts[q] > 0;
    if (touched) copier_->after_peer(group_->posted(rank_, q).done);
  }
  group_->finish(rank_);
  return left_out;
}

// Every buffer's slice for p must hold the same rows (the same first send row and count): one gated
// copy moves them all, reading this rank's gate from that first row. The sender writes into the
// receiver's buffers rather than the receiver reading the sender's: across a link, a read waits for
// its round trip and a write does not, and the gate is then read where it lies.
bool InProcessCommunicator::copy_gated_to(int p, std::span<const ExchangeBuffer> buffers,
                                          std::span<const int64_t> row_bytes, const int32_t* gate, int zeroed) {
  const Rendezvous::Post& to = group_->posted(rank_, p);
  std::vector<kernels::RowColumn> columns;
  int64_t rows = -1, first = -1;
  for (size_t b = 0; b < buffers.size(); ++b) {
    const ExchangeBuffer& theirs = to.buffers[b];
    const int64_t w = row_bytes[b], bytes = buffers[b].sends.counts[p], at = buffers[b].sends.offsets[p];
    if (to.row_bytes.size() != row_bytes.size() || to.row_bytes[b] != w)
      disagree("all_to_all_gated row widths of buffer " + std::to_string(b) + " on " + group_->rank_name(rank_) +
               " and " + group_->rank_name(p));
    if (w <= 0 || bytes % w != 0 || at % w != 0 || (rows >= 0 && (bytes / w != rows || at / w != first)))
      disagree("all_to_all_gated: the slices " + group_->rank_name(rank_) + " sends " + group_->rank_name(p) +
               " are not the same rows in every buffer");
    rows = bytes / w;
    first = at / w;
    columns.push_back({static_cast<const std::byte*>(buffers[b].send) + at,
                       static_cast<std::byte*>(theirs.recv) + theirs.recvs.offsets[rank_], w, int(b) == zeroed});
  }
  if (rows <= 0) return true;
  if (p == rank_) {
    copier_->copy_own_rows(columns, rows, gate + first);
    return true;
  }
  return copier_->copy_rows_to(columns, rows, gate + first, to.ready, to.cuda_device);
}

bool InProcessCommunicator::ranks_reach_each_other() {
  if (reach_ < 0) {
    bool all = true;
    for (int p = 0; p < size(); ++p)
      for (int q = 0; q < size(); ++q) {
        const int a = group_->posted(rank_, p).cuda_device, b = group_->posted(rank_, q).cuda_device;
        if (a != b && (a < 0 || b < 0 || !kernels::can_access_peer(a, b))) all = false;
      }
    reach_ = all ? 1 : 0;
  }
  return reach_ == 1;
}

// The peers' ready tokens say their receive buffers are no longer read and their send buffers hold what
// their streams wrote; this rank's stream waits for them before the work it enqueues next. Waits are
// enqueued between the barriers, so no peer records the token again (in its next collective) before.
template <class Where>
auto InProcessCommunicator::open_mapped(const char* op, std::span<const ExchangeBuffer> buffers, void* ready,
                                        Where&& where)
    -> std::vector<std::vector<decltype(where(std::declval<const ExchangeBuffer&>()))>> {
  if (mapped_open_) throw std::logic_error(describe_rank(rank_, where_) + ": " + op + " with mapped writes open");
  for (const ExchangeBuffer& b : buffers) check_slices(b.sends, b.recvs);
  Rendezvous::Post& mine = group_->post(rank_);
  mine = Rendezvous::Post{};
  mine.op = op;
  mine.buffers = buffers;
  mine.cuda_device = where_.device == kernels::Device::CUDA ? where_.ordinal : -1;
  mine.ready = ready;
  group_->arrive_and_wait(rank_, op);
  std::vector<std::vector<decltype(where(std::declval<const ExchangeBuffer&>()))>> at;
  then_second_barrier(op, [&] {
    check_posts_agree(op);
    if (!ranks_reach_each_other()) return;
    at.resize(buffers.size());
    for (int q = 0; q < size(); ++q) {
      const Rendezvous::Post& theirs = group_->posted(rank_, q);
      if (q != rank_) copier_->after_peer(theirs.ready);
      for (size_t b = 0; b < buffers.size(); ++b) at[b].push_back(where(theirs.buffers[b]));
    }
  });
  group_->finish(rank_);
  return at;
}

std::vector<std::vector<void*>> InProcessCommunicator::open_mapped_writes(std::span<const ExchangeBuffer> buffers) {
  void* const token = reads_finished_ ? *reads_finished_ : ready();
  reads_finished_.reset();
  auto at = open_mapped("open_mapped_writes", buffers, token, [&](const ExchangeBuffer& theirs) {
    return static_cast<void*>(static_cast<std::byte*>(theirs.recv) + theirs.recvs.offsets[rank_]);
  });
  mapped_open_ = !at.empty();
  return at;
}

std::vector<std::vector<const void*>> InProcessCommunicator::open_mapped_reads(std::span<const ExchangeBuffer> buffers) {
  return open_mapped("open_mapped_reads", buffers, ready(), [&](const ExchangeBuffer& theirs) {
    return static_cast<const void*>(static_cast<const std::byte*>(theirs.send) + theirs.sends.offsets[rank_]);
  });
}

void* InProcessCommunicator::ready() {
  reads_finished_.reset();
  return copier_->ready();
}

void InProcessCommunicator::finish_mapped_reads() { reads_finished_ = ready(); }

void InProcessCommunicator::close_mapped_writes() {
  const char* op = "close_mapped_writes";
  if (!mapped_open_)
    throw std::logic_error(describe_rank(rank_, where_) + ": close_mapped_writes without mapped writes open");
  mapped_open_ = false;
  Rendezvous::Post& mine = group_->post(rank_);
  mine = Rendezvous::Post{};
  mine.op = op;
  mine.done = copier_->copies_done();
  group_->arrive_and_wait(rank_, op);
  then_second_barrier(op, [&] {
    check_posts_agree(op);
    for (int q = 0; q < size(); ++q)
      if (q != rank_) copier_->after_peer(group_->posted(rank_, q).done);
  });
  group_->finish(rank_);
}

template <class T>
void InProcessCommunicator::reduce(std::span<T> host_values, const char* op) {
  Rendezvous::Post& mine = group_->post(rank_);
  mine = Rendezvous::Post{};
  mine.op = op;
  mine.values = host_values.data();
  mine.value_count = host_values.size();
  group_->arrive_and_wait(rank_, op);

  // Every rank adds in rank order from the same inputs, so every rank gets the same bits.
  std::vector<T> sum(host_values.size(), T(0));
  then_second_barrier(op, [&] {
    check_posts_agree(op);
    for (int p = 0; p < size(); ++p) {
      const T* values = static_cast<const T*>(group_->posted(rank_, p).values);
      for (size_t i = 0; i < sum.size(); ++i) sum[i] += values[i];
    }
  });
  // Past the second barrier every peer has read this rank's values: now they may change.
  std::copy(sum.begin(), sum.end(), host_values.begin());
  group_->finish(rank_);
}

void InProcessCommunicator::all_reduce_sum(std::span<float> host_values) { reduce(host_values, "all_reduce_sum(float)"); }
void InProcessCommunicator::all_reduce_sum(std::span<int64_t> host_values) {
  reduce(host_values, "all_reduce_sum(int64)");
}

}  // namespace splat::transport
