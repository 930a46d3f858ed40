// The MCMC strategy's per-step kernels: the CPU reference against finite differences and against
// the distribution the noise must have, then CUDA against the CPU reference.
#include <catch2/catch.hpp>

#include <array>
#include <cmath>
#include <random>
#include <vector>

#include "kernels/buffer.h"
#include "kernels/mcmc.h"
#include "tests/kernels/fd_check.h"
#include "tests/support/test_support.h"

using namespace splat::kernels;

namespace {

using Mat = std::array<std::array<double, 3>, 3>;

// Empirical mean and covariance of n displacements stored as [n,3].
void moments(const std::vector<double>& d, std::array<double, 3>& mean, Mat& cov) {
  const size_t n = d.size() / 3;
  mean = {0, 0, 0};
  cov = {};
  for (size_t i = 0; i < n; ++i)
    for (int a = 0; a < 3; ++a) mean[a] += d[3 * i + a] / double(n);
  for (size_t i = 0; i < n; ++i)
    for (int a = 0; a < 3; ++a)
      for (int b = 0; b < 3; ++b) cov[a][b] += (d[3 * i + a] - mean[a]) * (d[3 * i + b] - mean[b]) / double(n - 1);
}

// n copies of one Gaussian, means at the origin, so that after the noise the means ARE the draws.
struct Copies {
  std::vector<double> means, quats, log_scales, logits;
  Copies(size_t n, std::array<double, 4> q, std::array<double, 3> ls, double logit)
      : means(3 * n, 0.0), quats(4 * n), log_scales(3 * n), logits(n, logit) {
    for (size_t i = 0; i < n; ++i) {
      std::copy(q.begin(), q.end(), quats.begin() + 4 * i);
      std::copy(ls.begin(), ls.end(), log_scales.begin() + 3 * i);
    }
  }
  void add_noise(const McmcNoiseParams& p) {
    mcmc_add_position_noise_reference<double>(means.data(), quats.data(), log_scales.data(), logits.data(),
                                              int64_t(logits.size()), p);
  }
};

double logit(double p) { return std::log(p / (1 - p)); }

std::vector<float> uniform_floats(size_t n, float lo, float hi, std::mt19937& rng) {
  std::uniform_real_distribution<float> u(lo, hi);
  std::vector<float> v(n);
  for (float& x : v) x = u(rng);
  return v;
}

}  // namespace

TEST_CASE("mcmc regulariser gradients match finite differences (double)", "[mcmc]") {
  std::mt19937 rng(8);
  const int64_t n = 6;
  const float opacity_reg = 0.03f, scale_reg = 0.2f;
  const splat::test::Vector x = splat::test::random_vector(size_t(4 * n), -3.0, 2.0, rng);  // n logits, 3n scales
  auto loss = [&](const splat::test::Vector& v) {
    double o = 0, s = 0;
    for (int64_t i = 0; i < n; ++i) o += 1 / (1 + std::exp(-v[i]));
    for (int64_t i = n; i < 4 * n; ++i) s += std::exp(v[i]);
    return double(opacity_reg) * o / double(n) + double(scale_reg) * s / double(3 * n);
  };
  // The kernel accumulates: start from nonzero gradients and take them off again.
  const splat::test::Vector before = splat::test::random_vector(size_t(4 * n), -1.0, 1.0, rng);
  splat::test::Vector grad = before;
  mcmc_add_regularizer_gradients_reference<double>(x.data(), x.data() + n, grad.data(), grad.data() + n, n, n,
                                                   opacity_reg, scale_reg);
  for (size_t i = 0; i < grad.size(); ++i) grad[i] -= before[i];
  const splat::test::FdStats st = splat::test::check_gradient(loss, x, grad, "mcmc regularisers", 1e-6, 1e-6);
  CHECK(st.checked == 4 * n);
}

