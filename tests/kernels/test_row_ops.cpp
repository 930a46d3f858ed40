#include <catch2/catch.hpp>

#include <random>
#include <vector>

#include "kernels/buffer.h"
#include "kernels/row_ops.h"
#include "tests/support/test_support.h"

using splat::kernels::Buffer;
using splat::kernels::Device;
namespace k = splat::kernels;

TEST_CASE("gather_rows copies the indexed rows and writes zeros for -1", "[row_ops]") {
  // 3 rows of width 2.
  const std::vector<float> src{1, 2, 3, 4, 5, 6};
  const std::vector<int32_t> index{2, -1, 0, 2};
  std::vector<float> dst(8, 99.f);
  k::gather_rows(Device::CPU, dst.data(), src.data(), 2, index.data(), 4);
  CHECK(dst == std::vector<float>{5, 6, 0, 0, 1, 2, 5, 6});
  CHECK_THROWS_AS(k::gather_rows(Device::CPU, dst.data(), src.data(), -1, index.data(), 4), std::invalid_argument);
  // Lists of rows gather alike (a gather's own lists put in another order).
  const std::vector<int32_t> rows{7, -1, 9};
  std::vector<int32_t> moved(4, 99);
  k::gather_rows(Device::CPU, moved.data(), rows.data(), 1, index.data(), 4);
  CHECK(moved == std::vector<int32_t>{9, 0, 7, 9});
}

TEST_CASE("cap_values lowers only the values above the cap", "[row_ops]") {
  std::vector<float> v{-5.f, -4.59f, 0.f, 3.f};
  k::cap_values(Device::CPU, v.data(), 4, -4.595f);
  CHECK(v == std::vector<float>{-5.f, -4.595f, -4.595f, -4.595f});
}

TEST_CASE("sum_slices adds the slices element by element, in slice order", "[row_ops]") {
  const std::vector<float> slices{1, 2, 3, 10, 20, 30, 1e8f, 0, -1e8f};  // 3 slices of 3
  std::vector<float> out(3, 99.f);
  k::sum_slices(Device::CPU, slices.data(), 3, 3, out.data());
  CHECK(out == std::vector<float>{(1.f + 10.f) + 1e8f, 22.f, (3.f + 30.f) - 1e8f});  // slice order: the same rounding
}

TEST_CASE("CUDA row operations match the CPU reference", "[row_ops][gpu]") {
  if (!splat::test::gpu_or_skip("CUDA row operations")) return;
  std::mt19937 gen(3);
  std::normal_distribution<float> normal;
  const int width = 45;  // the widest column (SH degree 3 rest coefficients)
  const int64_t rows = 5000, out_rows = 7321;
  std::vector<float> src(rows * width);
  for (float& x : src) x = normal(gen);
  std::uniform_int_distribution<int32_t> pick(-1, int32_t(rows - 1));
  std::vector<int32_t> index(out_rows);
  for (int32_t& i : index) i = pick(gen);

  std::vector<float> want(out_rows * width);
  k::gather_rows(Device::CPU, want.data(), src.data(), width, index.data(), out_rows);
  Buffer<float> d_src(Device::CUDA), d_dst(Device::CUDA, want.size());
  Buffer<int32_t> d_index(Device::CUDA);
  d_src.upload(src);
  d_index.upload(index);
  k::gather_rows(Device::CUDA, d_dst.data(), d_src.data(), width, d_index.data(), out_rows);
  CHECK(d_dst.download() == want);
  // int32 lists: the index gathers itself (its rows, below 5000, lie inside its 7321 entries).
  std::vector<int32_t> want_lists(index.size());
  k::gather_rows(Device::CPU, want_lists.data(), index.data(), 1, index.data(), out_rows);
  Buffer<int32_t> d_lists(Device::CUDA, index.size());
  k::gather_rows(Device::CUDA, d_lists.data(), d_index.data(), 1, d_index.data(), out_rows);
  CHECK(d_lists.download() == want_lists);

  k::cap_values(Device::CPU, want.data(), int64_t(want.size()), 0.25f);
  k::cap_values(Device::CUDA, d_dst.data(), int64_t(want.size()), 0.25f);
  CHECK(d_dst.download() == want);

  // The same bits as the CPU: every rank sums the ranks' copies in one order.
  const int64_t n = int64_t(want.size()) / 3;
  std::vector<float> sums(static_cast<size_t>(n));
  k::sum_slices(Device::CPU, want.data(), 3, n, sums.data());
  Buffer<float> d_sums(Device::CUDA, size_t(n));
  k::sum_slices(Device::CUDA, d_dst.data(), 3, n, d_sums.data());
  CHECK(d_sums.download() == sums);
}
