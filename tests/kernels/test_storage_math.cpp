// The storage conversions (kernels/storage_math.h): bf16 bits, stochastic rounding, and
// why Adam rounds bf16 storage stochastically (to nearest, small updates are lost).
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "kernels/adam.h"
#include "kernels/storage_math.h"

using namespace splat;
using namespace splat::kernels;

TEST_CASE("storage math: bf16 stochastic rounding is unbiased and stays between neighbours", "[storage]") {
  // Each field of an element's draw that Adam uses (parameter, first and second moment) rounds without bias.
  const auto field = [](const ElementRoundingBits& r, int f) {
    return f == 0 ? r.param : f == 1 ? r.exp_avg : r.exp_avg_sq;
  };
  for (int f : {0, 1, 2})
    for (float v : {0.1f, -0.7311f, 3.3e-7f, 1234.567f}) {
      const uint16_t down = uint16_t(float_bits(v) >> 16), up = uint16_t(down + 1);  // truncation and the next
      double sum = 0;
      const int n = 200000;
      for (int i = 0; i < n; ++i) {
        const uint16_t r = bf16_stochastic(v, field(element_rounding_bits(7, 0, i), f));
        REQUIRE((r == down || r == up));
        sum += bf16_to_float(r);
      }
      const double spacing = std::abs(double(bf16_to_float(up)) - bf16_to_float(down));
      INFO("field " << f << ", value " << v);
      CHECK(std::abs(sum / n - double(v)) < 0.01 * spacing);  // a 1 % bias would show (sampling error ~0.1 %)
    }
  // The fields of one draw are uncorrelated: the parameter's and a moment's rounding directions agree
  // about half the time (correlated fields would round them together and bias the step they make), and
  // so do one element's draws in consecutive steps (seeds).
  int agree = 0, agree_steps = 0;
  const int n = 200000;
  for (int i = 0; i < n; ++i) {
    const ElementRoundingBits r = element_rounding_bits(9, 0, i), next = element_rounding_bits(10, 0, i);
    agree += (r.param < 0x8000u) == (r.exp_avg < 0x8000u);
    agree += (r.param < 0x8000u) == (r.exp_avg_sq < 0x8000u);
    agree_steps += (r.param < 0x8000u) == (next.param < 0x8000u);
  }
  CHECK(std::abs(double(agree) / (2 * n) - 0.5) < 0.01);
  CHECK(std::abs(double(agree_steps) / n - 0.5) < 0.01);
  CHECK(bf16_stochastic(std::numeric_limits<float>::infinity(), 0xffff) == 0x7f80);
  CHECK(std::isnan(bf16_to_float(bf16_stochastic(std::numeric_limits<float>::quiet_NaN(), 0))));
}

// A SH rest coefficient of 0.1 under a steady gradient: Adam steps of its learning rate (1.25e-4)
// are less than half the bf16 spacing there (4.9e-4). Stored to nearest after each step, the value
// never moves; stored stochastically (what the trainer's Adam does), it follows the fp32 run.
TEST_CASE("storage math: Adam on bf16 storage needs stochastic rounding", "[storage][adam]") {
  const int n = 256, steps = 400;
  AdamHyperParams h;
  h.lr = 1.25e-4f;
  const std::vector<float> grads(n, 1e-3f);
  std::vector<float> p32(n, 0.1f), m32(n, 0.f), v32(n, 0.f);
  std::vector<float> pnear(n, bf16_to_float(bf16_nearest(0.1f))), mnear(n, 0.f), vnear(n, 0.f);
  std::vector<uint16_t> pb(n, bf16_nearest(0.1f)), mb(n, 0), vb(n, 0);
  for (int t = 1; t <= steps; ++t) {
    adam_step_reference<float>(p32.data(), grads.data(), m32.data(), v32.data(), n, h, t);
    adam_step_reference<float>(pnear.data(), grads.data(), mnear.data(), vnear.data(), n, h, t);
    for (float& x : pnear) x = bf16_to_float(bf16_nearest(x));
    AdamGroup g{{nullptr, pb.data(), Precision::BF16}, grads.data(), {nullptr, mb.data(), Precision::BF16},
                {nullptr, vb.data(), Precision::BF16}, n, h, uint64_t(t) * 3};
    adam_step_stored_reference(g, t);
  }
  double moved32 = 0, moved_near = 0, moved_sr = 0;
  for (int i = 0; i < n; ++i) {
    moved32 += 0.1 - p32[i];
    moved_near += double(bf16_to_float(bf16_nearest(0.1f))) - pnear[i];
    moved_sr += double(bf16_to_float(bf16_nearest(0.1f))) - bf16_to_float(pb[i]);
  }
  moved32 /= n, moved_near /= n, moved_sr /= n;
  INFO("fp32 moved " << moved32 << ", bf16 nearest " << moved_near << ", bf16 stochastic " << moved_sr);
  CHECK(moved32 == Approx(steps * 1.25e-4).epsilon(0.05));
  CHECK(moved_near == 0.0);                              // every update rounded away
  CHECK(moved_sr == Approx(moved32).epsilon(0.05));      // follows fp32 on average
}