TEST_CASE("mcmc counter-based normals are standard, independent and a function of (seed, step, index)",
          "[mcmc]") {
  const uint64_t n = 200000;
  double sum[3] = {0, 0, 0}, sq[3] = {0, 0, 0}, fourth = 0, cross01 = 0, cross02 = 0, lag_step = 0;
  int within_one_sigma = 0;
  for (uint64_t i = 0; i < n; ++i) {
    const splat::Vec3d z = counter_normal3(5, 17, i);
    const double c[3] = {z.x, z.y, z.z};
    for (int a = 0; a < 3; ++a) sum[a] += c[a], sq[a] += c[a] * c[a];
    fourth += z.x * z.x * z.x * z.x;
    cross01 += z.x * z.y;
    cross02 += z.x * z.z;
    lag_step += z.x * counter_normal3(5, 18, i).x;
    within_one_sigma += std::abs(z.z) < 1.0;
  }
  const double se = 1 / std::sqrt(double(n));  // standard error of a mean of unit-variance terms
  for (int a = 0; a < 3; ++a) {
    CHECK(std::abs(sum[a] / n) < 5 * se);
    CHECK(sq[a] / n == Approx(1.0).margin(5 * std::sqrt(2.0) * se));
  }
  CHECK(fourth / n == Approx(3.0).margin(5 * std::sqrt(96.0) * se));  // Var(z^4) = 105 - 9
  CHECK(std::abs(cross01 / n) < 5 * se);
  CHECK(std::abs(cross02 / n) < 5 * se);
  CHECK(std::abs(lag_step / n) < 5 * se);  // consecutive steps draw afresh
  CHECK(double(within_one_sigma) / n == Approx(0.682689).margin(5 * 0.466 * se));

  const splat::Vec3d a = counter_normal3(5, 17, 3), b = counter_normal3(5, 17, 3), c = counter_normal3(6, 17, 3);
  CHECK((a.x == b.x && a.y == b.y && a.z == b.z));
  CHECK(a.x != c.x);
}

TEST_CASE("mcmc position noise has mean 0 and covariance (scale gate)^2 Sigma^2", "[mcmc]") {
  // A Gaussian rotated by 0.7 rad about z and by 0.4 about x, scales 0.3 / 0.1 / 0.05, opacity 1e-4.
  const double az = 0.35, ax = 0.2;  // half angles
  const std::array<double, 4> qz{std::cos(az), 0, 0, std::sin(az)}, qx{std::cos(ax), std::sin(ax), 0, 0};
  // q = qz * qx (Hamilton product), left unnormalised by a factor 2 (the kernel normalises).
  const std::array<double, 4> q{2 * qz[0] * qx[0], 2 * qz[0] * qx[1], 2 * qz[3] * qx[1], 2 * qz[3] * qx[0]};
  const std::array<double, 3> s{0.3, 0.1, 0.05};
  const double opacity = 1e-4, scale = 7.0;
  Copies g(200000, q, {std::log(s[0]), std::log(s[1]), std::log(s[2])}, logit(opacity));
  g.add_noise({scale, 11, 4});

  // Expected, built independently of the kernel's math: R = Rz(0.7) Rx(0.4), Sigma = R S^2 R^T.
  const double cz = std::cos(2 * az), sz = std::sin(2 * az), cx = std::cos(2 * ax), sx = std::sin(2 * ax);
  const Mat Rz{{{cz, -sz, 0}, {sz, cz, 0}, {0, 0, 1}}}, Rx{{{1, 0, 0}, {0, cx, -sx}, {0, sx, cx}}};
  Mat R{}, sigma{}, expected{};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 3; ++k) R[i][j] += Rz[i][k] * Rx[k][j];
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 3; ++k) sigma[i][j] += R[i][k] * s[k] * s[k] * R[j][k];
  const double gate = 1 / (1 + std::exp(-100 * ((1 - opacity) - 0.995)));
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 3; ++k) expected[i][j] += scale * scale * gate * gate * sigma[i][k] * sigma[k][j];

  std::array<double, 3> mean;
  Mat cov;
  moments(g.means, mean, cov);
  const double n = double(g.logits.size());
  for (int i = 0; i < 3; ++i) {
    CHECK(std::abs(mean[i]) < 5 * std::sqrt(expected[i][i] / n));
    for (int j = 0; j < 3; ++j) {
      INFO("covariance entry " << i << "," << j);
      // Standard error of a sample covariance: sqrt((S_ii S_jj + S_ij^2) / n).
      const double se = std::sqrt((expected[i][i] * expected[j][j] + expected[i][j] * expected[i][j]) / n);
      CHECK(cov[i][j] == Approx(expected[i][j]).margin(5 * se));
    }
  }
  // The long axis dominates: the rotated x axis carries most of the spread.
  CHECK(expected[0][1] != Approx(0.0).margin(1e-6));
}

