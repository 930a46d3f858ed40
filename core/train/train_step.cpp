#include "core/train/train_step.h"

namespace splat {

StepRows step_rows(DeviceGaussians& g, bool stats) {
  return {g.view(), [&g](GradWrite how) { return g.grad(how); }, stats ? g.stats() : kernels::DensifyStats{}};
}

std::vector<size_t> size_run_ends(std::span<const kernels::Camera> cameras) {
  std::vector<size_t> ends;
  for (size_t k = 1; k <= cameras.size(); ++k)
    if (k == cameras.size() || cameras[k].width != cameras[k - 1].width || cameras[k].height != cameras[k - 1].height)
      ends.push_back(k);
  return ends;
}

}  // namespace splat
