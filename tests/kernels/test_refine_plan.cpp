// The device-planned refinement (kernels/refine_plan.h): the CUDA backend against the CPU reference on
// rows drawn on both sides of every rule, with and without a growth room (ties included).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "kernels/buffer.h"
#include "kernels/refine_plan.h"
#include "tests/support/test_support.h"

using splat::kernels::Buffer;
using splat::kernels::Device;
namespace k = splat::kernels;

namespace {

struct Rows {
  std::vector<float> opacity, log_scales, grad, radius, means, quats;
  std::vector<int32_t> visible;
};

Rows random_rows(int64_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(0.f, 1.f);
  Rows r;
  for (int64_t i = 0; i < n; ++i) {
    r.opacity.push_back(std::log(0.001f + 0.02f * u(rng)) - std::log(0.99f));
    const float base = std::log(0.02f) + std::log(100.f) * u(rng);
    for (int c = 0; c < 3; ++c) r.log_scales.push_back(base + std::log(0.5f + 0.5f * u(rng)));
    // Every fifth row shares one gradient: ties for the room.
    r.grad.push_back(i % 5 == 0 ? 5e-4f : 6e-4f * u(rng));
    r.visible.push_back(int32_t(u(rng) * 3));
    r.radius.push_back(0.2f * u(rng));
    for (int c = 0; c < 3; ++c) r.means.push_back(u(rng) - 0.5f);
    const float q[4] = {1.f, u(rng) - 0.5f, u(rng) - 0.5f, u(rng) - 0.5f};
    r.quats.insert(r.quats.end(), q, q + 4);
  }
  return r;
}

k::RefineRule rule(bool check_size) {
  k::RefineRule r;
  r.grad_threshold = 2e-4f;
  r.clone_below = std::log(0.1f);
  r.min_opacity_logit = std::log(0.005f / 0.995f);
  r.max_log_scale = std::log(1.f);
  r.max_radius = 0.15f;
  r.shrink = std::log(1.6f);
  r.check_size = check_size;
  return r;
}

// One whole plan on `where`: codes, places, sources, then the halves drawn into copies of the columns.
struct Plan {
  std::vector<uint8_t> code;
  std::vector<int32_t> at, params, moments;
  k::RefineCounts counts;
  std::vector<float> means, log_scales, opacity;
};

Plan plan_on(Device device, const Rows& rows, const k::RefineRule& r, int64_t room, bool revised_opacity) {
  const int64_t n = int64_t(rows.opacity.size());
  Buffer<float> opacity(device), log_scales(device), grad(device), radius(device), means(device), quats(device);
  Buffer<int32_t> visible(device), at(device, size_t(3 * n));
  Buffer<uint8_t> code(device, size_t(n));
  opacity.upload(rows.opacity), log_scales.upload(rows.log_scales), grad.upload(rows.grad);
  radius.upload(rows.radius), visible.upload(rows.visible), means.upload(rows.means), quats.upload(rows.quats);
  const k::ComputeContext& where = code.context();
  k::refine_codes(where, {opacity.data(), log_scales.data(), grad.data(), visible.data(), r.check_size ? radius.data() : nullptr, n},
                  r, room, code.data());
  Plan p;
  p.counts = k::refine_places(where, code.data(), n, at.data());
  Buffer<int32_t> params(device, size_t(p.counts.rows())), moments(device, size_t(p.counts.rows()));
  k::refine_sources(where, code.data(), at.data(), n, p.counts, params.data(), moments.data());
  // The halves are drawn in place over rows that hold their parents: the columns gathered from the
  // sources (on the host here; DeviceGaussians does it on the device).
  const std::vector<int32_t> src = params.download();
  std::vector<float> m(size_t(3 * p.counts.rows())), l(m.size()), q(size_t(4 * p.counts.rows()));
  std::vector<float> o(size_t(p.counts.rows()));
  for (size_t i = 0; i < src.size(); ++i) {
    o[i] = rows.opacity[size_t(src[i])];
    for (int c = 0; c < 4; ++c) {
      if (c < 3) m[3 * i + c] = rows.means[3 * size_t(src[i]) + c], l[3 * i + c] = rows.log_scales[3 * size_t(src[i]) + c];
      q[4 * i + c] = rows.quats[4 * size_t(src[i]) + c];
    }
  }
  Buffer<float> new_means(device), new_log_scales(device), new_quats(device), new_opacity(device);
  new_means.upload(m), new_log_scales.upload(l), new_quats.upload(q), new_opacity.upload(o);
  k::refine_grown_rows(where, code.data(), at.data(), n, p.counts,
                       {new_means.data(), new_quats.data(), new_log_scales.data(), new_opacity.data(), r.shrink,
                        0x5eedull, 1000, revised_opacity});
  p.code = code.download(), p.at = at.download(), p.params = src, p.moments = moments.download();
  p.means = new_means.download(), p.log_scales = new_log_scales.download(), p.opacity = new_opacity.download();
  return p;
}

}  // namespace

