// ComputeContext (kernels/device_context.h): buffers and backends carry their device ordinal and
// stream; copies and zeroing keep their streams' order; a device that does not exist is named.
#include <catch2/catch.hpp>
#include <cuda_runtime.h>

#include <exception>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "kernels/adam.h"
#include "kernels/buffer.h"
#include "kernels/device.h"
#include "kernels/host_waits.h"
#include "kernels/loss.h"
#include "kernels/rasterizer.h"
#include "kernels/row_ops.h"
#include "tests/support/test_support.h"

using namespace splat::kernels;

namespace {

// A non-blocking stream orders itself with no other stream (not even the legacy default one), so
// work that lands on the wrong stream, or a copy that skips a wait, races instead of passing.
struct TestStream {
  cudaStream_t s = nullptr;
  TestStream() { REQUIRE(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) == cudaSuccess); }
  ~TestStream() { cudaStreamDestroy(s); }
  TestStream(const TestStream&) = delete;
  TestStream& operator=(const TestStream&) = delete;
};

std::vector<float> random_floats(size_t n, uint32_t seed, float lo, float hi) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(lo, hi);
  std::vector<float> v(n);
  for (float& x : v) x = u(rng);
  return v;
}

}  // namespace

TEST_CASE("a buffer carries its compute context through moves; a Device means ordinal 0, default stream",
          "[buffer]") {
  int marker = 0;  // the CPU backend ignores ordinal and stream, so any value travels
  const ComputeContext where{Device::CPU, 2, &marker};
  Buffer<float> b(where, 3);
  CHECK(b.context() == where);
  CHECK(b.device() == Device::CPU);
  const std::vector<float> v{1.f, -2.5f, 4.f};
  b.upload(v);
  Buffer<float> moved = std::move(b);
  CHECK(moved.context() == where);
  CHECK(moved.download() == v);

  const Buffer<float> plain(Device::CUDA);  // no allocation at size 0: this runs without a GPU
  CHECK(plain.context().device == Device::CUDA);
  CHECK(plain.context().ordinal == 0);
  CHECK(plain.context().stream == nullptr);
  CHECK(make_cpu_rasterizer(1)->context() == ComputeContext(Device::CPU));
  CHECK(make_photometric_loss(Device::CPU)->device() == Device::CPU);
}

TEST_CASE("a CUDA device that does not exist is named in the error of every entry point", "[buffer]") {
  // Past the last device on any machine (the first one where there is none), and a negative one.
  for (const int ordinal : {cuda_device_count(), cuda_device_count() + 3, -1}) {
    INFO("ordinal " << ordinal);
    const ComputeContext nowhere{Device::CUDA, ordinal};
    const auto named = Catch::Contains("CUDA device " + std::to_string(ordinal) + " does not exist");
    CHECK_THROWS_AS(Buffer<float>(nowhere, 16), std::invalid_argument);
    CHECK_THROWS_WITH(Buffer<float>(nowhere, 16), named);
    CHECK_THROWS_WITH(make_cuda_rasterizer(nowhere), named);
    CHECK_THROWS_WITH(make_photometric_loss(nowhere), named);
    float x = 0;
    CHECK_THROWS_WITH(zero_bytes(nowhere, &x, sizeof x), named);
    CHECK_THROWS_WITH(copy_bytes(&x, Device::CPU, &x, nowhere, sizeof x), named);
    CHECK_THROWS_WITH(adam_step(nowhere, &x, &x, &x, &x, 1, AdamHyperParams{}, 1), named);
    const int32_t row = 0;
    CHECK_THROWS_WITH(gather_rows(nowhere, &x, &x, 1, &row, 1), named);
  }
  CHECK_THROWS_WITH(make_cuda_rasterizer(Device::CPU), Catch::Contains("not a CUDA context"));
}

TEST_CASE("buffers on two streams of device 0 copy and zero in their streams' order", "[buffer][gpu]") {
  if (!splat::test::gpu_or_skip("buffers on two CUDA streams")) return;
  TestStream s1, s2;
  const ComputeContext one{Device::CUDA, 0, s1.s}, two{Device::CUDA, 0, s2.s};
  const size_t n = size_t(1) << 24;  // 64 MiB: long enough on the GPU for a copy that skipped a wait to overtake
  std::vector<int> va(n), vb(n);
  for (size_t i = 0; i < n; ++i) va[i] = int(i) * 3 + 1, vb[i] = -int(i);
  const std::vector<int> zeros(n, 0);

  Buffer<int> a(one), b(two), c(one, n);
  a.upload(va);
  b.upload(vb);
  CHECK(a.context() == one);
  CHECK(b.context() == two);
  CHECK(a.download() == va);
  CHECK(b.download() == vb);

  // One stream: the device copy and the zeroing are not waited for, a download on that stream
  // comes after them.
  copy_bytes(c.data(), one, a.data(), one, a.bytes());
  CHECK(c.download() == va);
  c.zero();
  CHECK(c.download() == zeros);

  // Across streams the copy waits for the source stream's pending work (a's zeroing)...
  a.zero();
  copy_bytes(b.data(), two, a.data(), one, a.bytes());
  CHECK(b.download() == zeros);
  // ...including a copy still queued there, and the destination's stream sees the result.
  c.upload(va);
  copy_bytes(a.data(), one, c.data(), one, c.bytes());
  copy_bytes(b.data(), two, a.data(), one, a.bytes());
  CHECK(b.download() == va);
}

