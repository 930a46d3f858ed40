// The Morton ordering on the device (kernels/morton.h) against its CPU reference.
#include <catch2/catch.hpp>

#include <random>
#include <vector>

#include "kernels/buffer.h"
#include "kernels/morton.h"
#include "tests/support/test_support.h"

using splat::kernels::Buffer;
using splat::kernels::Device;
namespace k = splat::kernels;

TEST_CASE("Morton order: codes follow the curve's cells, ties by row", "[morton]") {
  // Four points at the corners of the unit square (z = 0) and a copy of the first: the curve visits
  // (0,0), (1,0), (0,1), (1,1), and the copy sorts right after its twin.
  const std::vector<float> means{1, 1, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0};
  const k::MortonBox box = k::bounding_box_reference(means.data(), 5);
  CHECK(box.lo[0] == 0.f);
  CHECK(box.hi[1] == 1.f);
  std::vector<int32_t> order(5);
  k::morton_order_reference(means.data(), 5, box, order.data());
  CHECK(order == std::vector<int32_t>{1, 4, 2, 3, 0});
}

TEST_CASE("Morton order: CUDA box and order equal the CPU reference", "[morton][gpu]") {
  if (!splat::test::gpu_or_skip("CUDA Morton order")) return;
  std::mt19937 rng(5);
  std::normal_distribution<float> spread(0.f, 3.f);
  std::vector<float> means;
  for (int i = 0; i < 300000; ++i) means.push_back(i % 7 == 0 ? 0.5f : spread(rng));  // repeated values: ties
  const int64_t n = int64_t(means.size() / 3);
  Buffer<float> d_means(Device::CUDA);
  d_means.upload(means);
  Buffer<int32_t> d_order(Device::CUDA, size_t(n));
  const k::MortonBox want = k::bounding_box_reference(means.data(), n);
  const k::MortonBox got = k::bounding_box(d_means.context(), d_means.data(), n);
  for (int a = 0; a < 3; ++a) {
    CHECK(got.lo[a] == want.lo[a]);
    CHECK(got.hi[a] == want.hi[a]);
  }
  std::vector<int32_t> order(static_cast<size_t>(n));
  k::morton_order_reference(means.data(), n, want, order.data());
  k::morton_order(d_means.context(), d_means.data(), n, want, d_order.data());
  CHECK(d_order.download() == order);
}
