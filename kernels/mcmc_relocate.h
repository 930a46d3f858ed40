#pragma once
// MCMC's relocation where the model lives (core/train/strategy_mcmc.h decides when): target rows (the
// dead ones, or rows to append) each become a copy of a live row drawn with probability proportional to
// its opacity; every drawn source and its copies get the opacity and scale correction for their number
// of copies (kernels/mcmc_math.h), and their moments start again at zero. The draws are counter-based
// and the weights integers, so the plan is a function of its inputs alone, the same on the CPU and the
// GPU; the host reads two numbers (how many rows are dead, and whether any weight is left).
#include <cstdint>

#include "kernels/device_context.h"
#include "kernels/mcmc_math.h"

namespace splat::kernels {

struct McmcLiving {
  int64_t dead = 0;    // rows at or below the minimum opacity
  uint64_t total = 0;  // the live rows' summed weights (mcmc_weight)
};

// cum[i]: the inclusive sum of the first i + 1 rows' weights; dead: the dead rows, ascending (n entries of
// room). Returns both counts, read on the host.
McmcLiving mcmc_weigh(const ComputeContext& where, const float* opacity_logits, int64_t n, float min_opacity,
                      uint64_t* cum, int32_t* dead);
// m draws keyed by `key` (total > 0): sources[k] is the row of draw k; copies[r] (n entries, zeroed here)
// counts the draws of row r.
void mcmc_draw_sources(const ComputeContext& where, const uint64_t* cum, int64_t n, uint64_t total, uint64_t key,
                       int64_t m, int32_t* sources, int32_t* copies);
// Every row with copies[r] > 0 corrected in place (mcmc_correct).
void mcmc_correct_sources(const ComputeContext& where, const int32_t* copies, int64_t n, float min_opacity,
                          float* opacity_logits, float* log_scales);
// The gather's lists (DeviceGaussians::gather_rows_on_device): every row stays (params[i] = i), then row
// targets[k] becomes a copy of sources[k] (targets null: row n + k is appended as that copy, so the
// lists hold n + m rows); the moments of every target and drawn source are zeroed (-1).
void mcmc_copy_lists(const ComputeContext& where, int64_t n, const int32_t* targets, const int32_t* sources, int64_t m,
                     const int32_t* copies, int32_t* params, int32_t* moments);

// CPU references (the entry points above call these for Device::CPU).
McmcLiving mcmc_weigh_reference(const float* opacity_logits, int64_t n, float min_opacity, uint64_t* cum, int32_t* dead);
void mcmc_draw_sources_reference(const uint64_t* cum, int64_t n, uint64_t total, uint64_t key, int64_t m,
                                 int32_t* sources, int32_t* copies);
void mcmc_correct_sources_reference(const int32_t* copies, int64_t n, float min_opacity, float* opacity_logits,
                                    float* log_scales);
void mcmc_copy_lists_reference(int64_t n, const int32_t* targets, const int32_t* sources, int64_t m,
                               const int32_t* copies, int32_t* params, int32_t* moments);

}  // namespace splat::kernels
