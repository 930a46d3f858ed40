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

  // settings.packed chooses the layout of the projected pairs (all pairs, or the visible ones);
  // images and gradients are the same either way.
  void forward(const GaussiansView& g, std::span<const Camera> cameras, const RasterSettings& settings,
               const RenderOutputs& out) override {
    ref_.forward(g, cameras, settings, out);
  }
  void backward(const RenderOutputGrads& dout, const GaussiansGrad& grad, const DensifyStats& stats) override {
    ref_.backward(dout, grad, stats);
  }
  ProjectedGaussians project(const GaussiansView& g, std::span<const Camera> cameras,
                             const RasterSettings& settings,
                             std::span<const PairDestination> destinations = {}) override {
    return ref_.project(g, cameras, settings, destinations);
  }
  void project_backward(const ConstProjectedGrads& d, const GaussiansGrad& grad, const DensifyStats& stats) override {
    ref_.project_backward(d, grad, stats);
  }
  void project_backward_by_camera(std::span<const ConstProjectedGrads> sources, const GaussiansGrad& grad,
                                  const DensifyStats& stats) override {
    ref_.project_backward_by_camera(sources, grad, stats);
  }
  void rasterize(const ProjectedGaussians& pairs, std::span<const Camera> cameras, int first_camera,
                 const RasterSettings& settings, const RenderOutputs& out) override {
    ref_.rasterize(pairs, cameras, first_camera, settings, out);
  }
  void rasterize_backward(const RenderOutputGrads& dout, const ProjectedGrads& d, bool abs_sums) override {
    ref_.rasterize_backward(dout, d, abs_sums);
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
