#include "core/transport/communicator.h"

#include <numeric>

namespace splat::transport {

std::string describe_device(const kernels::ComputeContext& where) {
  return where.device == kernels::Device::CPU ? "CPU" : "CUDA device " + std::to_string(where.ordinal);
}

std::string describe_rank(int rank, const kernels::ComputeContext& where) {
  return "rank " + std::to_string(rank) + " (" + describe_device(where) + ")";
}

void Communicator::check_slices(PeerSlices sends, PeerSlices recvs) const {
  const size_t n = static_cast<size_t>(size());
  for (const auto& [name, s] : {std::pair{"send", sends}, std::pair{"receive", recvs}}) {
    if (s.counts.size() != n || s.offsets.size() != n)
      throw std::invalid_argument(describe_rank(rank(), context()) + ": all_to_all_v needs " + std::to_string(n) +
                                  " " + name + " counts and offsets, got " + std::to_string(s.counts.size()) +
                                  " and " + std::to_string(s.offsets.size()));
    for (size_t p = 0; p < n; ++p)
      if (s.counts[p] < 0 || s.offsets[p] < 0)
        throw std::invalid_argument(describe_rank(rank(), context()) + ": all_to_all_v " + name + " slice for rank " +
                                    std::to_string(p) + " is negative (count " + std::to_string(s.counts[p]) +
                                    ", offset " + std::to_string(s.offsets[p]) + ")");
  }
}

void Communicator::all_to_all_buffers(std::span<const ExchangeBuffer> buffers) {
  for (const ExchangeBuffer& b : buffers) all_to_all_v(b.send, b.sends, b.recv, b.recvs);
}

bool Communicator::all_to_all_gated(std::span<const ExchangeBuffer> buffers, std::span<const int64_t>,
                                    const int32_t*, int) {
  all_to_all_buffers(buffers);
  return false;
}

std::vector<std::vector<void*>> Communicator::open_mapped_writes(std::span<const ExchangeBuffer>) { return {}; }

std::vector<std::vector<const void*>> Communicator::open_mapped_reads(std::span<const ExchangeBuffer>) { return {}; }

void Communicator::close_mapped_writes() {
  throw std::logic_error(describe_rank(rank(), context()) + ": close_mapped_writes without mapped writes open");
}

void Communicator::all_to_all_counts(const int64_t* send_counts, int64_t* recv_counts) {
  const size_t n = static_cast<size_t>(size());
  const std::vector<int64_t> eight(n, sizeof(int64_t));
  std::vector<int64_t> offsets(n);
  for (size_t p = 0; p < n; ++p) offsets[p] = static_cast<int64_t>(p * sizeof(int64_t));
  all_to_all_v(send_counts, {eight, offsets}, recv_counts, {eight, offsets});
}

void Communicator::broadcast(void* data, int64_t bytes, int root) {
  const size_t n = static_cast<size_t>(size());
  if (root < 0 || root >= size())
    throw std::invalid_argument("broadcast root " + std::to_string(root) + " is not a rank of " + std::to_string(n));
  std::vector<int64_t> send_counts(n, 0), recv_counts(n, 0);
  const std::vector<int64_t> zero_offsets(n, 0);
  if (rank() == root) {
    std::fill(send_counts.begin(), send_counts.end(), bytes);
    send_counts[root] = 0;  // the root already holds the data
  } else {
    recv_counts[root] = bytes;
  }
  all_to_all_v(data, {send_counts, zero_offsets}, data, {recv_counts, zero_offsets});
}

std::vector<int64_t> Communicator::all_gather_value(int64_t mine) {
  std::vector<int64_t> values(static_cast<size_t>(size()), 0);
  values[rank()] = mine;
  all_reduce_sum(std::span<int64_t>(values));
  return values;
}

void Communicator::gather(const void* send, int64_t bytes, void* recv, std::span<const int64_t> bytes_per_rank,
                          int root) {
  const size_t n = static_cast<size_t>(size());
  if (root < 0 || root >= size())
    throw std::invalid_argument("gather root " + std::to_string(root) + " is not a rank of " + std::to_string(n));
  if (bytes_per_rank.size() != n || bytes_per_rank[rank()] != bytes)
    throw std::invalid_argument(describe_rank(rank(), context()) + ": gather of " + std::to_string(bytes) +
                                " bytes does not match its entry in bytes_per_rank");
  std::vector<int64_t> send_counts(n, 0), recv_counts(n, 0), recv_offsets(n, 0);
  const std::vector<int64_t> zero_offsets(n, 0);
  send_counts[root] = bytes;
  if (rank() == root) {
    recv_counts.assign(bytes_per_rank.begin(), bytes_per_rank.end());
    std::exclusive_scan(recv_counts.begin(), recv_counts.end(), recv_offsets.begin(), int64_t{0});
  }
  all_to_all_v(send, {send_counts, zero_offsets}, recv, {recv_counts, recv_offsets});
}

void Communicator::barrier() {
  int64_t token = 0;
  all_reduce_sum(std::span<int64_t>(&token, 1));
}

}  // namespace splat::transport