TEST_CASE("mcmc position noise leaves opaque Gaussians where they are", "[mcmc]") {
  const double scale = 5e5 * 1e-4;
  // Root-mean-square move of 1000 Gaussians of unit covariance: scale * gate * 1 per axis.
  auto rms_move = [&](double opacity) {
    Copies g(1000, {1, 0, 0, 0}, {0, 0, 0}, logit(opacity));
    g.add_noise({scale, 2, 9});
    double sum = 0;
    for (double m : g.means) sum += m * m;
    return std::sqrt(sum / double(g.means.size()));
  };
  // gate(1 - 0.5) = 1 / (1 + e^49.5) ~ 3e-22: opaque ones stay put.
  for (double opacity : {0.5, 0.9, 0.999}) {
    INFO("opacity " << opacity);
    CHECK(rms_move(opacity) < 1e-20 * scale);
  }
  // Nearly transparent ones move by about the full gate (1 / (1 + e^-0.49) ~ 0.62 at opacity 1e-4),
  // and the move shrinks steadily as they become visible.
  const double clear = rms_move(1e-4);
  CHECK(clear == Approx(0.62 * scale).epsilon(0.1));
  double previous = clear;
  for (double opacity : {0.005, 0.01, 0.02, 0.05, 0.1}) {
    INFO("opacity " << opacity);
    const double m = rms_move(opacity);
    CHECK(m < previous);
    previous = m;
  }
  CHECK(previous < 1e-3 * clear);  // gate(0.9) ~ e^-9.5
}

TEST_CASE("mcmc kernels reject a negative count by name", "[mcmc]") {
  float x = 0;
  CHECK_THROWS_WITH(mcmc_add_position_noise(Device::CPU, &x, &x, &x, &x, -1, {}), Catch::Contains("noise"));
  CHECK_THROWS_WITH(mcmc_add_regularizer_gradients(Device::CPU, &x, &x, &x, &x, -2, 0, 0.1f, 0.1f),
                    Catch::Contains("regulariser"));
  CHECK_THROWS_WITH(mcmc_add_regularizer_gradients(Device::CPU, &x, &x, &x, &x, 3, 2, 0.1f, 0.1f),
                    Catch::Contains("3 rows of a model of 2"));
}

// With ranks each shard applies the strategy's per-step work to its rows: together they must do what
// the whole model's step does (the regularisers are means over the whole model; each row draws the
// noise of its global id). Rows [0, n) against shards [0, k) and [k, n).
TEST_CASE("mcmc shards add the whole model's regulariser gradients and draw its noise", "[mcmc][dist]") {
  std::mt19937_64 rng(7);
  const int64_t n = 37, k = 15;
  std::normal_distribution<float> normal(0.f, 1.f);
  auto random = [&](size_t count) {
    std::vector<float> v(count);
    for (float& x : v) x = normal(rng);
    return v;
  };
  const std::vector<float> logits = random(size_t(n)), log_scales = random(size_t(3 * n)), quats = random(size_t(4 * n));
  std::vector<float> whole_op(size_t(n), 0.f), whole_ls(size_t(3 * n), 0.f), shard_op = whole_op, shard_ls = whole_ls;
  mcmc_add_regularizer_gradients(Device::CPU, logits.data(), log_scales.data(), whole_op.data(), whole_ls.data(), n, n,
                                 0.01f, 0.02f);
  for (const auto& [first, count] : {std::pair<int64_t, int64_t>{0, k}, {k, n - k}})
    mcmc_add_regularizer_gradients(Device::CPU, logits.data() + first, log_scales.data() + 3 * first,
                                   shard_op.data() + first, shard_ls.data() + 3 * first, count, n, 0.01f, 0.02f);
  CHECK(shard_op == whole_op);
  CHECK(shard_ls == whole_ls);

  const std::vector<float> means0 = random(size_t(3 * n));
  std::vector<float> whole_means = means0, shard_means = means0;
  McmcNoiseParams p;
  p.scale = 0.3;
  p.seed = 11;
  p.step = 5;
  mcmc_add_position_noise(Device::CPU, whole_means.data(), quats.data(), log_scales.data(), logits.data(), n, p);
  for (const auto& [first, count] : {std::pair<int64_t, int64_t>{0, k}, {k, n - k}}) {
    McmcNoiseParams mine = p;
    mine.first = uint64_t(first);
    mcmc_add_position_noise(Device::CPU, shard_means.data() + 3 * first, quats.data() + 4 * first,
                            log_scales.data() + 3 * first, logits.data() + first, count, mine);
  }
  CHECK(shard_means == whole_means);
  CHECK(shard_means != means0);
}

