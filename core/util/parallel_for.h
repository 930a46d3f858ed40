#pragma once
// A parallel loop for host work made of independent items (decoding photos, planning cameras).
#include <cstddef>
#include <functional>

namespace splat {

// Runs fn(i) for i in [0, n) on up to `threads` threads (0 = all cores). Stops handing out work
// after a failure and rethrows the failure with the smallest index, so the reported error does
// not depend on thread timing.
void for_each_parallel(size_t n, int threads, const std::function<void(size_t)>& fn);

}  // namespace splat
