// CPU reference of the fused Adam step against a hand-computed update, and the sqrt(B)
// batch rule.
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "kernels/adam.h"

using namespace splat::kernels;

TEST_CASE("Adam reference reproduces a hand-computed two-step update", "[adam]") {
  AdamHyperParams h;
  h.lr = 0.125f, h.beta1 = 0.5f, h.beta2 = 0.75f, h.eps = 0.125f;  // exact in binary
  // Element 0 sees gradients 0.5 then 1; element 1 sees zeros and must not move.
  std::vector<double> p{1.0, -2.0}, m{0, 0}, v{0, 0};
  const std::vector<double> g1{0.5, 0}, g2{1.0, 0};

  adam_step_reference<double>(p.data(), g1.data(), m.data(), v.data(), 2, h, 1);
  // m = 0.5*0.5 = 0.25, v = 0.25*0.25 = 0.0625; m_hat = 0.25/0.5 = 0.5, v_hat = 0.0625/0.25 = 0.25
  // p = 1 - 0.125 * 0.5 / (0.5 + 0.125) = 1 - 0.1 = 0.9
  CHECK(m[0] == Approx(0.25).epsilon(1e-15));
  CHECK(v[0] == Approx(0.0625).epsilon(1e-15));
  CHECK(p[0] == Approx(0.9).epsilon(1e-14));

  adam_step_reference<double>(p.data(), g2.data(), m.data(), v.data(), 2, h, 2);
  // m = 0.125 + 0.5 = 0.625, v = 0.046875 + 0.25 = 0.296875;
  // bias corrections 1 - 0.5^2 = 0.75 and 1 - 0.75^2 = 0.4375: m_hat = 5/6, v_hat = 19/28,
  // p = 0.9 - 0.125 * (5/6) / (sqrt(19/28) + 0.125) = 0.9 - 0.1097930706 = 0.7902069294.
  CHECK(m[0] == Approx(0.625).epsilon(1e-15));
  CHECK(v[0] == Approx(0.296875).epsilon(1e-15));
  CHECK(p[0] == Approx(0.7902069294).epsilon(1e-10));
  CHECK(p[1] == -2.0);
  CHECK(m[1] == 0.0);
  CHECK(v[1] == 0.0);
}

TEST_CASE("Adam reference with PyTorch-default betas, two steps by hand", "[adam]") {
  AdamHyperParams h;
  h.lr = 0.1f, h.beta1 = 0.9f, h.beta2 = 0.999f, h.eps = 1e-8f;
  double p = 1.0, m = 0, v = 0;
  const double g1 = 0.5, g2 = -0.25;
  adam_step_reference<double>(&p, &g1, &m, &v, 1, h, 1);
  // m = 0.05, v = 0.00025, m_hat = 0.5, v_hat = 0.25: p = 1 - 0.1*0.5/(0.5 + 1e-8) = 0.900000002
  CHECK(p == Approx(0.900000002).epsilon(1e-8));
  adam_step_reference<double>(&p, &g2, &m, &v, 1, h, 2);
  // m = 0.045 - 0.025 = 0.02, v = 0.00024975 + 0.0000625 = 0.00031225,
  // m_hat = 0.02/0.19 = 0.105263158, v_hat = 0.00031225/0.001999 = 0.156203102, sqrt = 0.395225381,
  // p = 0.900000002 - 0.1*0.105263158/0.395225381 = 0.873366299.
  // The hyper-parameters are floats (0.999f is 0.999 - 2.4e-8, so 1 - beta2 is off by 2.4e-5
  // relative): the tolerances allow for that and nothing more.
  CHECK(m == Approx(0.02).epsilon(1e-6));
  CHECK(v == Approx(0.00031225).epsilon(1e-4));
  CHECK(p == Approx(0.873366299).epsilon(1e-7));
}