TEST_CASE("mcmc CUDA kernels match the CPU reference", "[mcmc][gpu]") {
  if (!splat::test::gpu_or_skip("mcmc CUDA kernels")) return;
  const int64_t n = 50001;  // not a multiple of the block size
  std::mt19937 rng(31);
  const std::vector<float> quats = uniform_floats(size_t(4 * n), -1.f, 1.f, rng);
  const std::vector<float> log_scales = uniform_floats(size_t(3 * n), -5.f, 0.5f, rng);
  // From opaque to fully transparent: both sides of the gate.
  const std::vector<float> logits = uniform_floats(size_t(n), -14.f, 4.f, rng);
  const std::vector<float> grad_op = uniform_floats(size_t(n), -1e-3f, 1e-3f, rng);
  const std::vector<float> grad_ls = uniform_floats(size_t(3 * n), -1e-3f, 1e-3f, rng);
  auto on_gpu = [](const std::vector<float>& v) {
    Buffer<float> b(Device::CUDA);
    b.upload(v);
    return b;
  };
  auto check_close = [](const std::vector<float>& gpu, const std::vector<float>& cpu, const char* what) {
    REQUIRE(gpu.size() == cpu.size());
    int mismatches = 0, moved = 0;
    for (size_t i = 0; i < cpu.size(); ++i) {
      moved += cpu[i] != 0.f;
      if (gpu[i] != Approx(cpu[i]).epsilon(1e-5)) {
        if (++mismatches <= 5) FAIL_CHECK(what << "[" << i << "]: CUDA " << gpu[i] << " CPU " << cpu[i]);
      }
    }
    CHECK(mismatches == 0);
    CHECK(moved > int(cpu.size() / 10));  // the comparison is not between zeros
  };

  SECTION("position noise") {
    // Means start at zero so that the comparison is of the displacements themselves.
    std::vector<float> cpu(size_t(3 * n), 0.f);
    const McmcNoiseParams p{5e5 * 1.6e-4, 0xC0FFEE, 1234, 1000};  // a shard whose rows start at id 1000
    Buffer<float> means = on_gpu(cpu), q = on_gpu(quats), ls = on_gpu(log_scales), lo = on_gpu(logits);
    mcmc_add_position_noise(Device::CUDA, means.data(), q.data(), ls.data(), lo.data(), n, p);
    mcmc_add_position_noise(Device::CPU, cpu.data(), quats.data(), log_scales.data(), logits.data(), n, p);
    check_close(means.download(), cpu, "means");
  }
  SECTION("regulariser gradients") {
    std::vector<float> cpu_op = grad_op, cpu_ls = grad_ls;
    Buffer<float> lo = on_gpu(logits), ls = on_gpu(log_scales), go = on_gpu(grad_op), gs = on_gpu(grad_ls);
    // A shard's part (a model of 3n rows) through both backends.
    mcmc_add_regularizer_gradients(Device::CUDA, lo.data(), ls.data(), go.data(), gs.data(), n, 3 * n, 0.01f, 0.02f);
    mcmc_add_regularizer_gradients(Device::CPU, logits.data(), log_scales.data(), cpu_op.data(), cpu_ls.data(), n,
                                   3 * n, 0.01f, 0.02f);
    check_close(go.download(), cpu_op, "grad opacity");
    check_close(gs.download(), cpu_ls, "grad log scales");
  }
}

