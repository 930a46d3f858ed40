// The Communicator's collectives with 2, 3 and 4 CPU ranks as threads (the in-process backend):
// exact bytes for uneven and zero counts, sums, broadcast, gather, barrier, and arguments the ranks
// disagree on. Each rank records what it received and the main thread checks it (Catch2's assertions
// are not thread-safe).
#include <catch2/catch.hpp>

#include <array>
#include <atomic>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/transport/run_ranks.h"
#include "tests/ranks/exchange_pattern.h"

using namespace splat;
using namespace splat::transport;
using splat::test::pattern_byte;
using splat::test::pattern_bytes;
using splat::test::scattered_layout;

namespace {

const ContextFor on_cpu = [](int) { return kernels::ComputeContext(kernels::Device::CPU); };

}  // namespace

TEST_CASE("all_to_all_v moves exactly the right bytes for uneven and zero counts (2, 3, 4 CPU ranks)", "[dist]") {
  for (const int ranks : {2, 3, 4})
    for (const uint32_t seed : {1u, 2u, 3u}) {
      INFO(ranks << " ranks, seed " << seed);
      std::vector<std::vector<uint8_t>> received(ranks);
      run_ranks(ranks, on_cpu, [&](Communicator& comm) {
        const int me = comm.rank();
        std::vector<int64_t> send_counts(ranks), recv_counts(ranks);
        for (int q = 0; q < ranks; ++q) {
          send_counts[q] = pattern_bytes(me, q, ranks, seed);
          recv_counts[q] = pattern_bytes(q, me, ranks, seed);
        }
        const auto out = scattered_layout(send_counts, seed + me), in = scattered_layout(recv_counts, seed * 3 + me);
        std::vector<uint8_t> send(out.total, test::kUntouched), recv(in.total, test::kUntouched);
        for (int q = 0; q < ranks; ++q)
          for (int64_t i = 0; i < out.counts[q]; ++i) send[out.offsets[q] + i] = pattern_byte(me, q, i, seed);
        comm.all_to_all_v(send.data(), {out.counts, out.offsets}, recv.data(), {in.counts, in.offsets});
        received[me] = std::move(recv);
      });

      int64_t zero_slices = 0;
      for (int me = 0; me < ranks; ++me) {
        std::vector<int64_t> recv_counts(ranks);
        for (int p = 0; p < ranks; ++p) recv_counts[p] = pattern_bytes(p, me, ranks, seed);
        const auto in = scattered_layout(recv_counts, seed * 3 + me);
        std::vector<uint8_t> expected(in.total, test::kUntouched);  // gaps stay untouched
        for (int p = 0; p < ranks; ++p) {
          zero_slices += recv_counts[p] == 0;
          for (int64_t i = 0; i < recv_counts[p]; ++i) expected[in.offsets[p] + i] = pattern_byte(p, me, i, seed);
        }
        INFO("rank " << me);
        CHECK(received[me] == expected);
      }
      if (seed % 2 == 1) CHECK(zero_slices >= ranks);  // the last rank sent nothing at all
    }
}

