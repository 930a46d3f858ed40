// The CPU backend of the Rasterizer interface: the float instantiation of the reference
// rasterizer (kernels/cpu/raster_reference.h).
#include <thread>

#include "kernels/cpu/raster_reference.h"
#include "kernels/rasterizer.h"

namespace splat::kernels {
namespace {

class CpuRasterizer final : public Rasterizer {
 public:
  explicit CpuRasterizer(int threads) : ref_(threads) {}

  ComputeContext context() const override { return Device::CPU; }

  // settings.packed is a memory layout choice of the CUDA backend (compacted visible pairs
  // instead of dense [C, N] arrays); it does not change the images or gradients, so the CPU
  // reference always uses the dense layout and ignores it.
  void forward(const GaussiansView& g, std::span<const Camera> cameras, const RasterSettings& settings,
               const RenderOutputs& out) override {
    ref_.forward({g.n, g.means, g.quats, g.log_scales, g.opacity_logits, g.sh_dc, g.sh_rest, g.sh_rest_coeffs},
                 cameras, settings, {out.rgb, out.alpha, out.depth});
  }

  void backward(const RenderOutputGrads& dout, const GaussiansGrad& grad, const DensifyStats& stats) override {
    ref_.backward({dout.rgb, dout.alpha, dout.depth},
                  {grad.means, grad.quats, grad.log_scales, grad.opacity_logits, grad.sh_dc, grad.sh_rest},
                  {stats.grad2d_norm, stats.grad2d_abs_norm, stats.visible_count, stats.max_radius});
  }

 private:
  cpu::ReferenceRasterizer<float> ref_;
};

}  // namespace

std::unique_ptr<Rasterizer> make_cpu_rasterizer(int threads) {
  if (threads <= 0) threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  return std::make_unique<CpuRasterizer>(threads);
}

}  // namespace splat::kernels