TEST_CASE("float and double Adam references agree over many steps", "[adam]") {
  AdamHyperParams h;
  h.lr = 0.01f;
  std::vector<float> pf{0.3f, -1.f, 2.f}, mf(3), vf(3);
  std::vector<double> pd{0.3, -1.0, 2.0}, md(3), vd(3);
  for (int t = 1; t <= 50; ++t) {
    std::vector<float> gf(3);
    std::vector<double> gd(3);
    for (int i = 0; i < 3; ++i) gd[i] = std::sin(0.7 * t + i), gf[i] = float(gd[i]);
    adam_step_reference<float>(pf.data(), gf.data(), mf.data(), vf.data(), 3, h, t);
    adam_step_reference<double>(pd.data(), gd.data(), md.data(), vd.data(), 3, h, t);
  }
  for (int i = 0; i < 3; ++i) CHECK(pf[i] == Approx(pd[i]).epsilon(1e-5));
}

TEST_CASE("sqrt(B) batch rule maps the hyper-parameters", "[adam]") {
  AdamHyperParams base;
  base.lr = 1.6e-4f, base.beta1 = 0.9f, base.beta2 = 0.999f, base.eps = 1e-15f;
  const AdamHyperParams same = scale_for_batch(base, 1);
  CHECK(same.lr == base.lr);
  CHECK(same.beta1 == base.beta1);
  CHECK(same.beta2 == base.beta2);
  CHECK(same.eps == base.eps);
  const AdamHyperParams b4 = scale_for_batch(base, 4);
  CHECK(b4.lr == Approx(3.2e-4).epsilon(1e-6));
  CHECK(b4.eps == Approx(0.5e-15).epsilon(1e-6));
  CHECK(b4.beta1 == Approx(0.6561).epsilon(1e-6));        // 0.9^4
  CHECK(b4.beta2 == Approx(0.996005996).epsilon(1e-6));   // 0.999^4
  CHECK_THROWS_WITH(scale_for_batch(base, 0), Catch::Contains("batch size"));
}

TEST_CASE("Adam rejects a step count below 1 and out-of-range betas", "[adam]") {
  AdamHyperParams h;
  h.lr = 0.1f;
  float p = 0, g = 0, m = 0, v = 0;
  CHECK_THROWS_WITH(adam_step(Device::CPU, &p, &g, &m, &v, 1, h, 0), Catch::Contains("step count"));
  h.beta2 = 1.f;
  CHECK_THROWS_WITH(adam_step(Device::CPU, &p, &g, &m, &v, 1, h, 1), Catch::Contains("beta2"));
}

TEST_CASE("multi-group Adam checks every group before updating any", "[adam]") {
  AdamHyperParams good, bad;
  good.lr = 0.1f;
  bad.lr = 0.1f;
  bad.beta1 = 1.5f;
  float p1 = 1, g1 = 0.5f, m1 = 0, v1 = 0, p2 = 1, g2 = 0.5f, m2 = 0, v2 = 0;
  const AdamGroup groups[2] = {{fp32_array(&p1), &g1, fp32_array(&m1), fp32_array(&v1), 1, good},
                                {fp32_array(&p2), &g2, fp32_array(&m2), fp32_array(&v2), 1, bad}};
  CHECK_THROWS_WITH(adam_step_groups(Device::CPU, groups, 1), Catch::Contains("beta1"));
  CHECK(p1 == 1.f);  // the valid first group was left alone too
  // Without the bad group, the first moves as a single-group step would move it.
  adam_step_groups(Device::CPU, std::span<const AdamGroup>(groups, 1), 1);
  float q = 1, n = 0.5f, mq = 0, vq = 0;
  adam_step_reference<float>(&q, &n, &mq, &vq, 1, good, 1);
  CHECK(p1 == q);
  CHECK(p1 != 1.f);
}