TEST_CASE("all_to_all_buffers moves every buffer's bytes as all_to_all_v would, in one collective", "[dist]") {
  constexpr int kBuffers = 3;
  for (const int ranks : {2, 3}) {
    INFO(ranks << " ranks");
    // Buffer b follows the pattern of seed b + 1, so the buffers differ in counts and in bytes.
    auto counts = [&](int from, int to, int b) { return pattern_bytes(from, to, ranks, uint32_t(b + 1)); };
    std::vector<std::vector<std::vector<uint8_t>>> received(ranks);
    run_ranks(ranks, on_cpu, [&](Communicator& comm) {
      const int me = comm.rank();
      std::vector<test::ScatteredLayout> out, in;
      std::vector<std::vector<uint8_t>> send(kBuffers), recv(kBuffers);
      std::vector<ExchangeBuffer> buffers;
      for (int b = 0; b < kBuffers; ++b) {
        std::vector<int64_t> send_counts(ranks), recv_counts(ranks);
        for (int q = 0; q < ranks; ++q) send_counts[q] = counts(me, q, b), recv_counts[q] = counts(q, me, b);
        out.push_back(scattered_layout(send_counts, 10 * b + me));
        in.push_back(scattered_layout(recv_counts, 20 * b + me));
      }
      for (int b = 0; b < kBuffers; ++b) {
        send[b].assign(size_t(out[b].total), test::kUntouched);
        recv[b].assign(size_t(in[b].total), test::kUntouched);
        for (int q = 0; q < ranks; ++q)
          for (int64_t i = 0; i < out[b].counts[q]; ++i)
            send[b][out[b].offsets[q] + i] = pattern_byte(me, q, i, uint32_t(b + 1));
        buffers.push_back({send[b].data(), {out[b].counts, out[b].offsets}, recv[b].data(), {in[b].counts, in[b].offsets}});
      }
      comm.all_to_all_buffers(buffers);
      received[me] = std::move(recv);
    });
    for (int me = 0; me < ranks; ++me)
      for (int b = 0; b < kBuffers; ++b) {
        std::vector<int64_t> recv_counts(ranks);
        for (int p = 0; p < ranks; ++p) recv_counts[p] = counts(p, me, b);
        const auto in = scattered_layout(recv_counts, 20 * b + me);
        std::vector<uint8_t> expected(size_t(in.total), test::kUntouched);
        for (int p = 0; p < ranks; ++p)
          for (int64_t i = 0; i < recv_counts[p]; ++i) expected[in.offsets[p] + i] = pattern_byte(p, me, i, uint32_t(b + 1));
        INFO("rank " << me << ", buffer " << b);
        CHECK(received[me][b] == expected);
      }
  }
}

namespace {
// The gated pattern: rank p sends rank q (p + 2 q) % 5 + 1 rows of a wide (16-byte) and a narrow (4-byte)
// column, its rows for the peers back to back in rank order, and keeps row i of them where
// (i + p) % 3 != 0. The narrow column is the zeroed one: a row left out is zeros there and untouched
// (0xee) in the wide one.
constexpr int64_t kWide = 16, kNarrow = 4;
int64_t pattern_rows(int p, int q) { return (p + 2 * q) % 5 + 1; }
bool pattern_kept(int p, int64_t i) { return (i + p) % 3 != 0; }
uint8_t pattern_value(int p, int q, int64_t i, int64_t byte) { return uint8_t(1 + (64 * p + 16 * q + 4 * i + byte) % 250); }

// One rank's slices of the pattern in rows, and its columns' slices in bytes.
struct PatternSlices {
  std::vector<int64_t> out, out_at, in, in_at;  // rows to / from each rank, where they start
  int64_t sent = 0, got = 0;
  PatternSlices(int me, int ranks) : out(ranks), out_at(ranks), in(ranks), in_at(ranks) {
    for (int q = 0; q < ranks; ++q) out[q] = pattern_rows(me, q), out_at[q] = sent, sent += out[q];
    for (int p = 0; p < ranks; ++p) in[p] = pattern_rows(p, me), in_at[p] = got, got += in[p];
  }
  // The slices of a column of w bytes a row.
  struct Bytes {
    std::vector<int64_t> out, out_at, in, in_at;
  };
  Bytes bytes(int64_t w) const {
    const auto times = [w](std::vector<int64_t> v) {
      for (int64_t& x : v) x *= w;
      return v;
    };
    return {times(out), times(out_at), times(in), times(in_at)};
  }
};

// Rank `me`'s receive columns as the pattern leaves them (Catch's checks run on the main thread).
void check_pattern_received(const std::vector<std::array<std::vector<uint8_t>, 2>>& received, int ranks) {
  for (int me = 0; me < ranks; ++me) {
    int64_t at = 0;
    for (int p = 0; p < ranks; ++p)
      for (int64_t i = 0; i < pattern_rows(p, me); ++i, ++at) {
        const bool kept = pattern_kept(p, i);
        INFO("rank " << me << " from rank " << p << ", row " << i);
        for (int64_t b = 0; b < kWide; ++b)
          CHECK(received[me][0][size_t(at * kWide + b)] == (kept ? pattern_value(p, me, i, b) : 0xee));
        for (int64_t b = 0; b < kNarrow; ++b)
          CHECK(received[me][1][size_t(at * kNarrow + b)] == (kept ? pattern_value(p, me, i, b) : 0));
      }
  }
}

// Receive columns for the pattern, every byte 0xee, and the two buffers of its exchange (`wide` and
// `narrow` the send columns, null where nothing is sent from them).
struct PatternBuffers {
  PatternSlices::Bytes w, n;
  std::array<std::vector<uint8_t>, 2> recv;
  std::vector<ExchangeBuffer> buffers;
  PatternBuffers(const PatternSlices& s, const uint8_t* wide, const uint8_t* narrow)
      : w(s.bytes(kWide)), n(s.bytes(kNarrow)),
        recv{std::vector<uint8_t>(size_t(s.got * kWide), 0xee), std::vector<uint8_t>(size_t(s.got * kNarrow), 0xee)},
        buffers{{wide, {w.out, w.out_at}, recv[0].data(), {w.in, w.in_at}},
                {narrow, {n.out, n.out_at}, recv[1].data(), {n.in, n.in_at}}} {}
};
}  // namespace

