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
inline FdStats check_gradient(const std::function<double(const Vector&)>& loss, Vector x, const Vector& grad,
                              const std::string& what, double h = 1e-6, double rtol = 1e-5, double atol_rel = 1e-7,
                              bool skip_kinks = false) {
  REQUIRE(grad.size() == x.size());
  double gmax = 0;
  for (double g : grad) gmax = std::max(gmax, std::abs(g));
  const double atol = atol_rel * std::max(gmax, 1e-3);
  const double l0 = skip_kinks ? loss(x) : 0.0;
  FdStats stats;
  for (size_t i = 0; i < x.size(); ++i) {
    const double xi = x[i];
    x[i] = xi + h;
    const double lp = loss(x);
    x[i] = xi - h;
    const double lm = loss(x);
    x[i] = xi;
    if (skip_kinks) {
      const double sp = (lp - l0) / h, sm = (l0 - lm) / h;
      if (std::abs(sp - sm) > 1e-3 * (std::abs(sp) + std::abs(sm)) + 10 * atol) {
        ++stats.skipped;
        continue;
      }
    }
    const double fd = (lp - lm) / (2 * h);
    ++stats.checked;
    if (std::abs(grad[i] - fd) > rtol * std::max(std::abs(grad[i]), std::abs(fd)) + atol) {
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
