#include <catch2/catch.hpp>

#include "kernels/buffer.h"
#include "tests/support/test_support.h"

using splat::kernels::Buffer;
using splat::kernels::Device;

TEST_CASE("host buffer upload, zero and download round-trip", "[buffer]") {
  Buffer<float> b(Device::CPU);
  const std::vector<float> v{1.5f, -2.f, 3.25f};
  b.upload(v);
  REQUIRE(b.size() == 3);
  CHECK(b.download() == v);
  b.zero();
  CHECK(b.download() == std::vector<float>(3, 0.f));
  Buffer<float> moved = std::move(b);
  CHECK(moved.size() == 3);
  CHECK(b.size() == 0);
}

TEST_CASE("CUDA buffer round-trips through the device", "[buffer][gpu]") {
  if (!splat::test::gpu_or_skip("CUDA buffer round trip")) return;
  Buffer<int> d(Device::CUDA);
  std::vector<int> v(1000);
  for (int i = 0; i < 1000; ++i) v[i] = i * 7 - 3;
  d.upload(v);
  CHECK(d.download() == v);
  d.zero();
  CHECK(d.download() == std::vector<int>(1000, 0));
}

TEST_CASE("resizing keeps the allocation while it fits and grows it by an eighth when it does not", "[buffer]") {
  Buffer<float> b(Device::CPU, 100);
  CHECK(b.capacity() == 100);
  const float* first = b.data();
  b.resize(40);  // shrinking keeps the block
  CHECK(b.size() == 40);
  CHECK(b.data() == first);
  b.resize(100);  // back up to the capacity: still no new block
  CHECK(b.data() == first);
  b.resize(101);  // past it: at least 1.125x, so small steps of growth reallocate rarely
  CHECK(b.capacity() == 112);
  CHECK(b.size() == 101);
  b.resize(1000);  // a big jump allocates exactly what is asked
  CHECK(b.capacity() == 1000);
  const std::vector<float> v(1000, 2.5f);
  b.upload(v);
  CHECK(b.download() == v);
}