TEST_CASE("all_to_all_gated moves the rows their sender keeps, zeros for the rest in the zeroed buffer only "
          "(2, 3 CPU ranks)",
          "[dist]") {
  for (const int ranks : {2, 3}) {
    INFO(ranks << " ranks");
    std::vector<std::array<std::vector<uint8_t>, 2>> received(ranks);
    std::vector<int> left_out(ranks);
    run_ranks(ranks, on_cpu, [&](Communicator& comm) {
      const int me = comm.rank();
      const PatternSlices s(me, ranks);
      std::vector<uint8_t> wide(size_t(s.sent * kWide)), narrow(size_t(s.sent * kNarrow));
      std::vector<int32_t> gate(static_cast<size_t>(s.sent));
      for (int q = 0; q < ranks; ++q)
        for (int64_t i = 0; i < s.out[q]; ++i) {
          const int64_t r = s.out_at[q] + i;
          for (int64_t b = 0; b < kWide; ++b) wide[size_t(r * kWide + b)] = pattern_value(me, q, i, b);
          for (int64_t b = 0; b < kNarrow; ++b) narrow[size_t(r * kNarrow + b)] = pattern_value(me, q, i, b);
          gate[size_t(r)] = pattern_kept(me, i);
        }
      PatternBuffers x(s, wide.data(), narrow.data());
      const std::vector<int64_t> widths{kWide, kNarrow};
      left_out[me] = comm.all_to_all_gated(x.buffers, widths, gate.data(), 1);
      received[me] = std::move(x.recv);
    });
    for (int me = 0; me < ranks; ++me) CHECK(left_out[me]);
    check_pattern_received(received, ranks);
  }
}

TEST_CASE("mapped writes land where a gated exchange would put the rows, and are seen after the close "
          "(2, 3 CPU ranks)",
          "[dist]") {
  for (const int ranks : {2, 3}) {
    INFO(ranks << " ranks");
    std::vector<std::array<std::vector<uint8_t>, 2>> received(ranks);
    run_ranks(ranks, on_cpu, [&](Communicator& comm) {
      const int me = comm.rank();
      const PatternSlices s(me, ranks);
      PatternBuffers x(s, nullptr, nullptr);
      const std::vector<std::vector<void*>> at = comm.open_mapped_writes(x.buffers);
      if (at.size() != 2) throw std::runtime_error("in-process CPU ranks were not mapped");
      for (int q = 0; q < ranks; ++q)
        for (int64_t i = 0; i < s.out[q]; ++i) {
          auto* wide = static_cast<uint8_t*>(at[0][size_t(q)]) + i * kWide;
          auto* narrow = static_cast<uint8_t*>(at[1][size_t(q)]) + i * kNarrow;
          const bool kept = pattern_kept(me, i);
          for (int64_t b = 0; b < kWide && kept; ++b) wide[b] = pattern_value(me, q, i, b);
          for (int64_t b = 0; b < kNarrow; ++b) narrow[b] = kept ? pattern_value(me, q, i, b) : 0;
        }
      comm.close_mapped_writes();
      received[me] = x.recv;  // every peer wrote before its close, so before this one returned
    });
    check_pattern_received(received, ranks);
  }
}

