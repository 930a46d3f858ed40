#pragma once
// A default-strategy refinement (clone, split, prune) planned on the device that holds the model: the
// rules read a million rows' opacities, log scales and statistics, and moving those to the host and the
// plan back cost more than everything else a refinement does. Here each row gets a code (what grows, how,
// and which of its places survive pruning; kernels/refine_plan_math.h), prefix counts place the survivors,
// and the source lists of the model's one gather (core/model/device_gaussians.h) are written where the
// model is. The host reads three counts (the new row count: one wait per refinement).
//
// The new model's rows: every kept old row in order (a split row replaced by its first half), then the
// kept clones in row order, then the kept second halves in row order; clones and halves start with zero
// moments. Split halves are drawn from counter-based normals keyed by (key, global id, half), so the plan
// is a function of its inputs alone, the same on the CPU and the GPU.
#include <cstdint>

#include "kernels/device_context.h"
#include "kernels/refine_plan_math.h"

namespace splat::kernels {

// The columns the rules read, n rows each, on the plan's device.
struct RefineColumns {
  const float* opacity_logits = nullptr;  // n
  const float* log_scales = nullptr;      // 3n
  const float* grad_sum = nullptr;        // n: the summed 2D gradient norm the rule reads
  const int32_t* visible_count = nullptr; // n
  const float* max_radius = nullptr;      // n, or null when sizes are not checked
  int64_t rows = 0;
};

struct RefineCounts {
  int64_t kept_old = 0, kept_clones = 0, kept_seconds = 0;
  int64_t rows() const { return kept_old + kept_clones + kept_seconds; }
};

// code[r] for every row (RefineBit). room >= 0: at most `room` rows grow, those with the largest mean
// gradient (ties: the lower row); negative: no limit.
void refine_codes(const ComputeContext& where, const RefineColumns& in, const RefineRule& rule, int64_t room,
                  uint8_t* code);
// at[0..3n): for each keep bit (old, clone, second), its exclusive prefix count over the rows; returns the
// totals (read on the host).
RefineCounts refine_places(const ComputeContext& where, const uint8_t* code, int64_t n, int32_t* at);
// The gather's source lists, counts.rows() entries each: params[i] is the old row that new row i copies,
// moments[i] the same or -1 (zero moments: clones, halves).
void refine_sources(const ComputeContext& where, const uint8_t* code, const int32_t* at, int64_t n,
                    const RefineCounts& counts, int32_t* params, int32_t* moments);
// Writes what growth changes in the gathered model, in place (refine_grown_row: the split halves, and
// the revised opacities where asked).
void refine_grown_rows(const ComputeContext& where, const uint8_t* code, const int32_t* at, int64_t n,
                       const RefineCounts& counts, const RefineGrown& grown);

// CPU references (the entry points above call these for Device::CPU).
void refine_codes_reference(const RefineColumns& in, const RefineRule& rule, int64_t room, uint8_t* code);
RefineCounts refine_places_reference(const uint8_t* code, int64_t n, int32_t* at);
void refine_sources_reference(const uint8_t* code, const int32_t* at, int64_t n, const RefineCounts& counts,
                              int32_t* params, int32_t* moments);
void refine_grown_rows_reference(const uint8_t* code, const int32_t* at, int64_t n, const RefineCounts& counts,
                                 const RefineGrown& grown);

}  // namespace splat::kernels
