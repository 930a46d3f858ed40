// What a gated exchange copy costs over the link, and what a compacted one would: the multi-GPU step
// writes each projected pair that covers a tile straight into the peer's columns at the pair's own row
// (kernels/gated_rows.h: rows left out leave holes, so a warp's writes are partial), and the pairs'
// gradients back the same way. This times, from GPU 0 into GPU 1's memory (or within GPU 0 with one
// GPU), for a pair's five columns (16, 16, 8, 4 and 4 zero-gated bytes) over `rows` rows whose gate keeps
// a share p, either independently per row or in runs of 32 rows:
//   gated      the production kernel (kernels::copy_gated_rows), rows written in place;
//   local      the same kernel into GPU 0's own memory (the own rows' copy);
//   compacted  the kept rows written densely at their rank among the kept rows (a prefix sum of the
//              gate, then a scatter: what a compacted exchange would send), the scan's time included;
//   hoisted    as gated, with a row's loads all issued before its stores;
//   dense      the production kernel with every row kept over p x rows rows (the compacted rows' bytes
//              without the scan, the link's rate for those bytes).
//   bench_gated_copy [rows (default 1350000)] [repeats (default 50)]
// Prints the median microseconds of each and the bytes the kept rows carry per microsecond.
#include <cub/device/device_scan.cuh>
#include <thrust/iterator/transform_iterator.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "kernels/gated_rows.h"

using namespace splat::kernels;

namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "bench_gated_copy: %s: %s\n", what, cudaGetErrorString(e));
    std::exit(1);
  }
}

constexpr int kColumns = 5;
constexpr int64_t kWidths[kColumns] = {16, 16, 8, 4, 4};
constexpr int64_t kRowBytes = 48;

struct Columnset {
  RowColumn c[kMostRowColumns];
  int n;
};

// Kept rows go to out[position[r]] (position: exclusive prefix sum of the gate).
__global__ void scatter_compacted(Columnset c, int64_t rows, const int32_t* gate, const int32_t* position) {
  for (int64_t r = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; r < rows; r += int64_t(gridDim.x) * blockDim.x) {
    if (!gate[r]) continue;
    const int64_t p = position[r];
    for (int k = 0; k < c.n; ++k) {
      const RowColumn& col = c.c[k];
      if (col.row_bytes == 16) static_cast<RowWord16*>(col.to)[p] = static_cast<const RowWord16*>(col.from)[r];
      else if (col.row_bytes == 8) static_cast<RowWord8*>(col.to)[p] = static_cast<const RowWord8*>(col.from)[r];
      else static_cast<uint32_t*>(col.to)[p] = static_cast<const uint32_t*>(col.from)[r];
    }
  }
}

// The pair layout's copy with every load of a row issued before its stores (the production kernel
// copies column by column, and may not move a load above a store it cannot prove apart).
__global__ void hoisted_pair_copy(Columnset c, int64_t rows, const int32_t* __restrict__ gate) {
  for (int64_t r = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; r < rows; r += int64_t(gridDim.x) * blockDim.x) {
    if (!gate[r]) {
      static_cast<uint32_t*>(c.c[4].to)[r] = 0;
      continue;
    }
    const RowWord16 a = static_cast<const RowWord16*>(c.c[0].from)[r], b = static_cast<const RowWord16*>(c.c[1].from)[r];
    const RowWord8 m = static_cast<const RowWord8*>(c.c[2].from)[r];
    const uint32_t k = static_cast<const uint32_t*>(c.c[3].from)[r], t = static_cast<const uint32_t*>(c.c[4].from)[r];
    static_cast<RowWord16*>(c.c[0].to)[r] = a;
    static_cast<RowWord16*>(c.c[1].to)[r] = b;
    static_cast<RowWord8*>(c.c[2].to)[r] = m;
    static_cast<uint32_t*>(c.c[3].to)[r] = k;
    static_cast<uint32_t*>(c.c[4].to)[r] = t;
  }
}

struct IsKept {
  __device__ int32_t operator()(int32_t g) const { return g != 0; }
};

