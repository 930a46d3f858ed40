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

// One non-blocking stream per rank, on device `device(r)` (the current one by default).
struct Streams {
  std::vector<cudaStream_t> s;
  explicit Streams(int n, int (*device)(int) = nullptr) : s(n) {
    for (int r = 0; r < n; ++r) {
      if (device) REQUIRE(cudaSetDevice(device(r)) == cudaSuccess);
      REQUIRE(cudaStreamCreateWithFlags(&s[r], cudaStreamNonBlocking) == cudaSuccess);
    }
    if (device) REQUIRE(cudaSetDevice(0) == cudaSuccess);
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

// Overlapped gated exchanges as a training step makes them (core/train/sharded/sharded_step.cpp):
// per step, exchange X (send S1, receive R1) and exchange Y (S2 to R2), keeping the promises of
// transport::GatedOrder: a receive buffer is read only between its exchange and the next collective,
// a send buffer is rewritten only after the next collective. Row i of what rank p sends rank q at
// step k holds one byte value throughout; rows whose gate is 0 are left out (zeros in the narrow
// column, untouched in the wide one). Each rank copies what arrived into its results on its stream.
// Streams are held up on purpose where a missing wait would show: a late sender before S1, late
// readers before R1 and R2 (peers then write early into buffers still to be read, unless they wait),
// and every third step a host reduce, after which peers must wait for the receiver again.
constexpr int kSteps = 6;
constexpr int64_t kWideBytes = 16, kNarrowBytes = 4;
int64_t overlapped_rows(int p, int q) { return 200000 + 1000 * p + 300 * q; }
uint8_t overlapped_value(int p, int q, int k, int x) { return uint8_t(1 + (37 * p + 11 * q + 5 * k + 3 * x) % 250); }
bool overlapped_kept(int p, int64_t i) { return (i + p) % 3 != 0; }

struct OverlappedResults {
  std::vector<uint8_t> wide, narrow;  // [step][exchange][received rows]
};

OverlappedResults overlapped_exchanges(Communicator& comm) {
  const int me = comm.rank(), ranks = comm.size();
  const ComputeContext& where = comm.context();
  auto stream = static_cast<cudaStream_t>(where.stream);
  Buffer<uint8_t> scratch(where, size_t{1} << 30);
  std::vector<int64_t> out(ranks), out_at(ranks), in(ranks), in_at(ranks);
  int64_t sent = 0, got = 0;
  for (int q = 0; q < ranks; ++q) out[q] = overlapped_rows(me, q), out_at[q] = sent, sent += out[q];
  for (int p = 0; p < ranks; ++p) in[p] = overlapped_rows(p, me), in_at[p] = got, got += in[p];
  std::vector<int32_t> host_gate(static_cast<size_t>(sent));
  for (int q = 0; q < ranks; ++q)
    for (int64_t i = 0; i < out[q]; ++i) host_gate[size_t(out_at[q] + i)] = overlapped_kept(me, i);
  Buffer<int32_t> gate(where);
  gate.upload(host_gate);
  auto scaled = [](std::vector<int64_t> v, int64_t w) {
    for (int64_t& x : v) x *= w;
    return v;
  };
  const std::vector<int64_t> wo = scaled(out, kWideBytes), wa = scaled(out_at, kWideBytes),
                             wi = scaled(in, kWideBytes), wia = scaled(in_at, kWideBytes),
                             no = scaled(out, kNarrowBytes), na = scaled(out_at, kNarrowBytes),
                             ni = scaled(in, kNarrowBytes), nia = scaled(in_at, kNarrowBytes);
  const std::vector<int64_t> widths{kWideBytes, kNarrowBytes};
  // [exchange]: send and receive columns.
  std::vector<Buffer<uint8_t>> send_wide, send_narrow, recv_wide, recv_narrow;
  for (int x = 0; x < 2; ++x) {
    send_wide.emplace_back(where, size_t(sent * kWideBytes)), send_narrow.emplace_back(where, size_t(sent * kNarrowBytes));
    recv_wide.emplace_back(where, size_t(got * kWideBytes)), recv_narrow.emplace_back(where, size_t(got * kNarrowBytes));
    REQUIRE(cudaMemsetAsync(recv_wide[x].data(), test::kUntouched, recv_wide[x].bytes(), stream) == cudaSuccess);
    REQUIRE(cudaMemsetAsync(recv_narrow[x].data(), test::kUntouched, recv_narrow[x].bytes(), stream) == cudaSuccess);
  }
  Buffer<uint8_t> res_wide(where, size_t(kSteps * 2 * got * kWideBytes)),
      res_narrow(where, size_t(kSteps * 2 * got * kNarrowBytes));
  REQUIRE(cudaStreamSynchronize(stream) == cudaSuccess);  // only the exchanges' own ordering from here

  auto fill_sends = [&](int k, int x) {
    for (int q = 0; q < ranks; ++q) {
      const uint8_t v = overlapped_value(me, q, k, x);
      REQUIRE(cudaMemsetAsync(send_wide[x].data() + wa[q], v, size_t(wo[q]), stream) == cudaSuccess);
      REQUIRE(cudaMemsetAsync(send_narrow[x].data() + na[q], v, size_t(no[q]), stream) == cudaSuccess);
    }
  };
  auto exchange = [&](int x) {
    const std::vector<ExchangeBuffer> buffers{{send_wide[x].data(), {wo, wa}, recv_wide[x].data(), {wi, wia}},
                                              {send_narrow[x].data(), {no, na}, recv_narrow[x].data(), {ni, nia}}};
    comm.all_to_all_gated(buffers, widths, gate.data(), 1, GatedOrder::Overlapped);
  };
  auto keep_received = [&](int k, int x) {
    const size_t at = size_t(2 * k + x);
    REQUIRE(cudaMemcpyAsync(res_wide.data() + at * recv_wide[x].bytes(), recv_wide[x].data(), recv_wide[x].bytes(),
                            cudaMemcpyDeviceToDevice, stream) == cudaSuccess);
    REQUIRE(cudaMemcpyAsync(res_narrow.data() + at * recv_narrow[x].bytes(), recv_narrow[x].data(),
                            recv_narrow[x].bytes(), cudaMemcpyDeviceToDevice, stream) == cudaSuccess);
  };
  for (int k = 0; k < kSteps; ++k) {
    if (me == 0) hold_up(scratch, stream);
    fill_sends(k, 0);
    exchange(0);
    if (me == ranks - 1) hold_up(scratch, stream);
    keep_received(k, 0);
    fill_sends(k, 1);
    exchange(1);
    if (me == 0) hold_up(scratch, stream);
    keep_received(k, 1);
    if (k % 3 == 2) {
      std::vector<float> v{1.f};
      comm.all_reduce_sum(std::span<float>(v));
    }
  }
  comm.barrier();  // joins the last exchange's writes into the stream
  OverlappedResults r{res_wide.download(), res_narrow.download()};
  REQUIRE(cudaStreamSynchronize(stream) == cudaSuccess);
  return r;
}

// Rows of rank `me`'s results that differ from what its peers sent.
int64_t overlapped_mismatches(const OverlappedResults& r, int me, int ranks) {
  int64_t got = 0, wrong = 0;
  for (int p = 0; p < ranks; ++p) got += overlapped_rows(p, me);
  for (int k = 0; k < kSteps; ++k)
    for (int x = 0; x < 2; ++x) {
      int64_t row = int64_t(2 * k + x) * got;
      for (int p = 0; p < ranks; ++p)
        for (int64_t i = 0; i < overlapped_rows(p, me); ++i, ++row) {
          const bool kept = overlapped_kept(p, i);
          const uint8_t v = overlapped_value(p, me, k, x);
          const uint8_t wide = kept ? v : test::kUntouched, narrow = kept ? v : 0;
          bool ok = true;
          for (int64_t b = 0; b < kWideBytes; ++b) ok = ok && r.wide[size_t(row * kWideBytes + b)] == wide;
          for (int64_t b = 0; b < kNarrowBytes; ++b) ok = ok && r.narrow[size_t(row * kNarrowBytes + b)] == narrow;
          wrong += !ok;
        }
    }
  return wrong;
}

}  // namespace

TEST_CASE("overlapped gated exchanges keep their order step after step (in-process CUDA ranks)", "[gpu][dist]") {
  if (!test::gpu_or_skip("overlapped gated exchanges")) return;
  int gpus = 0;
  REQUIRE(cudaGetDeviceCount(&gpus) == cudaSuccess);
  struct Layout {
    const char* name;
    int ranks;
    int (*device)(int);
  };
  std::vector<Layout> layouts{{"2 ranks on one GPU", 2, [](int) { return 0; }},
                              {"3 ranks on one GPU", 3, [](int) { return 0; }}};
  if (gpus >= 2) layouts.push_back({"2 ranks on two GPUs", 2, [](int r) { return r; }});
  else std::printf("SKIPPED (one GPU): overlapped gated exchanges between two GPUs\n");
  for (const Layout& l : layouts) {
    INFO(l.name);
    Streams streams(l.ranks, l.device);
    std::vector<OverlappedResults> results(size_t(l.ranks));
    run_ranks(
        l.ranks, [&](int r) { return ComputeContext(Device::CUDA, l.device(r), streams.s[r]); },
        [&](Communicator& comm) { results[size_t(comm.rank())] = overlapped_exchanges(comm); },
        RankBackend::InProcess);
    for (int r = 0; r < l.ranks; ++r) {
      INFO("rank " << r);
      CHECK(overlapped_mismatches(results[size_t(r)], r, l.ranks) == 0);
    }
  }
}

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