// A distributed run steps each shard on its own rank: `first` (the shard's offset in the whole
// model's array) makes an element draw the bits it draws in one pass over the whole array, so the
// shards round bit for bit as the whole model does; without the offset they would not.
TEST_CASE("storage math: stochastic rounding of a piece at its offset equals that of the whole array",
          "[storage][adam]") {
  const int n = 300, cut = 113;
  AdamHyperParams h;
  h.lr = 1e-3f;
  std::vector<float> grads(n);
  for (int i = 0; i < n; ++i) grads[size_t(i)] = 1e-3f * float((i * 37) % 23 - 11);
  auto run = [&](bool pieces, bool offsets) {
    std::vector<uint16_t> p(n, bf16_nearest(0.3f)), m(n, 0), v(n, 0);
    for (int t = 1; t <= 3; ++t) {
      auto step = [&](int at, int count) {
        AdamGroup g{{nullptr, p.data() + at, Precision::BF16}, grads.data() + at,
                    {nullptr, m.data() + at, Precision::BF16}, {nullptr, v.data() + at, Precision::BF16},
                    count, h, uint64_t(t) * 3, offsets ? at : 0};
        adam_step_stored_reference(g, t);
      };
      if (pieces) step(0, cut), step(cut, n - cut);
      else step(0, n);
    }
    p.insert(p.end(), m.begin(), m.end());
    p.insert(p.end(), v.begin(), v.end());
    return p;
  };
  const std::vector<uint16_t> whole = run(false, false);
  CHECK(run(true, true) == whole);
  CHECK(run(true, false) != whole);  // the offset is what makes them agree
}

// Mixed precision stores the SH rest gradients in bf16 (summed in fp32, stored once): Adam must read
// them as the values they encode, in every storage layout it steps.
TEST_CASE("storage math: Adam reads bf16 gradients as the fp32 values they encode", "[storage][adam]") {
  const int n = 37;
  AdamHyperParams h;
  h.lr = 1e-3f;
  std::vector<uint16_t> g16(n);
  std::vector<float> g32(n);
  for (int i = 0; i < n; ++i) {
    g16[size_t(i)] = bf16_nearest(1e-3f * float((i * 29) % 17 - 8) + 1e-6f * float(i));
    g32[size_t(i)] = bf16_to_float(g16[size_t(i)]);
  }
  for (const bool narrow_storage : {false, true}) {
    INFO("bf16 parameters and moments: " << narrow_storage);
    auto run = [&](const GradArray& grads) {
      std::vector<uint16_t> p(n, bf16_nearest(0.3f)), m(n, 0), v(n, 0);
      std::vector<float> pf(n, 0.3f), mf(n, 0.f), vf(n, 0.f);
      for (int t = 1; t <= 3; ++t) {
        AdamGroup g;
        g.params = narrow_storage ? StoredArray{nullptr, p.data(), Precision::BF16} : fp32_array(pf.data());
        g.exp_avg = narrow_storage ? StoredArray{nullptr, m.data(), Precision::BF16} : fp32_array(mf.data());
        g.exp_avg_sq = narrow_storage ? StoredArray{nullptr, v.data(), Precision::BF16} : fp32_array(vf.data());
        g.grads = grads;
        g.n = n;
        g.h = h;
        g.seed = uint64_t(t);
        adam_step_groups(Device::CPU, std::span<const AdamGroup>(&g, 1), t);
      }
      std::vector<float> out(pf);
      for (const auto* a : {&p, &m, &v})
        for (uint16_t b : *a) out.push_back(bf16_to_float(b));
      out.insert(out.end(), mf.begin(), mf.end());
      out.insert(out.end(), vf.begin(), vf.end());
      return out;
    };
    const std::vector<float> from32 = run(GradArray(g32.data())), from16 = run(GradArray::narrow(g16.data()));
    CHECK(from16 == from32);
    CHECK(from16 != run(GradArray(std::vector<float>(n, 0.f).data())));  // the gradients were read
  }
  AdamGroup none;
  none.n = 1;
  std::vector<float> x(1);
  none.params = none.exp_avg = none.exp_avg_sq = fp32_array(x.data());
  CHECK_THROWS_WITH(adam_step_groups(Device::CPU, std::span<const AdamGroup>(&none, 1), 1),
                    Catch::Contains("gradient array"));
}