// Growing a buffer on a stream of its own takes the new block in that stream's order and gives the old
// one back there, with no host wait: the work queued before it (a large copy out of the old block) still
// reads the old contents, and the new block is usable at once on the stream.
TEST_CASE("a buffer grows in its stream's order, with no host wait", "[buffer][gpu]") {
  if (!splat::test::gpu_or_skip("a buffer growing on a CUDA stream")) return;
  TestStream s1;
  const ComputeContext one{Device::CUDA, 0, s1.s};
  const size_t n = size_t(1) << 24;  // 64 MiB: the copy out of the old block is still running at the free
  std::vector<int> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = int(i) * 5 - 7;
  Buffer<int> a(one), kept(one, n);
  a.upload(v);
  for (int round = 0; round < 3; ++round) {
    copy_bytes(kept.data(), one, a.data(), one, size_t(n) * sizeof(int));  // queued, reads the old block
    const uint64_t waits = host_waits();
    a.resize(a.capacity() + 1);
    CHECK(host_waits() == waits);
    CHECK(a.capacity() >= n + n / 8);
    CHECK(a.data() != nullptr);
    copy_bytes(a.data(), one, kept.data(), one, size_t(n) * sizeof(int));  // the new block, in stream order
  }
  std::vector<int> back(n);
  copy_to_host(back.data(), a.data(), one, size_t(n) * sizeof(int));
  CHECK(back == v);
  CHECK(kept.download() == v);
}

TEST_CASE("Adam, row ops and the loss on two streams driven from two host threads match the CPU",
          "[adam][gpu]") {
  if (!splat::test::gpu_or_skip("backends on two streams from two threads")) return;
  // Each thread owns a stream on device 0 (as two ranks sharing a GPU would) and runs its own
  // inputs; the CPU reference runs the same inputs here.
  const size_t n = 300007;
  const ImageBatchShape shape{2, 67, 101};
  struct Rank {
    std::vector<float> p, g, pred, target;
    std::vector<int32_t> rows;
    std::vector<float> gpu_p, gpu_gathered;
    float gpu_loss = 0;
    ComputeContext loss_context;
    std::exception_ptr error;
  };
  std::vector<Rank> ranks(2);
  for (uint32_t r = 0; r < 2; ++r) {
    ranks[r].p = random_floats(n, 10 + r, -1.f, 1.f);
    ranks[r].g = random_floats(n, 20 + r, -0.01f, 0.01f);
    ranks[r].pred = random_floats(size_t(shape.elements()), 30 + r, 0.f, 1.f);
    ranks[r].target = random_floats(size_t(shape.elements()), 40 + r, 0.f, 1.f);
    for (int32_t i = 0; i < 1000; ++i) ranks[r].rows.push_back((i * 7919 + int32_t(r)) % int32_t(n));
  }
  AdamHyperParams h;
  h.lr = 1e-2f;
  constexpr int kSteps = 20;

  TestStream streams[2];
  std::vector<std::thread> threads;
  for (int r = 0; r < 2; ++r)
    threads.emplace_back([&, r] {
      Rank& k = ranks[r];
      try {
        const ComputeContext where{Device::CUDA, 0, streams[r].s};
        Buffer<float> p(where), g(where), m(where, n), v(where, n), gathered(where, k.rows.size());
        Buffer<int32_t> rows(where);
        p.upload(k.p);
        g.upload(k.g);
        rows.upload(k.rows);
        m.zero();
        v.zero();
        for (int step = 1; step <= kSteps; ++step)
          adam_step(where, p.data(), g.data(), m.data(), v.data(), int64_t(n), h, step);
        gather_rows(where, gathered.data(), p.data(), 1, rows.data(), int64_t(k.rows.size()));
        k.gpu_p = p.download();
        k.gpu_gathered = gathered.download();

        Buffer<float> pred(where), target(where);
        pred.upload(k.pred);
        target.upload(k.target);
        auto loss = make_photometric_loss(where);
        k.loss_context = loss->context();
        loss->forward(pred.data(), target.data(), shape);
        k.gpu_loss = loss->read_loss();
      } catch (...) {
        k.error = std::current_exception();
      }
    });
  for (std::thread& t : threads) t.join();

  for (int r = 0; r < 2; ++r) {
    INFO("thread " << r);
    Rank& k = ranks[r];
    if (k.error) std::rethrow_exception(k.error);
    std::vector<float> m(n, 0.f), v(n, 0.f);
    const std::vector<float> start = k.p;
    for (int step = 1; step <= kSteps; ++step)
      adam_step(Device::CPU, k.p.data(), k.g.data(), m.data(), v.data(), int64_t(n), h, step);
    CHECK(k.gpu_p == k.p);  // adam_math.h makes both backends round identically
    CHECK(k.p != start);
    std::vector<float> gathered(k.rows.size());
    gather_rows(Device::CPU, gathered.data(), k.p.data(), 1, k.rows.data(), int64_t(k.rows.size()));
    CHECK(k.gpu_gathered == gathered);

    auto cpu = make_photometric_loss(Device::CPU);
    cpu->forward(k.pred.data(), k.target.data(), shape);
    CHECK(k.gpu_loss == Approx(cpu->read_loss()).epsilon(1e-5));
    CHECK(k.loss_context == ComputeContext(Device::CUDA, 0, streams[r].s));
  }
  CHECK(ranks[0].gpu_loss != ranks[1].gpu_loss);  // the threads did not compute one shared result
}
