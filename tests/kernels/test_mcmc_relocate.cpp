// MCMC's relocation on the device (kernels/mcmc_relocate.h): the CUDA backend against the CPU reference
// on many rows, a tenth of them dead.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <vector>

#include "kernels/buffer.h"
#include "kernels/mcmc_relocate.h"
#include "tests/support/test_support.h"

using splat::kernels::Buffer;
using splat::kernels::Device;
namespace k = splat::kernels;

namespace {

struct Round {
  k::McmcLiving living;
  std::vector<uint64_t> cum;
  std::vector<int32_t> dead, sources, copies, params, moments;
  std::vector<float> logits, log_scales;
};

// A relocation round of the dead rows (append 0) or an appending one, on `device`.
Round round_on(Device device, const std::vector<float>& logits, const std::vector<float>& log_scales, int64_t append) {
  const int64_t n = int64_t(logits.size());
  const float min_opacity = 0.005f;
  Buffer<float> d_logits(device), d_scales(device);
  d_logits.upload(logits);
  d_scales.upload(log_scales);
  Buffer<uint64_t> cum(device, size_t(n));
  Buffer<int32_t> dead(device, size_t(n)), copies(device, size_t(n));
  const k::ComputeContext& where = cum.context();
  Round r;
  r.living = k::mcmc_weigh(where, d_logits.data(), n, min_opacity, cum.data(), dead.data());
  const int64_t m = append > 0 ? append : r.living.dead, rows = append > 0 ? n + m : n;
  Buffer<int32_t> sources(device, size_t(m)), params(device, size_t(rows)), moments(device, size_t(rows));
  k::mcmc_draw_sources(where, cum.data(), n, r.living.total, 0xabcull, m, sources.data(), copies.data());
  k::mcmc_correct_sources(where, copies.data(), n, min_opacity, d_logits.data(), d_scales.data());
  k::mcmc_copy_lists(where, n, append > 0 ? nullptr : dead.data(), sources.data(), m, copies.data(), params.data(),
                     moments.data());
  r.cum = cum.download();
  r.dead = dead.download();
  r.dead.resize(size_t(r.living.dead));
  r.sources = sources.download(), r.copies = copies.download(), r.params = params.download(), r.moments = moments.download();
  r.logits = d_logits.download(), r.log_scales = d_scales.download();
  return r;
}

}  // namespace

TEST_CASE("mcmc relocation: CUDA weights, draws, corrections and copy lists equal the CPU reference",
          "[mcmc_relocate][gpu]") {
  if (!splat::test::gpu_or_skip("CUDA mcmc relocation kernels")) return;
  std::mt19937 rng(12);
  std::uniform_real_distribution<float> u(0.f, 1.f);
  std::vector<float> logits, log_scales;
  for (int i = 0; i < 200000; ++i) {
    const float o = i % 10 == 0 ? 0.004f * u(rng) : 0.006f + 0.99f * u(rng);
    logits.push_back(std::log(o / (1.f - o)));
    for (int c = 0; c < 3; ++c) log_scales.push_back(std::log(0.01f + u(rng)));
  }
  for (const int64_t append : {int64_t(0), int64_t(10000)}) {
    INFO("append " << append);
    const Round cpu = round_on(Device::CPU, logits, log_scales, append);
    const Round gpu = round_on(Device::CUDA, logits, log_scales, append);
    CHECK(gpu.living.dead == cpu.living.dead);
    CHECK(gpu.living.total == cpu.living.total);
    CHECK(cpu.living.dead == 20000);
    CHECK(gpu.cum == cpu.cum);
    CHECK(gpu.dead == cpu.dead);
    CHECK(gpu.sources == cpu.sources);
    CHECK(gpu.copies == cpu.copies);
    CHECK(gpu.params == cpu.params);
    CHECK(gpu.moments == cpu.moments);
    REQUIRE(gpu.logits.size() == cpu.logits.size());
    int differ = 0;
    for (size_t i = 0; i < cpu.logits.size(); ++i) differ += gpu.logits[i] != Approx(cpu.logits[i]).epsilon(1e-6).margin(1e-7);
    for (size_t i = 0; i < cpu.log_scales.size(); ++i)
      differ += gpu.log_scales[i] != Approx(cpu.log_scales[i]).epsilon(1e-6).margin(1e-7);
    CHECK(differ == 0);
  }
}