TEST_CASE("mapped reads find each peer's slice for this rank in its send buffer (2, 3 CPU ranks)", "[dist]") {
  for (const int ranks : {2, 3}) {
    INFO(ranks << " ranks");
    std::vector<std::vector<uint8_t>> read(ranks), want(ranks);
    run_ranks(ranks, on_cpu, [&](Communicator& comm) {
      const int me = comm.rank();
      const PatternSlices s(me, ranks);
      std::vector<uint8_t> wide(size_t(s.sent * kWide)), narrow(size_t(s.sent * kNarrow));
      for (int q = 0; q < ranks; ++q)
        for (int64_t b = 0; b < s.out[q] * kWide; ++b)
          wide[size_t(s.out_at[q] * kWide + b)] = pattern_value(me, q, b / kWide, b % kWide);
      PatternBuffers x(s, wide.data(), narrow.data());
      const std::vector<std::vector<const void*>> at = comm.open_mapped_reads(x.buffers);
      if (at.size() != 2) throw std::runtime_error("in-process CPU ranks were not mapped");
      for (int p = 0; p < ranks; ++p)
        for (int64_t b = 0; b < s.in[p] * kWide; ++b) {
          read[me].push_back(static_cast<const uint8_t*>(at[0][size_t(p)])[b]);
          want[me].push_back(pattern_value(p, me, b / kWide, b % kWide));
        }
      comm.barrier();  // the peers' send buffers stay until every rank has read them
    });
    for (int me = 0; me < ranks; ++me) CHECK(read[me] == want[me]);
  }
}

namespace {
// A backend with nothing but the two primitives (in-process underneath): what the defaults give.
class PrimitivesOnly final : public Communicator {
 public:
  explicit PrimitivesOnly(Communicator& inner) : inner_(inner) {}
  int rank() const override { return inner_.rank(); }
  int size() const override { return inner_.size(); }
  const kernels::ComputeContext& context() const override { return inner_.context(); }
  void all_to_all_v(const void* send, PeerSlices sends, void* recv, PeerSlices recvs) override {
    inner_.all_to_all_v(send, sends, recv, recvs);
  }
  void all_reduce_sum(std::span<float> v) override { inner_.all_reduce_sum(v); }
  void all_reduce_sum(std::span<int64_t> v) override { inner_.all_reduce_sum(v); }

 private:
  Communicator& inner_;
};
}  // namespace

TEST_CASE("a backend that cannot map its peers says so on every rank, and a close without an open is refused",
          "[dist]") {
  std::vector<int> mapped(2, -1);
  std::vector<std::string> refused(2);
  run_ranks(2, on_cpu, [&](Communicator& comm) {
    PrimitivesOnly plain(comm);
    const std::vector<int64_t> zero{0, 0};
    const std::vector<ExchangeBuffer> none{{nullptr, {zero, zero}, nullptr, {zero, zero}}};
    mapped[comm.rank()] = int(plain.open_mapped_writes(none).size() + plain.open_mapped_reads(none).size());
    for (Communicator* c : {static_cast<Communicator*>(&plain), &comm}) {
      try {
        c->close_mapped_writes();
      } catch (const std::logic_error& e) {
        refused[comm.rank()] += std::string(e.what()) + ";";
      }
    }
  });
  for (int r = 0; r < 2; ++r) {
    CHECK(mapped[r] == 0);
    CHECK_THAT(refused[r], Catch::Contains("rank " + std::to_string(r) + " (CPU): close_mapped_writes without mapped "
                                           "writes open;rank " + std::to_string(r)));
  }
}