// Six rows, three of them unreached, whose gradients hold NaN; the regulariser's inputs.
struct ReachedRegularizerCase {
  static constexpr int64_t n = 6;
  std::vector<float> logits = {-2.f, -1.f, 0.f, 0.5f, 1.f, 3.f}, log_scales;
  std::vector<uint8_t> reached = {1, 0, 1, 1, 0, 0};
  std::vector<float> op, ls;  // the gradients before: 0.5 and -0.25 where reached, NaN elsewhere
  ReachedRegularizerCase() : op(size_t(n), 0.5f), ls(size_t(3 * n), -0.25f) {
    for (int64_t i = 0; i < 3 * n; ++i) log_scales.push_back(-3.f + 0.25f * float(i));
    for (int64_t i = 0; i < n; ++i) {
      if (reached[size_t(i)]) continue;
      op[size_t(i)] = std::nanf("");
      for (int k = 0; k < 3; ++k) ls[size_t(3 * i + k)] = std::nanf("");
    }
  }
};

TEST_CASE("MCMC regulariser gradients take an unreached row's gradients as zeros and store every row",
          "[mcmc][reached]") {
  ReachedRegularizerCase c;
  const int64_t n = c.n;
  std::vector<float> zero_op(size_t(n), 0.f), zero_ls(size_t(3 * n), 0.f);
  mcmc_add_regularizer_gradients(Device::CPU, c.logits.data(), c.log_scales.data(), zero_op.data(), zero_ls.data(), n,
                                 n, 0.01f, 0.02f);
  mcmc_add_regularizer_gradients(Device::CPU, c.logits.data(), c.log_scales.data(), c.op.data(), c.ls.data(), n, n,
                                 0.01f, 0.02f, c.reached.data());
  // Each row gets the regulariser onto its gradient, an unreached row's taken as zero.
  for (int64_t i = 0; i < n; ++i) {
    INFO("row " << i);
    const float base_op = c.reached[size_t(i)] ? 0.5f : 0.f, base_ls = c.reached[size_t(i)] ? -0.25f : 0.f;
    CHECK(c.op[size_t(i)] == base_op + zero_op[size_t(i)]);
    for (int k = 0; k < 3; ++k) CHECK(c.ls[size_t(3 * i + k)] == base_ls + zero_ls[size_t(3 * i + k)]);
  }
  CHECK(zero_op[0] != 0.f);  // the regulariser adds something
}

TEST_CASE("CUDA MCMC regulariser gradients with rows reached match the CPU's", "[mcmc][reached][gpu]") {
  if (!splat::test::gpu_or_skip("CUDA MCMC regulariser with rows reached")) return;
  ReachedRegularizerCase c;
  const int64_t n = c.n;
  Buffer<float> dlo(Device::CUDA), dls(Device::CUDA), dop(Device::CUDA), dgs(Device::CUDA);
  Buffer<uint8_t> dr(Device::CUDA);
  dlo.upload(c.logits), dls.upload(c.log_scales), dop.upload(c.op), dgs.upload(c.ls), dr.upload(c.reached);
  mcmc_add_regularizer_gradients(Device::CUDA, dlo.data(), dls.data(), dop.data(), dgs.data(), n, n, 0.01f, 0.02f,
                                 dr.data());
  mcmc_add_regularizer_gradients(Device::CPU, c.logits.data(), c.log_scales.data(), c.op.data(), c.ls.data(), n, n,
                                 0.01f, 0.02f, c.reached.data());
  const std::vector<float> gpu_op = dop.download(), gpu_ls = dgs.download();
  for (int64_t i = 0; i < n; ++i)
    CHECK(std::abs(gpu_op[size_t(i)] - c.op[size_t(i)]) <= 1e-6f * std::abs(c.op[size_t(i)]));
  for (int64_t i = 0; i < 3 * n; ++i)
    CHECK(std::abs(gpu_ls[size_t(i)] - c.ls[size_t(i)]) <= 1e-6f * std::abs(c.ls[size_t(i)]));
}
