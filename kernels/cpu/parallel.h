#pragma once
// A minimal parallel loop for the CPU backend. Jobs are handed out dynamically, so callers must
// make every job write disjoint memory: then results do not depend on the thread count or the
// scheduling (the reference rasterizer relies on this for deterministic gradients).
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

namespace splat::kernels::cpu {

// Calls f(i) for every i in [0, n), on up to `threads` threads (the caller's included).
template <class F>
void parallel_for(int64_t n, int threads, F&& f) {
  const int64_t workers = std::min<int64_t>(threads, n);
  if (workers <= 1) {
    for (int64_t i = 0; i < n; ++i) f(i);
    return;
  }
  std::atomic<int64_t> next{0};
  auto work = [&] {
    for (int64_t i = next.fetch_add(1); i < n; i = next.fetch_add(1)) f(i);
  };
  std::vector<std::thread> pool;
  pool.reserve(workers - 1);
  for (int64_t t = 1; t < workers; ++t) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
}

}  // namespace splat::kernels::cpu