TEST_CASE("the counts exchange transposes the count matrix", "[dist]") {
  for (const int ranks : {2, 3, 4}) {
    std::vector<std::vector<int64_t>> received(ranks);
    run_ranks(ranks, on_cpu, [&](Communicator& comm) {
      std::vector<int64_t> send(ranks), recv(ranks, -1);
      for (int q = 0; q < ranks; ++q) send[q] = 100 * comm.rank() + q;
      comm.all_to_all_counts(send.data(), recv.data());
      received[comm.rank()] = recv;
    });
    for (int me = 0; me < ranks; ++me)
      for (int p = 0; p < ranks; ++p) CHECK(received[me][p] == 100 * p + me);
  }
}

TEST_CASE("all_reduce_sum gives every rank the same sum of floats and int64", "[dist]") {
  for (const int ranks : {2, 3, 4}) {
    std::vector<std::vector<float>> floats(ranks);
    std::vector<std::vector<int64_t>> ints(ranks);
    auto float_input = [](int r) { return std::vector<float>{0.1f * (r + 1), 1e7f * (r % 2 ? 1 : -1), 3.3f / (r + 1)}; };
    auto int_input = [](int r) { return std::vector<int64_t>{r, (int64_t{1} << 40) + r, -5}; };
    run_ranks(ranks, on_cpu, [&](Communicator& comm) {
      auto f = float_input(comm.rank());
      auto i = int_input(comm.rank());
      comm.all_reduce_sum(std::span<float>(f));
      comm.all_reduce_sum(std::span<int64_t>(i));
      floats[comm.rank()] = f;
      ints[comm.rank()] = i;
    });
    std::vector<float> float_sum(3, 0.f);
    std::vector<int64_t> int_sum(3, 0);
    for (int r = 0; r < ranks; ++r)
      for (size_t k = 0; k < 3; ++k) float_sum[k] += float_input(r)[k], int_sum[k] += int_input(r)[k];
    for (int r = 0; r < ranks; ++r) {
      INFO(ranks << " ranks, rank " << r);
      CHECK(floats[r] == float_sum);  // bitwise: added in rank order on every rank
      CHECK(ints[r] == int_sum);
    }
  }
}

TEST_CASE("broadcast copies the root's bytes to every rank and gather concatenates shards on the root", "[dist]") {
  for (const int ranks : {2, 3, 4})
    for (int root = 0; root < ranks; ++root) {
      INFO(ranks << " ranks, root " << root);
      std::vector<std::vector<uint8_t>> bcast(ranks), gathered(ranks);
      std::vector<std::vector<int64_t>> sizes(ranks);
      auto shard = [](int r) {  // rank 1's shard is empty
        std::vector<uint8_t> s(r == 1 ? 0 : 10 * r + 3);
        for (size_t i = 0; i < s.size(); ++i) s[i] = pattern_byte(r, 9, static_cast<int64_t>(i), 4);
        return s;
      };
      run_ranks(ranks, on_cpu, [&](Communicator& comm) {
        const int me = comm.rank();
        std::vector<uint8_t> data(37, me == root ? 0 : test::kUntouched);
        if (me == root)
          for (size_t i = 0; i < data.size(); ++i) data[i] = pattern_byte(root, 0, static_cast<int64_t>(i), 8);
        comm.broadcast(data.data(), static_cast<int64_t>(data.size()), root);
        bcast[me] = data;

        const std::vector<uint8_t> mine = shard(me);
        sizes[me] = comm.all_gather_value(static_cast<int64_t>(mine.size()));
        std::vector<uint8_t> all(std::accumulate(sizes[me].begin(), sizes[me].end(), int64_t{0}), test::kUntouched);
        comm.gather(mine.data(), static_cast<int64_t>(mine.size()), all.data(), sizes[me], root);
        gathered[me] = all;
      });
      std::vector<uint8_t> expected_bcast(37), expected_model;
      for (size_t i = 0; i < expected_bcast.size(); ++i) expected_bcast[i] = pattern_byte(root, 0, i, 8);
      std::vector<int64_t> expected_sizes;
      for (int r = 0; r < ranks; ++r) {
        const auto s = shard(r);
        expected_sizes.push_back(static_cast<int64_t>(s.size()));
        expected_model.insert(expected_model.end(), s.begin(), s.end());
      }
      for (int r = 0; r < ranks; ++r) {
        INFO("rank " << r);
        CHECK(bcast[r] == expected_bcast);
        CHECK(sizes[r] == expected_sizes);
        if (r == root) CHECK(gathered[r] == expected_model);
        else CHECK(gathered[r] == std::vector<uint8_t>(expected_model.size(), test::kUntouched));  // only the root receives
      }
    }
}

