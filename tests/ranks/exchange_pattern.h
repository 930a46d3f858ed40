#pragma once
// A deterministic exchange pattern the dist tests share: how many bytes rank `from` sends rank `to`
// (uneven, often zero, and nothing at all from the last rank for odd seeds), what each byte is, and a
// scattered buffer layout (slices in a rank-dependent order with gaps between them), so that a test
// sees both wrong bytes and bytes written where nothing should be.
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <vector>

namespace splat::test {

inline uint64_t mix(uint64_t x) {  // splitmix64's finaliser: a cheap, well-spread hash
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

inline int64_t pattern_bytes(int from, int to, int ranks, uint32_t seed) {
  if (seed % 2 == 1 && from == ranks - 1) return 0;  // a rank with nothing to send
  const uint64_t h = mix(mix(mix(seed) + from) * 31 + to);
  if (h % 4 == 0) return 0;
  return static_cast<int64_t>(h % 4 == 1 ? 1 + h % 7 : 1 + (h >> 8) % 3000);
}

inline uint8_t pattern_byte(int from, int to, int64_t i, uint32_t seed) {
  return static_cast<uint8_t>(mix(mix(mix(seed * 7 + from) + to) + static_cast<uint64_t>(i)) >> 17);
}

constexpr uint8_t kUntouched = 0xEE;  // what gaps between slices hold; they must keep it

struct ScatteredLayout {
  std::vector<int64_t> counts, offsets;
  int64_t total = 0;
};

// Slices of `counts` placed in an order that depends on `salt`, with a gap before each.
inline ScatteredLayout scattered_layout(const std::vector<int64_t>& counts, uint32_t salt) {
  const std::size_t n = counts.size();
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), std::size_t{0});
  for (std::size_t i = n; i > 1; --i) std::swap(order[i - 1], order[mix(salt * 131 + i) % i]);
  ScatteredLayout layout{counts, std::vector<int64_t>(n, 0), 0};
  for (const std::size_t p : order) {
    layout.total += 1 + static_cast<int64_t>(mix(salt + p) % 5);  // the gap
    layout.offsets[p] = layout.total;
    layout.total += counts[p];
  }
  return layout;
}

}  // namespace splat::test
