// CUDA ranks: in-process ranks sharing one GPU, each on its own non-blocking stream, exchange device
// memory with device copies; and NCCL with one rank (the lent machine has one GPU, and NCCL refuses two
// ranks on one). Send buffers are filled and overwritten asynchronously on the senders' streams right
// around the exchange, and some ranks' streams are held up on purpose (a late sender, a late reader),
// so that a missing wait between streams shows up as wrong bytes.
#include <catch2/catch.hpp>
#include <cuda_runtime.h>

#include <algorithm>
#include <numeric>
#include <vector>

#include "core/transport/run_ranks.h"
#include "kernels/buffer.h"
#include "tests/ranks/exchange_pattern.h"
#include "tests/support/test_support.h"

using namespace splat;
using namespace splat::transport;
using kernels::Buffer;
using kernels::ComputeContext;
using kernels::Device;
using test::pattern_byte;
using test::pattern_bytes;
using test::scattered_layout;

namespace {

struct Streams {
  std::vector<cudaStream_t> s;
  explicit Streams(int n) : s(n) {
    for (auto& x : s) REQUIRE(cudaStreamCreateWithFlags(&x, cudaStreamNonBlocking) == cudaSuccess);
  }
  ~Streams() {
    for (auto x : s) cudaStreamDestroy(x);
  }
};

// Keeps a stream busy for a while (a 1 GiB memset: about half a millisecond on an H100, far longer
// than the host needs to get through a barrier).
void hold_up(Buffer<uint8_t>& scratch, cudaStream_t stream) {
  REQUIRE(cudaMemsetAsync(scratch.data(), 1, scratch.bytes(), stream) == cudaSuccess);
}

// One rank's part: fill the send buffer from pinned memory on the rank's stream (not waited for),
// exchange, overwrite the send buffer at once (also not waited for), then read what arrived. Rank 0
// fills late (its readers must wait for it); rank 2 reads late (its senders must not overwrite early).
std::vector<uint8_t> exchange_on_device(Communicator& comm, uint32_t seed) {
  const int me = comm.rank(), ranks = comm.size();
  const ComputeContext& where = comm.context();
  auto stream = static_cast<cudaStream_t>(where.stream);
  Buffer<uint8_t> scratch(where, size_t{1} << 30);

  Buffer<int64_t> d_send_counts(where, ranks), d_recv_counts(where, ranks);
  std::vector<int64_t> send_counts(ranks), recv_counts(ranks);
  for (int q = 0; q < ranks; ++q) send_counts[q] = pattern_bytes(me, q, ranks, seed);
  d_send_counts.upload(send_counts);
  comm.all_to_all_counts(d_send_counts.data(), d_recv_counts.data());
  recv_counts = d_recv_counts.download();  // one transfer to the host, as the trainer does

  const auto out = scattered_layout(send_counts, seed + me), in = scattered_layout(recv_counts, seed * 3 + me);
  uint8_t* pinned = nullptr;
  REQUIRE(cudaMallocHost(&pinned, out.total + 1) == cudaSuccess);
  std::fill(pinned, pinned + out.total, test::kUntouched);
  for (int q = 0; q < ranks; ++q)
    for (int64_t i = 0; i < out.counts[q]; ++i) pinned[out.offsets[q] + i] = pattern_byte(me, q, i, seed);
  Buffer<uint8_t> send(where, out.total + 1), recv(where, in.total + 1);
  REQUIRE(cudaMemsetAsync(recv.data(), test::kUntouched, recv.bytes(), stream) == cudaSuccess);
  REQUIRE(cudaStreamSynchronize(stream) == cudaSuccess);  // only the exchange's own ordering from here
  if (me == 0) hold_up(scratch, stream);
  REQUIRE(cudaMemcpyAsync(send.data(), pinned, out.total, cudaMemcpyHostToDevice, stream) == cudaSuccess);
  if (me == 2) hold_up(scratch, stream);
  comm.all_to_all_v(send.data(), {out.counts, out.offsets}, recv.data(), {in.counts, in.offsets});
  REQUIRE(cudaMemsetAsync(send.data(), 0, send.bytes(), stream) == cudaSuccess);  // the next step's writes
  std::vector<uint8_t> got = recv.download();
  got.pop_back();
  REQUIRE(cudaStreamSynchronize(stream) == cudaSuccess);
  cudaFreeHost(pinned);
  return got;
}

std::vector<uint8_t> expected_receive(int me, int ranks, uint32_t seed) {
  std::vector<int64_t> counts(ranks);
  for (int p = 0; p < ranks; ++p) counts[p] = pattern_bytes(p, me, ranks, seed);
  const auto in = scattered_layout(counts, seed * 3 + me);
  std::vector<uint8_t> expected(in.total, test::kUntouched);
  for (int p = 0; p < ranks; ++p)
    for (int64_t i = 0; i < counts[p]; ++i) expected[in.offsets[p] + i] = pattern_byte(p, me, i, seed);
  return expected;
}

}  // namespace

