#include "tests/ranks/exchange_script.h"

#include <cstdio>
#include <cstring>

#include "tests/ranks/exchange_pattern.h"

namespace splat::test {

namespace {

template <class T>
void append(std::vector<uint8_t>& out, const T* data, size_t n) {
  const auto* bytes = reinterpret_cast<const uint8_t*>(data);
  out.insert(out.end(), bytes, bytes + n * sizeof(T));
}

}  // namespace

std::vector<uint8_t> run_exchange_script(transport::Communicator& comm, uint32_t seed) {
  const int me = comm.rank(), ranks = comm.size();
  std::vector<uint8_t> transcript;

  // Counts first, as the trainer does: the payload's receive sizes come from the exchange.
  std::vector<int64_t> send_counts(ranks), recv_counts(ranks);
  for (int q = 0; q < ranks; ++q) send_counts[q] = pattern_bytes(me, q, ranks, seed);
  comm.all_to_all_counts(send_counts.data(), recv_counts.data());
  append(transcript, recv_counts.data(), recv_counts.size());

  const ScatteredLayout out = scattered_layout(send_counts, seed + me);
  const ScatteredLayout in = scattered_layout(recv_counts, seed * 3 + me);
  std::vector<uint8_t> send(out.total, kUntouched), recv(in.total, kUntouched);
  for (int q = 0; q < ranks; ++q)
    for (int64_t i = 0; i < out.counts[q]; ++i) send[out.offsets[q] + i] = pattern_byte(me, q, i, seed);
  comm.all_to_all_v(send.data(), {out.counts, out.offsets}, recv.data(), {in.counts, in.offsets});
  append(transcript, recv.data(), recv.size());

  std::vector<float> floats{0.1f * (me + 1), -3.75f, 1e-3f * me};
  comm.all_reduce_sum(std::span<float>(floats));
  append(transcript, floats.data(), floats.size());
  std::vector<int64_t> ints{me, int64_t{1} << 40, -7 * me};
  comm.all_reduce_sum(std::span<int64_t>(ints));
  append(transcript, ints.data(), ints.size());

  const int root = ranks - 1;
  char settings[24] = {};
  if (me == root) std::snprintf(settings, sizeof settings, "from rank %d", root);
  comm.broadcast(settings, sizeof settings, root);
  append(transcript, settings, sizeof settings);

  std::vector<uint8_t> shard(static_cast<size_t>(pattern_bytes(me, 0, ranks, seed + 1)));
  for (size_t i = 0; i < shard.size(); ++i) shard[i] = pattern_byte(me, ranks, static_cast<int64_t>(i), seed);
  const std::vector<int64_t> sizes = comm.all_gather_value(static_cast<int64_t>(shard.size()));
  append(transcript, sizes.data(), sizes.size());
  std::vector<uint8_t> model(me == 0 ? std::accumulate(sizes.begin(), sizes.end(), int64_t{0}) : 0);
  comm.gather(shard.data(), static_cast<int64_t>(shard.size()), model.data(), sizes);
  append(transcript, model.data(), model.size());

  comm.barrier();
  return transcript;
}

}  // namespace splat::test
