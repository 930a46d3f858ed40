// CUDA backend of the photometric loss and the image metrics (see kernels/loss.h).
//
// Forward: one block per 32x16 output tile of one camera; for each channel it loads the
// tile plus the window's 5-pixel halo into shared memory, runs the horizontal 1D pass for
// the five moment maps over the halo rows (two adjacent columns a thread), then the vertical
// pass per output pixel, and evaluates SSIM and its partials there. The kernels are bound by
// issued instructions, most of them shared-memory loads of the windows (ncu, H100, bonsai:
// 50 % occupancy, DRAM at 6 %); the paired columns and the taps read from the parameter bank
// cut the loss 13-15 % (bench/TRAINING.md "The loss kernels' windows"). The halo is staged with
// all of a thread's loads issued first, at three blocks an SM ("The loss kernels' halo staged";
// several output rows a thread in the vertical pass, which loads fewer values, was slower). Each
// block writes its sums of |d|, d^2 and SSIM and its count of valid pixels; a second kernel reduces
// them per image (double) and a third forms the loss (and the valid-element count backward divides
// by) into device scalars, so a training step enqueues the loss without waiting for it.
// Backward: the same tiling filters the three stored partial maps and combines them with
// the L1 term into dL/dpred.
// Mask (kernels/loss.h): the forward and backward kernels are instantiated with and without
// one (kMasked), chosen on the host. Without a mask the mask tests fold away, a block's valid
// count is its tile's pixel count and backward's weights come from the host as before, so
// the unmasked path runs the code it ran before masks existed. (Testing a null mask at run
// time instead cost the unmasked forward 3% and backward 7% at 4x1080x1920 on an H100.)
#include <cuda_runtime.h>

#include <algorithm>
#include <stdexcept>
#include <string>

#include "kernels/buffer.h"
#include "kernels/cuda/cuda_check.cuh"
#include "kernels/cuda_util.h"
#include "kernels/loss.h"

