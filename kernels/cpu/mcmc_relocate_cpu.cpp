// CPU reference of MCMC's relocation (kernels/mcmc_relocate.h): row loops over the shared bodies.
#include <algorithm>

#include "kernels/mcmc_relocate.h"

namespace splat::kernels {

McmcLiving mcmc_weigh_reference(const float* opacity_logits, int64_t n, float min_opacity, uint64_t* cum, int32_t* dead) {
  McmcLiving out;
  for (int64_t r = 0; r < n; ++r) {
    const uint64_t w = mcmc_weight(opacity_logits[r], min_opacity);
    out.total += w;
    cum[r] = out.total;
    if (w == 0) dead[out.dead++] = int32_t(r);
  }
  return out;
}

void mcmc_draw_sources_reference(const uint64_t* cum, int64_t n, uint64_t total, uint64_t key, int64_t m,
                                 int32_t* sources, int32_t* copies) {
  std::fill(copies, copies + n, 0);
  for (int64_t k = 0; k < m; ++k) {
    sources[k] = int32_t(mcmc_drawn_row(cum, n, mcmc_draw(key, uint64_t(k), total)));
    ++copies[sources[k]];
  }
}

void mcmc_correct_sources_reference(const int32_t* copies, int64_t n, float min_opacity, float* opacity_logits,
                                    float* log_scales) {
  for (int64_t r = 0; r < n; ++r)
    if (copies[r] > 0) mcmc_correct(opacity_logits + r, log_scales + 3 * r, copies[r], min_opacity);
}

void mcmc_copy_lists_reference(int64_t n, const int32_t* targets, const int32_t* sources, int64_t m,
                               const int32_t* copies, int32_t* params, int32_t* moments) {
  for (int64_t r = 0; r < n; ++r) params[r] = int32_t(r), moments[r] = copies[r] > 0 ? -1 : int32_t(r);
  for (int64_t k = 0; k < m; ++k) {
    const int64_t at = targets ? targets[k] : n + k;
    params[at] = sources[k];
    moments[at] = -1;
  }
}

}  // namespace splat::kernels
