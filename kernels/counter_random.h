#pragma once
// Counter-based random numbers for the CPU reference and the CUDA kernels alike: each draw is a pure
// function of its counters (a seed, a step or event, an index, a lane), so no generator state travels
// between calls, both backends draw the same numbers in any order or thread layout, and a draw can be
// made again from its counters alone (the MCMC noise of a resumed run; a refinement's split halves).
#include <cmath>
#include <cstdint>

#include "kernels/hd.h"
#include "kernels/hd_math.h"

namespace splat::kernels {

// SplitMix64's finaliser: a bijection on 64 bits whose output bits each depend on every input bit.
SPLAT_HD uint64_t mix64(uint64_t z) {
  z += 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// Uniform in (0, 1] from the 53 top bits of a hash of the counter; never 0, so log() is finite.
// Nesting the mixes keeps (seed, step) pairs from colliding the way a plain XOR of them would.
// Lane l of Gaussian `index` uses counter 4 * index + l (four lanes, see counter_normal3).
SPLAT_HD double counter_uniform(uint64_t seed, uint64_t step, uint64_t index, uint32_t lane) {
  const uint64_t h = mix64(mix64(mix64(seed) ^ step) ^ (4 * index + lane));
  return double((h >> 11) + 1) * 0x1.0p-53;
}

// Three independent standard normals for (seed, step, index): Box–Muller on two pairs of
// uniforms (the fourth normal is dropped). Double precision on both backends so that they agree to
// rounding (the noise kernel is memory-bound: the double arithmetic costs nothing measurable).
SPLAT_HD Vec3d counter_normal3(uint64_t seed, uint64_t step, uint64_t index) {
  constexpr double kTwoPi = 6.283185307179586476925286766559;
  const double r0 = std::sqrt(-2.0 * std::log(counter_uniform(seed, step, index, 0)));
  const double a0 = kTwoPi * counter_uniform(seed, step, index, 1);
  const double r1 = std::sqrt(-2.0 * std::log(counter_uniform(seed, step, index, 2)));
  const double a1 = kTwoPi * counter_uniform(seed, step, index, 3);
  return {r0 * std::cos(a0), r0 * std::sin(a0), r1 * std::cos(a1)};
}

}  // namespace splat::kernels