TEST_CASE("two in-process ranks on one GPU exchange device memory across their streams", "[gpu][dist]") {
  if (!test::gpu_or_skip("in-process ranks on one GPU")) return;
  for (const int ranks : {2, 3}) {
    Streams streams(ranks);
    for (const uint32_t seed : {1u, 2u}) {
      INFO(ranks << " ranks, seed " << seed);
      std::vector<std::vector<uint8_t>> received(ranks);
      std::vector<std::vector<float>> sums(ranks);
      std::vector<std::vector<uint8_t>> gathered(ranks);
      run_ranks(
          ranks, [&](int r) { return ComputeContext(Device::CUDA, 0, streams.s[r]); },
          [&](Communicator& comm) {
            received[comm.rank()] = exchange_on_device(comm, seed);
            std::vector<float> v{1.5f * comm.rank(), 2.f};
            comm.all_reduce_sum(std::span<float>(v));
            sums[comm.rank()] = v;
            Buffer<uint8_t> shard(comm.context()), model(comm.context());
            shard.upload(std::vector<uint8_t>(comm.rank() + 1, static_cast<uint8_t>(10 + comm.rank())));
            const auto sizes = comm.all_gather_value(static_cast<int64_t>(shard.size()));
            model.resize(static_cast<size_t>(std::accumulate(sizes.begin(), sizes.end(), int64_t{0})));
            comm.gather(shard.data(), static_cast<int64_t>(shard.size()), model.data(), sizes);
            if (comm.rank() == 0) gathered[0] = model.download();
          },
          RankBackend::InProcess);
      std::vector<uint8_t> model;
      float first = 0;
      for (int r = 0; r < ranks; ++r) {
        INFO("rank " << r);
        CHECK(received[r] == expected_receive(r, ranks, seed));
        first += 1.5f * r;
        model.insert(model.end(), r + 1, static_cast<uint8_t>(10 + r));
      }
      for (int r = 0; r < ranks; ++r) CHECK(sums[r] == std::vector<float>{first, 2.f * ranks});
      CHECK(gathered[0] == model);
    }
  }
}

TEST_CASE("an NCCL rank exchanges with itself and reduces through its communicator", "[gpu][dist]") {
  if (!test::gpu_or_skip("NCCL with one rank")) return;
  if (!nccl_built_in()) {
    std::printf("SKIPPED (built without NCCL): NCCL with one rank\n");
    return;
  }
  constexpr uint32_t kSelfSeed = 4;
  Streams streams(1);
  std::vector<uint8_t> received;
  std::vector<int64_t> sum;
  run_ranks(
      1, [&](int) { return ComputeContext(Device::CUDA, 0, streams.s[0]); },
      [&](Communicator& comm) {
        received = exchange_on_device(comm, kSelfSeed);
        std::vector<int64_t> v{7, -3};
        comm.all_reduce_sum(std::span<int64_t>(v));
        sum = v;
        comm.barrier();
      },
      RankBackend::Nccl);
  CHECK(received.size() > 400);  // the rank's slice to itself is not empty for this seed
  CHECK(received == expected_receive(0, 1, kSelfSeed));
  CHECK(sum == std::vector<int64_t>{7, -3});
}

TEST_CASE("after finish_mapped_reads a peer's mapped writes open without waiting for the rank's later work",
          "[gpu][dist]") {
  if (!test::gpu_or_skip("mapped writes after finished reads")) return;
  // Rank 0 keeps its stream busy (20 clears of 1 GiB, some milliseconds) after its last read, then opens
  // the next writes; rank 1's work after its own open must not wait for those clears where rank 0 said
  // its reads were finished, and must where it did not.
  for (const bool finished : {true, false}) {
    INFO("finish_mapped_reads called: " << finished);
    Streams streams(2);
    bool peer_done_first = false;
    run_ranks(
        2, [&](int r) { return ComputeContext(Device::CUDA, 0, streams.s[r]); },
        [&](Communicator& comm) {
          const auto stream = static_cast<cudaStream_t>(comm.context().stream);
          const std::vector<int64_t> rows{4, 4}, at{0, 4};
          Buffer<uint8_t> recv(comm.context());
          recv.resize(8);
          const std::vector<ExchangeBuffer> buffers{{nullptr, {rows, at}, recv.data(), {rows, at}}};
          Buffer<uint8_t> scratch(comm.context());
          cudaEvent_t after = nullptr;
          REQUIRE(cudaEventCreateWithFlags(&after, cudaEventDisableTiming) == cudaSuccess);
          if (comm.rank() == 0) {
            scratch.resize(size_t(1) << 30);
            if (finished) comm.finish_mapped_reads();
            for (int k = 0; k < 20; ++k) hold_up(scratch, stream);
          }
          REQUIRE(comm.open_mapped_writes(buffers).size() == 1);
          // What rank 1 enqueues after the open (the close orders it after rank 0's clears in any case).
          REQUIRE(cudaEventRecord(after, stream) == cudaSuccess);
          comm.close_mapped_writes();
          if (comm.rank() == 1) {
            REQUIRE(cudaEventSynchronize(after) == cudaSuccess);
            // With finished reads rank 1 waited for none of rank 0's clears: they are still running.
            peer_done_first = cudaStreamQuery(streams.s[0]) == cudaErrorNotReady;
          }
          comm.barrier();
          REQUIRE(cudaStreamSynchronize(stream) == cudaSuccess);
          cudaEventDestroy(after);
        },
        RankBackend::InProcess);
    CHECK(peer_done_first == finished);
  }
}