TEST_CASE("barrier returns on no rank before every rank has entered it", "[dist]") {
  for (const int ranks : {2, 3, 4}) {
    std::atomic<int> entered{0};
    std::vector<int> seen(ranks, -1);
    run_ranks(ranks, on_cpu, [&](Communicator& comm) {
      for (int round = 1; round <= 20; ++round) {
        entered.fetch_add(1);
        comm.barrier();
        const int now = entered.load();
        if (now < round * ranks) seen[comm.rank()] = now;  // someone left before all entered
        comm.barrier();  // nobody enters the next round before all have looked
      }
    });
    CHECK(seen == std::vector<int>(ranks, -1));
  }
}

TEST_CASE("ranks that disagree on counts, collectives or sizes get an error saying so", "[dist]") {
  auto message_of = [](const std::function<void(Communicator&)>& work) {
    try {
      run_ranks(2, on_cpu, work);
    } catch (const CommError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  // Rank 0 sends rank 1 eight bytes; rank 1 expects four.
  const std::string counts = message_of([](Communicator& comm) {
    std::vector<uint8_t> send(8, 1), recv(8, 0);
    const std::vector<int64_t> zero{0, 0}, to_one{0, 8}, expect{comm.rank() == 1 ? 4 : 0, 0};
    comm.all_to_all_v(send.data(), {comm.rank() == 0 ? to_one : zero, zero}, recv.data(), {expect, zero});
  });
  CHECK_THAT(counts, Catch::Contains("ranks disagree") && Catch::Contains("rank 0 (CPU) sends 8 bytes to rank 1 (CPU), which expects 4"));

  const std::string ops = message_of([](Communicator& comm) {
    std::vector<int64_t> counts(2, 0), received(2, 0);
    if (comm.rank() == 0) comm.barrier();
    else comm.all_to_all_counts(counts.data(), received.data());
  });
  CHECK_THAT(ops, Catch::Contains("ranks disagree") && Catch::Contains("rank 1 (CPU) called all_to_all_v"));

  const std::string buffers = message_of([](Communicator& comm) {
    const std::vector<int64_t> zero{0, 0};
    const ExchangeBuffer nothing{nullptr, {zero, zero}, nullptr, {zero, zero}};
    const std::vector<ExchangeBuffer> list(size_t(comm.rank() + 1), nothing);
    comm.all_to_all_buffers(list);
  });
  CHECK_THAT(buffers, Catch::Contains("ranks disagree") && Catch::Contains("1 buffers on rank 0 (CPU), 2 on rank 1 (CPU)"));

  const std::string widths = message_of([](Communicator& comm) {
    const std::vector<int64_t> zero{0, 0}, width{comm.rank() == 0 ? 4 : 8};
    const int32_t gate = 1;
    const std::vector<ExchangeBuffer> one{{nullptr, {zero, zero}, nullptr, {zero, zero}}};
    comm.all_to_all_gated(one, width, &gate, -1);
  });
  CHECK_THAT(widths, Catch::Contains("ranks disagree") && Catch::Contains("row widths of buffer 0"));
  CHECK_THROWS_WITH(run_ranks(2, on_cpu,
                              [](Communicator& comm) {
                                const std::vector<int64_t> zero{0, 0}, twelve{12};
                                const int32_t gate = 1;
                                const std::vector<ExchangeBuffer> one{{nullptr, {zero, zero}, nullptr, {zero, zero}}};
                                comm.all_to_all_gated(one, twelve, &gate, -1);
                              }),
                    Catch::Contains("all_to_all_gated rows of 12 bytes (4, 8 or 16)"));
  CHECK_THROWS_WITH(run_ranks(2, on_cpu,
                              [](Communicator& comm) {
                                const std::vector<int64_t> zero{0, 0}, four{4};
                                const int32_t gate = 1;
                                const std::vector<ExchangeBuffer> one{{nullptr, {zero, zero}, nullptr, {zero, zero}}};
                                comm.all_to_all_gated(one, four, &gate, 1);
                              }),
                    Catch::Contains("all_to_all_gated zeroes buffer 1 of 1"));

  const std::string sizes = message_of([](Communicator& comm) {
    std::vector<float> v(comm.rank() + 2, 1.f);
    comm.all_reduce_sum(std::span<float>(v));
  });
  CHECK_THAT(sizes, Catch::Contains("2 values on rank 0 (CPU), 3 on rank 1 (CPU)"));

  const std::string slices = message_of([](Communicator& comm) {
    std::vector<int64_t> three(3, 0), two(2, 0);
    comm.all_to_all_v(nullptr, {three, three}, nullptr, {two, two});
  });
  CHECK_THAT(slices, Catch::Contains("needs 2 send counts and offsets, got 3"));
}

TEST_CASE("the backend choice: in-process for CPU ranks, shared GPUs and peer-to-peer GPUs, NCCL otherwise", "[dist]") {
  using kernels::ComputeContext;
  using kernels::Device;
  const std::vector<ComputeContext> cpu(3, ComputeContext(Device::CPU));
  CHECK(choose_backend(cpu) == RankBackend::InProcess);
  CHECK_THROWS_WITH(choose_backend(cpu, RankBackend::Nccl),
                    nccl_built_in() ? "NCCL needs CUDA ranks" : "this build has no NCCL");

  const std::vector<ComputeContext> mixed{ComputeContext(Device::CPU), ComputeContext(Device::CUDA, 0)};
  CHECK_THROWS_WITH(choose_backend(mixed), Catch::Contains("rank 0 (CPU) and rank 1 (CUDA device 0)"));

  const std::vector<ComputeContext> one_gpu{ComputeContext(Device::CUDA, 0), ComputeContext(Device::CUDA, 0)};
  CHECK(choose_backend(one_gpu) == RankBackend::InProcess);
  if (nccl_built_in()) {
    CHECK_THROWS_WITH(choose_backend(one_gpu, RankBackend::Nccl),
                      Catch::Contains("rank 1 (CUDA device 0) shares its GPU"));
    const std::vector<ComputeContext> two_gpus{ComputeContext(Device::CUDA, 0), ComputeContext(Device::CUDA, 1)};
    const PeerQuery linked = [](int, int) { return true; }, apart = [](int, int) { return false; };
    CHECK(choose_backend(two_gpus, RankBackend::Auto, linked) == RankBackend::InProcess);
    CHECK(choose_backend(two_gpus, RankBackend::Auto, apart) == RankBackend::Nccl);
    // One pair of three GPUs that cannot reach each other directly is enough for NCCL.
    const std::vector<ComputeContext> three{ComputeContext(Device::CUDA, 0), ComputeContext(Device::CUDA, 1),
                                            ComputeContext(Device::CUDA, 2)};
    const PeerQuery not_0_2 = [](int a, int b) { return a + b != 2; };
    CHECK(choose_backend(three, RankBackend::Auto, not_0_2) == RankBackend::Nccl);
    CHECK(choose_backend(two_gpus, RankBackend::Nccl, linked) == RankBackend::Nccl);
    CHECK(choose_backend(two_gpus, RankBackend::InProcess, apart) == RankBackend::InProcess);
  }
}