namespace splat::kernels {
namespace {

constexpr int kTileW = 32, kTileH = 16;
constexpr int kHaloW = kTileW + 2 * kSsimRadius, kHaloH = kTileH + 2 * kSsimRadius;
constexpr int kThreads = kTileW * kTileH;
// Three blocks an SM (40 registers): measured faster than two at the registers the staged halo would
// take otherwise (bench/TRAINING.md "The loss kernels' halo staged").
constexpr int kMinBlocks = 3;
constexpr int kReduceThreads = 256;

// Grows a buffer without shrinking it, so that steps with alternating image sizes do not
// reallocate (cudaMalloc/cudaFree would synchronise the device).
template <class T>
void ensure_size(Buffer<T>& b, size_t n) {
  if (b.size() < n) b.resize(n);
}

struct TileGrid {
  dim3 grid, block{kTileW, kTileH, 1};
  int blocks_per_image;
};
TileGrid tile_grid(const ImageBatchShape& s) {
  TileGrid t;
  t.grid = dim3((s.width + kTileW - 1) / kTileW, (s.height + kTileH - 1) / kTileH, s.cameras);
  t.blocks_per_image = int(t.grid.x * t.grid.y);
  return t;
}

// The window's taps, passed by value: they sit in the kernel's parameter bank, which the unrolled tap
// loops read as instruction operands (a shared-memory copy cost a load per tap and map).
struct WindowTaps {
  float w[kSsimTaps];
};
const WindowTaps& window_taps() {
  static const WindowTaps taps = [] {
    WindowTaps t;
    for (int k = 0; k < kSsimTaps; ++k) t.w[k] = ssim_window_tap<float>(k);
    return t;
  }();
  return taps;
}

// The horizontal passes give each thread two adjacent columns of a halo row: the kHaloH x kTileW / 2
// items fit one round of the block's threads, and each input is loaded (and squared) once for both.
constexpr int kPairCols = kTileW / 2;
static_assert(kHaloH * kPairCols <= kThreads, "one round of the horizontal pass");

// The values of M maps at one halo pixel.
template <int M>
struct MapValues {
  float v[M];
};

// The horizontal pass of the maps `in` gives (M of them, in(r, c) returning their values at halo row r,
// column c) into hs[0..M)[r][c] over the tile's columns, a thread per pair of adjacent columns of a row
// (`tid`: the thread's index in the block).
template <int M, class In>
__device__ void horizontal_pass(int tid, const float* w, In in, float (*hs)[kHaloH][kTileW]) {
  // A loop, though it is one round (static_assert above): under the three-blocks register budget the
  // if-return form spilled more.
  for (int item = tid; item < kHaloH * kPairCols; item += kThreads) {
    const int r = item / kPairCols, c = 2 * (item % kPairCols);
    float m[2][M] = {};
#pragma unroll
    for (int j = 0; j < kSsimTaps + 1; ++j) {
      const auto v = in(r, c + j);
#pragma unroll
      for (int o = 0; o < 2; ++o) {
        const int k = j - o;  // tap of input j for output column c + o
        if (k < 0 || k >= kSsimTaps) continue;
#pragma unroll
        for (int q = 0; q < M; ++q) m[o][q] += w[k] * v.v[q];
      }
    }
#pragma unroll
    for (int o = 0; o < 2; ++o)
#pragma unroll
      for (int q = 0; q < M; ++q) hs[q][r][c + o] = m[o][q];
  }
}

// The vertical pass over hs's M maps at output row `row`, column `col`: out[q] is map q filtered there.
template <int M>
__device__ void vertical_pass(const float* w, const float (*hs)[kHaloH][kTileW], int row, int col, float (&out)[M]) {
#pragma unroll
  for (int q = 0; q < M; ++q) out[q] = 0.f;
#pragma unroll
  for (int k = 0; k < kSsimTaps; ++k)
#pragma unroll
    for (int q = 0; q < M; ++q) out[q] += w[k] * hs[q][row + k][col];
}

// Stages M maps over the tile's halo into shared memory: load(r, c) gives their MapValues at halo row r,
// column c, store(r, c, values) puts them. The block's threads take the halo's pixels in row-major order,
// kThreads at a time, and every thread issues all its loads before its first store, so that its global
// loads are in flight together (a load-store loop per pixel left the kernels waiting on each load).
template <int M, class Load, class Store>
__device__ void stage_halo(int tid, Load load, Store store) {
  constexpr int kCount = kHaloH * kHaloW, kRounds = (kCount + kThreads - 1) / kThreads;
  MapValues<M> v[kRounds];
#pragma unroll
  for (int k = 0; k < kRounds; ++k) {
    const int i = tid + k * kThreads;
    if (i < kCount) v[k] = load(i / kHaloW, i % kHaloW);
  }
#pragma unroll
  for (int k = 0; k < kRounds; ++k) {
    const int i = tid + k * kThreads;
    if (i < kCount) store(i / kHaloW, i % kHaloW, v[k]);
  }
}

// Sum of v over the block, valid in thread 0.
__device__ float block_sum(float v, float* scratch) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
  const int tid = threadIdx.y * blockDim.x + threadIdx.x;
  const int warps = (blockDim.x * blockDim.y + 31) / 32;
  __syncthreads();  // scratch may still be read by a previous call
  if ((tid & 31) == 0) scratch[tid >> 5] = v;
  __syncthreads();
  float s = 0;
  if (tid == 0)
    for (int i = 0; i < warps; ++i) s += scratch[i];
  return s;
}

// kMetric: clamp pred to [0,1] and skip the partials (evaluation); otherwise store the
// partials for backward. block_sums[b] = (sum |d|, sum d^2, sum SSIM, valid pixels) of block
// b, the sums over its valid pixels. kMasked: `mask` is read (otherwise it is null).
template <bool kMetric, bool kMasked>
__global__ void __launch_bounds__(kThreads, kMinBlocks)
    ssim_forward_kernel(const float* __restrict__ pred, TargetImages target, const uint8_t* __restrict__ mask, int H,
                        int W, float* __restrict__ partials, int64_t plane_stride, float4* __restrict__ block_sums,
                        const WindowTaps taps) {
  const float* w = taps.w;
  __shared__ float xs[kHaloH][kHaloW], ys[kHaloH][kHaloW];
  __shared__ float hs[5][kHaloH][kTileW];
  __shared__ float scratch[kThreads / 32];
  const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * kTileW + tx;
  const int x0 = blockIdx.x * kTileW - kSsimRadius, y0 = blockIdx.y * kTileH - kSsimRadius;
  const int gx = blockIdx.x * kTileW + tx, gy = blockIdx.y * kTileH + ty;
  const bool inside = gx < W && gy < H;
  const size_t image = size_t(blockIdx.z) * H * W;
  if (!kMasked) mask = nullptr;  // lets the compiler drop every mask test
  const bool valid = inside && pixel_valid(mask, image + size_t(gy) * W + gx);
  float abs_sum = 0, sq_sum = 0, ssim_sum = 0;
  for (int ch = 0; ch < 3; ++ch) {
    stage_halo<2>(
        tid,
        [&](int r, int c) {
          const int yy = y0 + r, xx = x0 + c;
          MapValues<2> xy{{0.f, 0.f}};  // zero padding outside the image
          if (yy >= 0 && yy < H && xx >= 0 && xx < W) {
            const size_t pixel = image + size_t(yy) * W + xx, e = pixel * 3 + ch;
            xy.v[1] = target[e];
            xy.v[0] = masked_pred(kMetric ? clamp_unit(pred[e]) : pred[e], xy.v[1], pixel_valid(mask, pixel));
          }
          return xy;
        },
        [&](int r, int c, const MapValues<2>& xy) {
          xs[r][c] = xy.v[0];
          ys[r][c] = xy.v[1];
        });
    __syncthreads();
    horizontal_pass<5>(tid, w, [&](int r, int c) {
      const float x = xs[r][c], y = ys[r][c];
      return MapValues<5>{{x, y, x * x, y * y, x * y}};
    }, hs);
    __syncthreads();
    float v[5];
    vertical_pass<5>(w, hs, ty, tx, v);
    if (inside) {
      SsimMoments<float> m;
      m.mu_x = v[0], m.mu_y = v[1], m.xx = v[2], m.yy = v[3], m.xy = v[4];
      const SsimPartials<float> sp = ssim_partials(m);
      if (valid) {
        const float d = xs[ty + kSsimRadius][tx + kSsimRadius] - ys[ty + kSsimRadius][tx + kSsimRadius];
        abs_sum += fabsf(d);
        sq_sum += d * d;
        ssim_sum += sp.ssim;
      }
      if (!kMetric) {  // an ignored centre's SSIM is not in the loss: no partials from it
        const size_t e = (image + size_t(gy) * W + gx) * 3 + ch;
        partials[e] = valid ? sp.d_mu_x : 0.f;
        partials[plane_stride + e] = valid ? sp.d_xx : 0.f;
        partials[2 * plane_stride + e] = valid ? sp.d_xy : 0.f;
      }
    }
    __syncthreads();  // the next channel overwrites xs, ys and hs
  }
  const float a = block_sum(abs_sum, scratch);
  const float q = block_sum(sq_sum, scratch);
  const float s = block_sum(ssim_sum, scratch);
  // Without a mask every pixel of the tile inside the image counts.
  const float n = kMasked ? block_sum(valid ? 1.f : 0.f, scratch)
                       : float(min(kTileW, W - int(blockIdx.x) * kTileW) * min(kTileH, H - int(blockIdx.y) * kTileH));
  if (tid == 0)
    block_sums[(size_t(blockIdx.z) * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x] = make_float4(a, q, s, n);
}

// One block per image: sums its blocks' partial sums in double.
__global__ void image_sums_kernel(const float4* __restrict__ block_sums, int blocks_per_image, ImageSums* out) {
  __shared__ double red[4][kReduceThreads];
  const float4* b = block_sums + size_t(blockIdx.x) * blocks_per_image;
  double a = 0, q = 0, s = 0, n = 0;
  for (int i = threadIdx.x; i < blocks_per_image; i += kReduceThreads)
    a += b[i].x, q += b[i].y, s += b[i].z, n += b[i].w;
  red[0][threadIdx.x] = a, red[1][threadIdx.x] = q, red[2][threadIdx.x] = s, red[3][threadIdx.x] = n;
  __syncthreads();
  for (int stride = kReduceThreads / 2; stride > 0; stride >>= 1) {
    if (threadIdx.x < stride)
      for (int j = 0; j < 4; ++j) red[j][threadIdx.x] += red[j][threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = ImageSums{red[0][0], red[1][0], red[2][0], red[3][0]};
}

// The loss, and the number of valid elements (3 per valid pixel) for backward.
__global__ void loss_value_kernel(const ImageSums* sums, int cameras, double ssim_weight, float* loss,
                                  float* valid_elements) {
  double a = 0, s = 0, n = 0;
  for (int c = 0; c < cameras; ++c) a += sums[c].abs_diff, s += sums[c].ssim, n += sums[c].valid;
  *loss = float(photometric_loss_value(a, s, 3 * n, ssim_weight));
  *valid_elements = float(3 * n);
}

__global__ void add_weighted_loss_kernel(const float* value, float weight, bool first, float* total) {
  *total = weighted_loss_sum(first ? 0.f : *total, *value, weight);
}

// Without a mask (kMasked false, mask null) `g` holds the gradient weights; with one they are
// formed here from the valid-element count the forward left on the device (the host never
// reads it).
template <bool kMasked>
__global__ void __launch_bounds__(kThreads, kMinBlocks)
    loss_backward_kernel(const float* __restrict__ pred, TargetImages target, const uint8_t* __restrict__ mask,
                         const float* __restrict__ partials, int64_t plane_stride, int H, int W,
                         LossGradWeights<float> g, float ssim_weight, float grad_scale,
                         const float* __restrict__ valid_elements, float* __restrict__ grad, const WindowTaps taps) {
  const float* w = taps.w;
  __shared__ float ps[3][kHaloH][kHaloW];
  __shared__ float hs[3][kHaloH][kTileW];
  const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * kTileW + tx;
  const int x0 = blockIdx.x * kTileW - kSsimRadius, y0 = blockIdx.y * kTileH - kSsimRadius;
  const int gx = blockIdx.x * kTileW + tx, gy = blockIdx.y * kTileH + ty;
  const size_t image = size_t(blockIdx.z) * H * W;
  if (!kMasked) mask = nullptr;  // lets the compiler drop every mask test
  if (kMasked) g = loss_grad_weights(ssim_weight, *valid_elements, grad_scale);
  for (int ch = 0; ch < 3; ++ch) {
    stage_halo<3>(
        tid,
        [&](int r, int c) {
          const int yy = y0 + r, xx = x0 + c;
          MapValues<3> p{{0.f, 0.f, 0.f}};
          if (yy >= 0 && yy < H && xx >= 0 && xx < W) {
            const size_t e = (image + size_t(yy) * W + xx) * 3 + ch;
#pragma unroll
            for (int j = 0; j < 3; ++j) p.v[j] = partials[j * plane_stride + e];
          }
          return p;
        },
        [&](int r, int c, const MapValues<3>& p) {
#pragma unroll
          for (int j = 0; j < 3; ++j) ps[j][r][c] = p.v[j];
        });
    __syncthreads();
    horizontal_pass<3>(tid, w, [&](int r, int c) { return MapValues<3>{{ps[0][r][c], ps[1][r][c], ps[2][r][c]}}; },
                       hs);
    __syncthreads();
    float f[3];
    vertical_pass<3>(w, hs, ty, tx, f);
    if (gx < W && gy < H) {
      const size_t pixel = image + size_t(gy) * W + gx, e = pixel * 3 + ch;
      // dp~/dpred is the mask: an ignored pixel's prediction does not reach the loss.
      grad[e] = pixel_valid(mask, pixel) ? loss_grad_element(pred[e], target[e], f[0], f[1], f[2], g) : 0.f;
    }
    __syncthreads();  // the next channel overwrites ps and hs
  }
}

// Enqueues the forward kernel and the per-image reduction into `sums` [C].
template <bool kMetric>
void enqueue_image_sums(const float* pred, TargetImages target, const uint8_t* mask, const ImageBatchShape& shape,
                        float* partials, Buffer<float4>& block_sums, Buffer<ImageSums>& sums, cudaStream_t stream) {
  validate(shape);
  const TileGrid t = tile_grid(shape);
  ensure_size(block_sums, size_t(t.blocks_per_image) * shape.cameras);
  ensure_size(sums, size_t(shape.cameras));
  const auto kernel = mask ? ssim_forward_kernel<kMetric, true> : ssim_forward_kernel<kMetric, false>;
  kernel<<<t.grid, t.block, 0, stream>>>(pred, target, mask, shape.height, shape.width, partials, shape.elements(),
                                         block_sums.data(), window_taps());
  image_sums_kernel<<<shape.cameras, kReduceThreads, 0, stream>>>(block_sums.data(), t.blocks_per_image,
                                                                  sums.data());
  cuda::check_launch("loss: SSIM forward");
}

class CudaPhotometricLoss final : public PhotometricLoss {
 public:
  CudaPhotometricLoss(const ComputeContext& where, float ssim_weight)
      : where_(where),
        weight_(ssim_weight),
        stream_(static_cast<cudaStream_t>(where.stream)),
        partials_(where),
        block_sums_(where),
        sums_(where),
        loss_(where, 1),
        valid_elements_(where, 1) {}
  ComputeContext context() const override { return where_; }

  void reserve(const ImageBatchShape& most) override {
    validate(most);
    const cuda::DeviceScope scope(where_.ordinal);
    ensure_size(partials_, 3 * size_t(most.elements()));
    ensure_size(block_sums_, size_t(tile_grid(most).blocks_per_image) * most.cameras);
    ensure_size(sums_, size_t(most.cameras));
  }

  void forward(const float* pred, TargetImages target, const ImageBatchShape& shape, const uint8_t* mask) override {
    validate(shape);
    const cuda::DeviceScope scope(where_.ordinal);
    pred_ = pred;
    target_ = target;
    mask_ = mask;
    shape_ = shape;
    ensure_size(partials_, 3 * size_t(shape.elements()));
    enqueue_image_sums<false>(pred, target, mask, shape, partials_.data(), block_sums_, sums_, stream_);
    loss_value_kernel<<<1, 1, 0, stream_>>>(sums_.data(), shape.cameras, weight_, loss_.data(),
                                            valid_elements_.data());
    cuda::check_launch("loss: value");
  }

  void backward(float* grad_pred, float grad_scale) override {
    if (!pred_) throw std::logic_error("PhotometricLoss::backward called before forward");
    const cuda::DeviceScope scope(where_.ordinal);
    const TileGrid t = tile_grid(shape_);
    // Used without a mask; with one the kernel forms the weights from the device count.
    const LossGradWeights<float> g = loss_grad_weights(weight_, float(shape_.elements()), grad_scale);
    const auto kernel = mask_ ? loss_backward_kernel<true> : loss_backward_kernel<false>;
    kernel<<<t.grid, t.block, 0, stream_>>>(pred_, target_, mask_, partials_.data(), shape_.elements(), shape_.height,
                                           shape_.width, g, weight_, grad_scale, valid_elements_.data(), grad_pred,
                                           window_taps());
    cuda::check_launch("loss: backward");
  }

  const float* loss_scalar() const override { return loss_.data(); }
  float read_loss() const override {
    float v = 0;
    copy_to_host(&v, loss_.data(), where_, sizeof(float), "reading a loss");
    return v;
  }

 private:
  ComputeContext where_;
  float weight_;
  cudaStream_t stream_;
  const float* pred_ = nullptr;
  TargetImages target_{static_cast<const float*>(nullptr)};
  const uint8_t* mask_ = nullptr;
  ImageBatchShape shape_;
  Buffer<float> partials_;
  Buffer<float4> block_sums_;
  Buffer<ImageSums> sums_;
  Buffer<float> loss_;
  Buffer<float> valid_elements_;
};

}  // namespace

std::unique_ptr<PhotometricLoss> make_cuda_photometric_loss(const ComputeContext& where, float ssim_weight) {
  if (where.device != Device::CUDA) throw std::invalid_argument("make_cuda_photometric_loss: not a CUDA context");
  return std::make_unique<CudaPhotometricLoss>(where, ssim_weight);
}

// The device-agnostic entry points live in this file because it sees both backends.
std::unique_ptr<PhotometricLoss> make_photometric_loss(const ComputeContext& where, float ssim_weight) {
  if (where.device == Device::CPU) return make_cpu_photometric_loss(ssim_weight);
  return make_cuda_photometric_loss(where, ssim_weight);
}

void add_weighted_loss(const ComputeContext& where, const float* value, float weight, bool first, float* total) {
  if (where.device == Device::CPU) return add_weighted_loss_reference(value, weight, first, total);
  const cuda::DeviceScope scope(where.ordinal);
  add_weighted_loss_kernel<<<1, 1, 0, static_cast<cudaStream_t>(where.stream)>>>(value, weight, first, total);
  cuda::check_launch("loss: weighted sum");
}

std::vector<ImageMetrics> image_metrics(const ComputeContext& where, const float* pred, TargetImages target,
                                        const ImageBatchShape& shape, const uint8_t* mask) {
  // The sums end on `where` on both backends, so that reading them is the same counted host wait.
  Buffer<ImageSums> device_sums(where);
  Buffer<float4> block_sums(where);  // CUDA's partial sums: alive until the sums are read
  if (where.device == Device::CPU) {
    const std::vector<ImageSums> s = image_sums_reference<float>(pred, target, shape, true, nullptr, mask);
    device_sums.resize(s.size());
    std::copy(s.begin(), s.end(), device_sums.data());
  } else {
    const cuda::DeviceScope scope(where.ordinal);
    enqueue_image_sums<true>(pred, target, mask, shape, nullptr, block_sums, device_sums,
                             static_cast<cudaStream_t>(where.stream));
  }
  const std::vector<ImageSums> sums = device_sums.download();
  std::vector<ImageMetrics> out(sums.size());
  for (size_t c = 0; c < sums.size(); ++c) {
    if (sums[c].valid == 0)
      throw std::invalid_argument("image metrics: image " + std::to_string(c) + " of the batch has no valid pixel " +
                                  "(its mask is all zero), so it has no PSNR or SSIM");
    const double count = 3.0 * sums[c].valid;
    out[c] = {psnr_from_mse(sums[c].sq_diff / count), sums[c].ssim / count};
  }
  return out;
}

}  // namespace splat::kernels
