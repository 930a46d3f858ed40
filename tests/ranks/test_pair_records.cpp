// The exchange's records (core/train/sharded/pair_records.h): a projected pair packs into 64 bytes and its
// gradients into 48, and unpacking gives back every column, on the CPU and on CUDA alike.
#include <catch2/catch.hpp>

#include <cstring>
#include <random>
#include <vector>

#include "core/train/sharded/pair_records.h"
#include "kernels/buffer.h"
#include "tests/support/test_support.h"

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

// Packs the pairs on `where`, unpacks them there into received columns and checks every column
// against the input; returns the records.
std::vector<uint32_t> round_trip(const ComputeContext& where, const HostPairs& h) {
  const PairsOn pairs(where, h);
  const auto sources = pair_record<const uint32_t>(pairs.view());
  Buffer<uint32_t> records(where, size_t(pairs.n * sources.record_words));
  kernels::pack_records(where, sources, pairs.n, records.data());
  ReceivedPairs received(where);
  received.resize(pairs.n);
  kernels::unpack_records(where, records.data(), pairs.n, pair_record<uint32_t>(received.columns()));
  const kernels::ProjectedGaussians v = received.view();
  const size_t m = size_t(pairs.n);
  CHECK(v.count == pairs.n);
  CHECK(download(where, v.camera, m) == h.camera);
  CHECK(download(where, v.id, m) == h.id);
  CHECK(download(where, v.mean2d, 2 * m) == h.mean2d);
  CHECK(download(where, v.conic_opacity, 4 * m) == h.conic_opacity);
  CHECK(download(where, v.color_depth, 4 * m) == h.color_depth);
  CHECK(download(where, v.half, 2 * m) == h.half);
  CHECK(download(where, v.tiles, m) == h.tiles);
  return records.download();
}

}  // namespace

TEST_CASE("a projected pair is one 64-byte record and its gradients one 48-byte record", "[dist][pair_records]") {
  CHECK(pair_record<const uint32_t>(kernels::ProjectedGaussians{}).record_words * 4 == 64);
  CHECK(gradient_record<const uint32_t>(kernels::ConstProjectedGrads{}).record_words * 4 == 48);
  CHECK(gradient_record<const uint32_t>(kernels::ConstProjectedGrads{}).record_words == kernels::kProjectedGradFloats);
  const HostPairs h(37, 1);
  const std::vector<uint32_t> records = round_trip(Device::CPU, h);
  // Pair 5's record starts with its conic and opacity, as the exchange's receivers expect.
  float conic[4];
  std::memcpy(conic, &records[5 * 16], sizeof conic);
  CHECK(std::vector<float>(conic, conic + 4) == std::vector<float>(h.conic_opacity.begin() + 20, h.conic_opacity.begin() + 24));
}

TEST_CASE("gradient records unpack into the three gradient arrays", "[dist][pair_records]") {
  const int64_t n = 29;
  std::vector<float> d(size_t(12 * n));
  for (size_t i = 0; i < d.size(); ++i) d[i] = float(i) * 0.5f - 7.f;
  const float* p = d.data();
  const auto sources = gradient_record<const uint32_t>(kernels::ConstProjectedGrads{p, p + 4 * n, p + 8 * n});
  std::vector<uint32_t> records(size_t(n * sources.record_words));
  kernels::pack_records(Device::CPU, sources, n, records.data());
  std::vector<float> back(d.size(), 0.f);
  float* q = back.data();
  kernels::unpack_records(Device::CPU, records.data(), n, gradient_record<uint32_t>(kernels::ProjectedGrads{q, q + 4 * n, q + 8 * n}));
  CHECK(back == d);
}

TEST_CASE("CUDA pair records equal the CPU's and unpack to the same columns", "[gpu][dist][pair_records]") {
  if (!test::gpu_or_skip("CUDA pair records")) return;
  const HostPairs h(50001, 2);
  CHECK(round_trip(Device::CUDA, h) == round_trip(Device::CPU, h));
}
