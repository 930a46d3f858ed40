// The exchange's columns (core/train/sharded/exchange_columns.h): a projected pair is 64 bytes and its
// gradients 48, and copying the listed columns row by row gives back every column of the pairs.
#include <catch2/catch.hpp>

#include <cstddef>
#include <random>
#include <vector>

#include "core/train/sharded/exchange_columns.h"
#include "kernels/buffer.h"

using namespace splat;
using namespace splat::sharded;
using kernels::Buffer;
using kernels::ComputeContext;
using kernels::Device;

namespace {

// Random projected pairs' columns, on the host.
struct HostPairs {
  std::vector<int32_t> camera, half, tiles;
  std::vector<int64_t> id;
  std::vector<float> mean2d, conic_opacity, color_depth;
  explicit HostPairs(int64_t n, unsigned seed) {
    std::mt19937_64 gen(seed);
    std::normal_distribution<float> normal;
    const size_t m = size_t(n);
    for (size_t i = 0; i < m; ++i) camera.push_back(int32_t(i * 5 / m)), tiles.push_back(int32_t(gen() % 90));
    for (size_t i = 0; i < 2 * m; ++i) half.push_back(int32_t(gen() % 40)), mean2d.push_back(100 * normal(gen));
    for (size_t i = 0; i < m; ++i) id.push_back(int64_t(gen() >> 20));
    for (size_t i = 0; i < 4 * m; ++i) conic_opacity.push_back(normal(gen)), color_depth.push_back(normal(gen));
  }
};

// The same columns on a context, seen as the project stage's output.
struct PairsOn {
  int64_t n;
  Buffer<int32_t> camera, half, tiles;
  Buffer<int64_t> id;
  Buffer<float> mean2d, conic_opacity, color_depth;
  PairsOn(const ComputeContext& where, const HostPairs& h)
      : n(int64_t(h.camera.size())), camera(where), half(where), tiles(where), id(where), mean2d(where),
        conic_opacity(where), color_depth(where) {
    camera.upload(h.camera), half.upload(h.half), tiles.upload(h.tiles), id.upload(h.id);
    mean2d.upload(h.mean2d), conic_opacity.upload(h.conic_opacity), color_depth.upload(h.color_depth);
  }
  kernels::ProjectedGaussians view() const {
    return {n, camera.data(), id.data(), mean2d.data(), conic_opacity.data(), color_depth.data(),
            half.data(), tiles.data()};
  }
};

template <class T>
std::vector<T> download(const ComputeContext& where, const T* p, size_t n) {
  std::vector<T> h(n);
  if (n) kernels::copy_bytes(h.data(), Device::CPU, p, where, n * sizeof(T));
  return h;
}

// Copies rows [first, first + rows) of every listed column to the same rows of its target.
void copy_rows(const ComputeContext& where, const std::vector<ExchangeColumn>& columns, int64_t first, int64_t rows) {
  for (const ExchangeColumn& c : columns)
    kernels::copy_bytes(static_cast<std::byte*>(c.to) + first * c.row_bytes, where,
                        static_cast<const std::byte*>(c.from) + first * c.row_bytes, where, size_t(rows * c.row_bytes));
}

}  // namespace

TEST_CASE("the exchange's columns: 48 bytes a pair, 48 of gradients, every column the rasterizer reads", "[dist][exchange]") {
  CHECK(row_bytes(pair_columns({}, {})) == 48);
  CHECK(row_bytes(gradient_columns({}, {})) == 48);
  CHECK(row_bytes(gradient_columns({}, {})) == 4 * kernels::kProjectedGradFloats);
  // Moving the listed columns in two runs of rows, as the exchange does with two peers, rebuilds
  // every column of the pairs: none is missing or of the wrong width.
  const HostPairs h(37, 1);
  const ComputeContext where(Device::CPU);
  const PairsOn pairs(where, h);
  ReceivedPairs received(where);
  received.resize(pairs.n);
  const std::vector<ExchangeColumn> columns = pair_columns(pairs.view(), received.columns());
  copy_rows(where, columns, 0, 20);
  copy_rows(where, columns, 20, pairs.n - 20);
  const kernels::ProjectedGaussians v = received.view();
  const size_t m = size_t(pairs.n);
  CHECK(v.count == pairs.n);
  CHECK(download(where, v.camera, m) == h.camera);
  CHECK(download(where, v.mean2d, 2 * m) == h.mean2d);
  CHECK(download(where, v.conic_opacity, 4 * m) == h.conic_opacity);
  CHECK(download(where, v.color_depth, 4 * m) == h.color_depth);
  CHECK(v.half == nullptr);  // the screen box stays with the projecting rank
  CHECK(v.id == nullptr);    // the rasterize stage reads no id: the order within a camera is enough
  CHECK(download(where, v.tiles, m) == h.tiles);
}

TEST_CASE("a pair destination names row r of every pair column where the slice begins", "[dist][exchange]") {
  const ComputeContext where(Device::CPU);
  ReceivedPairs received(where);
  received.resize(40);
  const ReceivedPairs::Columns to = received.columns();
  const std::vector<ExchangeColumn> columns = pair_columns({}, to);
  // A slice beginning 5 rows into the receiver's columns, and a camera 11 rows into the slice.
  std::vector<void*> starts;
  for (const ExchangeColumn& c : columns) starts.push_back(static_cast<std::byte*>(c.to) + 5 * c.row_bytes);
  const kernels::PairDestination d = pair_destination(starts, 11);
  CHECK(d.mean2d == to.mean2d + 2 * 16);
  CHECK(d.conic_opacity == to.conic_opacity + 4 * 16);
  CHECK(d.color_depth == to.color_depth + 4 * 16);
  CHECK(d.camera == to.camera + 16);
  CHECK(d.tiles == to.tiles + 16);
}

TEST_CASE("a gradient source names row r of the three gradient arrays where the slice begins", "[dist][exchange]") {
  const int64_t n = 40;
  std::vector<float> d(size_t(12 * n));
  const float* p = d.data();
  const std::vector<ExchangeColumn> columns = gradient_columns({p, p + 4 * n, p + 8 * n}, {});
  // A slice beginning 5 rows into the renderer's arrays, and a camera 11 rows into the slice.
  std::vector<const void*> starts;
  for (const ExchangeColumn& c : columns) starts.push_back(static_cast<const std::byte*>(c.from) + 5 * c.row_bytes);
  const kernels::ConstProjectedGrads g = gradient_source(starts, 11);
  CHECK(g.mean2d == p + 4 * 16);
  CHECK(g.conic_opacity == p + 4 * n + 4 * 16);
  CHECK(g.color_depth == p + 8 * n + 4 * 16);
}

TEST_CASE("the gradient columns are the three gradient arrays", "[dist][exchange]") {
  const int64_t n = 29;
  std::vector<float> d(size_t(12 * n));
  for (size_t i = 0; i < d.size(); ++i) d[i] = float(i) * 0.5f - 7.f;
  std::vector<float> back(d.size(), 0.f);
  const float* p = d.data();
  float* q = back.data();
  copy_rows(Device::CPU, gradient_columns({p, p + 4 * n, p + 8 * n}, {q, q + 4 * n, q + 8 * n}), 0, n);
  CHECK(back == d);
}
