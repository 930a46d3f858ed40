#pragma once
// Finite-difference gradient checks (double precision) shared by the rasterizer tests.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <functional>
#include <random>
#include <string>
#include <vector>

namespace splat::test {

using Vector = std::vector<double>;

struct FdStats {
  int checked = 0;
  int skipped = 0;  // parameters whose loss is not smooth within ±h (a threshold lies there)
};

// Compares grad with central differences of loss at x, component by component:
// |grad_i - fd_i| <= rtol * max(|grad_i|, |fd_i|) + atol, atol = atol_rel * max|grad|.
// With skip_kinks, a component whose one-sided slopes disagree (a discontinuity or kink of the
// forward within ±h, e.g. the 1/255 skip) is counted as skipped instead of compared; the caller
// bounds the skipped count. The skip test only looks at the forward, so it cannot hide a VJP bug.
// With a second step h2 > 0, a component that fails (or is skipped) at h is tried again at h2:
// a small h loses digits to rounding when the loss sums many pixels, a large one meets more
// thresholds; a wrong gradient fails at both.
inline FdStats check_gradient(const std::function<double(const Vector&)>& loss, Vector x, const Vector& grad,
                              const std::string& what, double h = 1e-6, double rtol = 1e-5, double atol_rel = 1e-7,
                              bool skip_kinks = false, double h2 = 0) {
  REQUIRE(grad.size() == x.size());
  double gmax = 0;
  for (double g : grad) gmax = std::max(gmax, std::abs(g));
  const double atol = atol_rel * std::max(gmax, 1e-3);
  const double l0 = skip_kinks ? loss(x) : 0.0;
  enum class Outcome { match, mismatch, kink };
  double fd = 0;
  auto compare = [&](size_t i, double step) {
    const double xi = x[i];
    x[i] = xi + step;
    const double lp = loss(x);
    x[i] = xi - step;
    const double lm = loss(x);
    x[i] = xi;
    if (skip_kinks) {
      const double sp = (lp - l0) / step, sm = (l0 - lm) / step;
      if (std::abs(sp - sm) > 1e-3 * (std::abs(sp) + std::abs(sm)) + 10 * atol) return Outcome::kink;
    }
    fd = (lp - lm) / (2 * step);
    return std::abs(grad[i] - fd) <= rtol * std::max(std::abs(grad[i]), std::abs(fd)) + atol ? Outcome::match
                                                                                             : Outcome::mismatch;
  };
  FdStats stats;
  for (size_t i = 0; i < x.size(); ++i) {
    Outcome o = compare(i, h);
    if (o != Outcome::match && h2 > 0) {
      const double fd_h = fd;
      const Outcome o2 = compare(i, h2);
      if (o2 == Outcome::match || o == Outcome::kink) o = o2;
      if (o == Outcome::mismatch && o2 != Outcome::mismatch) fd = fd_h;  // report the step that failed
    }
    if (o == Outcome::kink) {
      ++stats.skipped;
      continue;
    }
    ++stats.checked;
    if (o == Outcome::mismatch) {
      INFO(what << ": component " << i << " analytic " << grad[i] << " finite difference " << fd);
      CHECK(grad[i] == Approx(fd));
    }
  }
  return stats;
}

// Checks a vector-Jacobian product: vjp(x, u) must be the gradient of u·f(x), for a random u.
inline void check_vjp(const std::function<Vector(const Vector&)>& f,
                      const std::function<Vector(const Vector&, const Vector&)>& vjp, const Vector& x,
                      const std::string& what, unsigned seed = 1, double h = 1e-6, double rtol = 1e-5) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> U(-1, 1);
  Vector u(f(x).size());
  for (double& v : u) v = U(rng);
  auto loss = [&](const Vector& y) {
    const Vector out = f(y);
    double s = 0;
    for (size_t k = 0; k < out.size(); ++k) s += u[k] * out[k];
    return s;
  };
  check_gradient(loss, x, vjp(x, u), what, h, rtol);
}

inline Vector random_vector(size_t n, double lo, double hi, std::mt19937& rng) {
  std::uniform_real_distribution<double> U(lo, hi);
  Vector v(n);
  for (double& e : v) e = U(rng);
  return v;
}

}  // namespace splat::test