// Sparse Adam (AdamGroup::skip_zero_grads): after dense steps have filled the moments, a step whose
// gradient is zero on some elements (whole rows of three, as an unseen Gaussian's, and single ones)
// leaves those elements' value and moments exactly as they were, and moves every other element as
// a dense step does; in fp32 and in mixed precision's bf16 storage.
TEST_CASE("sparse Adam leaves elements of zero gradient alone and steps the others like dense Adam",
          "[adam][sparse]") {
  const int64_t n = 96;
  AdamHyperParams h;
  h.lr = 1e-2f;
  std::vector<float> g(n), p(n), m(n, 0.f), v(n, 0.f);
  for (int64_t i = 0; i < n; ++i) p[size_t(i)] = 0.1f * float(i % 7) - 0.3f;
  for (int step = 1; step <= 3; ++step) {
    for (int64_t i = 0; i < n; ++i) g[size_t(i)] = 0.01f * float((i * 13 + step * 5) % 11) - 0.05f + 1e-4f;
    adam_step_reference<float>(p.data(), g.data(), m.data(), v.data(), n, h, step);
  }
  std::vector<bool> zero(size_t(n), false);
  for (int64_t i = 0; i < n; ++i) zero[size_t(i)] = (i / 3) % 4 == 1 || i % 17 == 0;
  for (int64_t i = 0; i < n; ++i) g[size_t(i)] = zero[size_t(i)] ? 0.f : 0.02f * float(i % 5) - 0.03f + 1e-4f;

  SECTION("fp32") {
    std::vector<float> sp = p, sm = m, sv = v, dp = p, dm = m, dv = v;
    adam_step_reference<float>(sp.data(), g.data(), sm.data(), sv.data(), n, h, 4, /*skip_zero_grads=*/true);
    adam_step_reference<float>(dp.data(), g.data(), dm.data(), dv.data(), n, h, 4);
    int kept = 0;
    for (int64_t i = 0; i < n; ++i) {
      const size_t k = size_t(i);
      INFO("element " << i);
      if (zero[k]) {
        CHECK(sp[k] == p[k]);
        CHECK(sm[k] == m[k]);
        CHECK(sv[k] == v[k]);
        CHECK(dp[k] != p[k]);  // dense Adam does move it: the moments carry it on
        ++kept;
      } else {
        CHECK(sp[k] == dp[k]);
        CHECK(sm[k] == dm[k]);
        CHECK(sv[k] == dv[k]);
      }
    }
    CHECK(kept > 20);
  }
  SECTION("bf16 storage, through the group entry point") {
    std::vector<uint16_t> p16, m16, v16, g16;
    for (int64_t i = 0; i < n; ++i) {
      p16.push_back(bf16_nearest(p[size_t(i)]));
      m16.push_back(bf16_nearest(m[size_t(i)]));
      v16.push_back(bf16_nearest(v[size_t(i)]));
      g16.push_back(bf16_nearest(g[size_t(i)]));
    }
    auto group = [&](std::vector<uint16_t>& pp, std::vector<uint16_t>& mm, std::vector<uint16_t>& vv, bool sparse) {
      AdamGroup a{{nullptr, pp.data(), splat::Precision::BF16}, GradArray::narrow(g16.data()),
                  {nullptr, mm.data(), splat::Precision::BF16}, {nullptr, vv.data(), splat::Precision::BF16},
                  n, h, /*seed=*/9};
      a.skip_zero_grads = sparse;
      return a;
    };
    std::vector<uint16_t> sp = p16, sm = m16, sv = v16, dp = p16, dm = m16, dv = v16;
    const AdamGroup sparse = group(sp, sm, sv, true), dense = group(dp, dm, dv, false);
    adam_step_groups(Device::CPU, std::span<const AdamGroup>(&sparse, 1), 4);
    adam_step_groups(Device::CPU, std::span<const AdamGroup>(&dense, 1), 4);
    for (int64_t i = 0; i < n; ++i) {
      const size_t k = size_t(i);
      INFO("element " << i);
      if (zero[k]) {
        CHECK(sp[k] == p16[k]);
        CHECK(sm[k] == m16[k]);
        CHECK(sv[k] == v16[k]);
      } else {
        CHECK(sp[k] == dp[k]);
        CHECK(sm[k] == dm[k]);
        CHECK(sv[k] == dv[k]);
      }
    }
  }
}