template <class F>
double median_us(int repeats, cudaStream_t stream, F&& run) {
  cudaEvent_t a, b;
  check(cudaEventCreate(&a), "event");
  check(cudaEventCreate(&b), "event");
  std::vector<float> t;
  for (int i = 0; i < repeats + 3; ++i) {
    check(cudaEventRecord(a, stream), "record");
    run();
    check(cudaEventRecord(b, stream), "record");
    check(cudaEventSynchronize(b), "synchronize");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, a, b), "elapsed");
    if (i >= 3) t.push_back(ms);
  }
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  std::sort(t.begin(), t.end());
  return 1000.0 * t[t.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const int64_t rows = argc > 1 ? std::atoll(argv[1]) : 1350000;
  const int repeats = argc > 2 ? std::atoi(argv[2]) : 50;
  int n = 0;
  check(cudaGetDeviceCount(&n), "counting devices");
  const int far = n > 1 ? 1 : 0;
  int peer = 0;
  if (far) {
    check(cudaDeviceCanAccessPeer(&peer, 0, 1), "peer query");
    if (peer) {
      check(cudaSetDevice(1), "device 1");
      check(cudaDeviceEnablePeerAccess(0, 0), "peer access");
      check(cudaSetDevice(0), "device 0");
      check(cudaDeviceEnablePeerAccess(1, 0), "peer access");
    }
  }
  if (far && !peer) {
    std::fprintf(stderr, "bench_gated_copy: GPUs 0 and 1 have no peer access\n");
    return 1;
  }
  std::printf("rows %lld, destination GPU %d (source GPU 0), %d repeats\n", (long long)rows, far, repeats);

  check(cudaSetDevice(0), "device 0");
  cudaStream_t stream;
  check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "stream");
  std::vector<void*> from(kColumns), to_far(kColumns), to_near(kColumns);
  for (int k = 0; k < kColumns; ++k) {
    check(cudaMalloc(&from[k], size_t(rows * kWidths[k])), "source column");
    check(cudaMemset(from[k], 1, size_t(rows * kWidths[k])), "source column");
    check(cudaMalloc(&to_near[k], size_t(rows * kWidths[k])), "local column");
  }
  check(cudaSetDevice(far), "destination device");
  for (int k = 0; k < kColumns; ++k) check(cudaMalloc(&to_far[k], size_t(rows * kWidths[k])), "peer column");
  check(cudaSetDevice(0), "device 0");
  int32_t *gate = nullptr, *ones = nullptr, *position = nullptr;
  check(cudaMalloc(&gate, size_t(rows) * 4), "gate");
  check(cudaMalloc(&ones, size_t(rows) * 4), "ones");
  check(cudaMalloc(&position, size_t(rows) * 4), "positions");
  const std::vector<int32_t> all(static_cast<size_t>(rows), 1);
  check(cudaMemcpy(ones, all.data(), size_t(rows) * 4, cudaMemcpyHostToDevice), "ones");
  const auto kept = thrust::make_transform_iterator(static_cast<const int32_t*>(gate), IsKept{});
  size_t scan_bytes = 0;
  check(cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, kept, position, rows, stream), "sizing the scan");
  void* scan_space = nullptr;
  check(cudaMalloc(&scan_space, scan_bytes), "scan space");

  const ComputeContext where{Device::CUDA, 0, stream};
  auto columns = [&](const std::vector<void*>& to) {
    std::vector<RowColumn> c;
    for (int k = 0; k < kColumns; ++k) c.push_back({from[k], to[k], kWidths[k], k == kColumns - 1});
    return c;
  };
  const std::vector<RowColumn> far_columns = columns(to_far), near_columns = columns(to_near);
  Columnset compacted{};
  for (int k = 0; k < kColumns; ++k) compacted.c[k] = far_columns[size_t(k)];
  compacted.n = kColumns;

  std::printf("%-8s %5s %10s %10s %10s %10s %10s   (us; then B/us of the kept rows' 44 bytes + 4 bytes a row)\n",
              "gate", "p", "gated", "local", "compacted", "hoisted", "dense");
  std::mt19937 rng(1);
  for (const int run : {1, 32})
    for (const double p : {0.2, 0.3, 0.45, 0.6, 0.8, 1.0}) {
      std::vector<int32_t> g(static_cast<size_t>(rows));
      std::bernoulli_distribution keep(p);
      for (int64_t r = 0; r < rows; r += run) {
        const int32_t v = keep(rng) ? 1 + int32_t(r % 7) : 0;
        for (int64_t i = r; i < std::min(rows, r + run); ++i) g[size_t(i)] = v;
      }
      const int64_t kept_rows = std::count_if(g.begin(), g.end(), [](int32_t v) { return v != 0; });
      check(cudaMemcpy(gate, g.data(), size_t(rows) * 4, cudaMemcpyHostToDevice), "gate");
      const double gated = median_us(repeats, stream, [&] { copy_gated_rows(where, far_columns, rows, gate); });
      const double local = median_us(repeats, stream, [&] { copy_gated_rows(where, near_columns, rows, gate); });
      const double comp = median_us(repeats, stream, [&] {
        size_t b = scan_bytes;
        check(cub::DeviceScan::ExclusiveSum(scan_space, b, kept, position, rows, stream), "scan");
        scatter_compacted<<<4096, 256, 0, stream>>>(compacted, rows, gate, position);
      });
      const double hoisted = median_us(repeats, stream, [&] {
        hoisted_pair_copy<<<4096, 256, 0, stream>>>(compacted, rows, gate);
      });
      const double dense = median_us(repeats, stream, [&] { copy_gated_rows(where, far_columns, kept_rows, ones); });
      const double bytes = double(kept_rows) * (kRowBytes - 4) + double(rows) * 4;
      std::printf("%-8s %5.2f %10.1f %10.1f %10.1f %10.1f %10.1f   (%.0f %.0f %.0f %.0f %.0f)\n",
                  run == 1 ? "per row" : "runs 32", p, gated, local, comp, hoisted, dense, bytes / gated, bytes / local,
                  bytes / comp, bytes / hoisted, bytes / dense);
    }
  return 0;
}