TEST_CASE("refinement plan: CUDA codes, places, sources and grown rows equal the CPU reference",
          "[refine_plan][gpu]") {
  if (!splat::test::gpu_or_skip("CUDA refinement plan")) return;
  const Rows rows = random_rows(20000, 4);
  for (const bool check_size : {false, true})
    for (const int64_t room : {int64_t(-1), int64_t(0), int64_t(700), int64_t(1000000)}) {
      const bool revised = room != 0;
      INFO("check_size " << check_size << " room " << room << " revised opacity " << revised);
      const Plan cpu = plan_on(Device::CPU, rows, rule(check_size), room, revised);
      const Plan gpu = plan_on(Device::CUDA, rows, rule(check_size), room, revised);
      CHECK(gpu.code == cpu.code);
      CHECK(gpu.at == cpu.at);
      CHECK(gpu.counts.kept_old == cpu.counts.kept_old);
      CHECK(gpu.counts.kept_clones == cpu.counts.kept_clones);
      CHECK(gpu.counts.kept_seconds == cpu.counts.kept_seconds);
      CHECK(gpu.params == cpu.params);
      CHECK(gpu.moments == cpu.moments);
      REQUIRE(gpu.means.size() == cpu.means.size());
      for (size_t i = 0; i < cpu.means.size(); ++i) CHECK(gpu.means[i] == Approx(cpu.means[i]).margin(1e-6));
      CHECK(gpu.log_scales == cpu.log_scales);
      REQUIRE(gpu.opacity.size() == cpu.opacity.size());
      for (size_t i = 0; i < cpu.opacity.size(); ++i) CHECK(gpu.opacity[i] == Approx(cpu.opacity[i]).margin(1e-6));
      if (room == 700) CHECK(cpu.counts.kept_clones + cpu.counts.kept_seconds <= 700);
      if (room < 0) CHECK(cpu.counts.kept_clones > 100);  // the draw exercises every kind of row
    }
}

TEST_CASE("refinement plan: a growth room takes the largest gradients, ties to the lower row", "[refine_plan]") {
  const Rows rows = random_rows(5000, 9);
  const k::RefineRule r = rule(false);
  std::vector<uint8_t> all(rows.opacity.size()), some(rows.opacity.size());
  const k::RefineColumns in{rows.opacity.data(), rows.log_scales.data(), rows.grad.data(), rows.visible.data(), nullptr,
                            int64_t(rows.opacity.size())};
  k::refine_codes_reference(in, r, -1, all.data());
  k::refine_codes_reference(in, r, 300, some.data());
  std::vector<std::pair<float, int64_t>> candidates;  // (-gradient, row): sorted ascending = the room's order
  for (size_t i = 0; i < all.size(); ++i)
    if (all[i] & k::kRefineGrow) candidates.push_back({-k::refine_mean_grad(rows.grad[i], rows.visible[i], 1.f), int64_t(i)});
  REQUIRE(candidates.size() > 300);
  std::sort(candidates.begin(), candidates.end());
  std::vector<uint8_t> want(all.size(), 0);
  for (size_t j = 0; j < 300; ++j) want[size_t(candidates[j].second)] = 1;
  for (size_t i = 0; i < all.size(); ++i) {
    INFO("row " << i);
    CHECK(bool(some[i] & k::kRefineGrow) == bool(want[i]));
    if (!want[i]) CHECK((some[i] & ~k::kRefineKeepOld) == 0);  // not growing: only its own place
  }
}

TEST_CASE("refinement plan: a revised opacity lets through, twice, what the parent did", "[refine_plan]") {
  std::vector<double> xs;
  for (int i = -400; i <= 400; ++i) xs.push_back(0.1 * i);  // opacities from 4e-18 to 1 - 4e-18
  for (double x : xs) {
    INFO("logit " << x);
    const double y = k::revised_opacity_logit(float(x));
    // 1 - (1 - a')^2 = a, in the transmittances: (1 - a')^2 = 1 - a, i.e. 2 log(1 + e^y) = log(1 + e^x).
    CHECK(2.0 * std::log1p(std::exp(y)) == Approx(std::log1p(std::exp(double(float(x))))).epsilon(2e-6).margin(1e-12));
    CHECK(y < double(float(x)));  // each copy is more transparent than the parent
  }
  // The far ends, where the closed form would lose its digits: about x - log 2 and x / 2.
  CHECK(k::revised_opacity_logit(-60.f) == Approx(-60.0 - std::log(2.0)).epsilon(1e-6));
  CHECK(k::revised_opacity_logit(80.f) == Approx(40.0).epsilon(1e-6));
  CHECK(k::revised_opacity_logit(1e30f) == Approx(5e29).epsilon(1e-6));
  CHECK(std::isfinite(k::revised_opacity_logit(-1e30f)));
}