TEST_CASE("Adam takes an unreached row's gradients as zeros without reading them", "[adam][reached]") {
  // A backward call given the rows reached stores only theirs (kernels/reached_rows.h): the other rows'
  // gradient values are whatever the arrays held, here NaN, which must not reach the update.
  const float nan = std::nanf("");
  AdamHyperParams h;
  h.lr = 1e-2f;
  for (const int width : {1, 3, 9}) {
    const int64_t rows = 37, n = rows * width;
    std::vector<uint8_t> reached(static_cast<size_t>(rows));
    for (int64_t r = 0; r < rows; ++r) reached[size_t(r)] = r % 3 != 1 && r % 7 != 0;
    const size_t count = static_cast<size_t>(n);
    std::vector<float> p(count), m(count), v(count), g(count), zeroed(count), stale(count);
    for (int64_t i = 0; i < n; ++i) {
      const size_t k = size_t(i);
      p[k] = 0.1f * float(i % 7) - 0.3f;
      m[k] = 1e-3f * float(i % 5) - 2e-3f;
      v[k] = 1e-6f * float(1 + i % 3);
      g[k] = 0.02f * float(i % 5) - 0.03f + 1e-4f;
      zeroed[k] = reached[size_t(i / width)] ? g[k] : 0.f;
      stale[k] = reached[size_t(i / width)] ? g[k] : nan;
    }
    for (const bool sparse : {false, true}) {
      INFO("width " << width << (sparse ? ", sparse" : ", dense"));
      std::vector<float> wp = p, wm = m, wv = v, rp = p, rm = m, rv = v;
      adam_step_reference<float>(wp.data(), zeroed.data(), wm.data(), wv.data(), n, h, 4, sparse);
      AdamGroup a{fp32_array(rp.data()), stale.data(), fp32_array(rm.data()), fp32_array(rv.data()), n, h};
      a.grads.reached = reached.data();
      a.grads.width = width;
      a.skip_zero_grads = sparse;
      adam_step_groups(Device::CPU, std::span<const AdamGroup>(&a, 1), 4);
      CHECK(rp == wp);
      CHECK(rm == wm);
      CHECK(rv == wv);
      CHECK(rp != p);  // the step moved something
    }
    // bf16 gradients (mixed precision's SH rest): the same rule.
    std::vector<uint16_t> g16, z16;
    for (int64_t i = 0; i < n; ++i) {
      g16.push_back(bf16_nearest(stale[size_t(i)]));
      z16.push_back(bf16_nearest(zeroed[size_t(i)]));
    }
    std::vector<float> wp = p, wm = m, wv = v, rp = p, rm = m, rv = v;
    const AdamGroup want{fp32_array(wp.data()), GradArray::narrow(z16.data()), fp32_array(wm.data()),
                         fp32_array(wv.data()), n, h};
    AdamGroup got{fp32_array(rp.data()), GradArray::narrow(g16.data()), fp32_array(rm.data()), fp32_array(rv.data()),
                  n, h};
    got.grads.reached = reached.data();
    got.grads.width = width;
    adam_step_groups(Device::CPU, std::span<const AdamGroup>(&want, 1), 4);
    adam_step_groups(Device::CPU, std::span<const AdamGroup>(&got, 1), 4);
    CHECK(rp == wp);
    CHECK(rm == wm);
    CHECK(rv == wv);
  }
}

TEST_CASE("Adam refuses rows reached whose width does not divide the group", "[adam][reached]") {
  std::vector<float> x(10, 0.f);
  std::vector<uint8_t> reached(4, 1);
  AdamHyperParams h;
  h.lr = 1e-3f;
  AdamGroup a{fp32_array(x.data()), x.data(), fp32_array(x.data()), fp32_array(x.data()), 10, h};
  a.grads.reached = reached.data();
  a.grads.width = 3;
  CHECK_THROWS_WITH(adam_step_groups(Device::CPU, std::span<const AdamGroup>(&a, 1), 1),
                    Catch::Contains("rows reached") && Catch::Contains("rows of 3 values for 10 elements"));
}
