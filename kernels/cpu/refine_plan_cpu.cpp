// CPU reference of the device-planned refinement (kernels/refine_plan.h): row loops over the shared
// per-row bodies, and the growth room by a stable sort, as the CUDA backend's radix sort orders it.
#include <algorithm>
#include <numeric>
#include <vector>

#include "kernels/refine_plan.h"

namespace splat::kernels {

void refine_codes_reference(const RefineColumns& in, const RefineRule& rule, int64_t room, uint8_t* code) {
  const int64_t n = in.rows;
  std::vector<uint8_t> grows(static_cast<size_t>(n), 0);
  if (room < 0) {
    for (int64_t r = 0; r < n; ++r) grows[size_t(r)] = refine_candidate(rule, in.grad_sum[r], in.visible_count[r]);
  } else {
    std::vector<uint32_t> key(static_cast<size_t>(n));
    for (int64_t r = 0; r < n; ++r) key[size_t(r)] = refine_room_key(rule, in.grad_sum[r], in.visible_count[r]);
    std::vector<int64_t> order(static_cast<size_t>(n));
    std::iota(order.begin(), order.end(), int64_t(0));
    std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return key[size_t(a)] > key[size_t(b)]; });
    for (int64_t i = 0; i < std::min(room, n); ++i)
      if (key[size_t(order[size_t(i)])] != 0) grows[size_t(order[size_t(i)])] = 1;
  }
  for (int64_t r = 0; r < n; ++r)
    code[r] = refine_code(rule, grows[size_t(r)] != 0, in.opacity_logits[r], in.log_scales + 3 * r,
                          in.max_radius ? in.max_radius + r : nullptr);
}

RefineCounts refine_places_reference(const uint8_t* code, int64_t n, int32_t* at) {
  int64_t sum[3] = {0, 0, 0};
  const uint8_t bit[3] = {kRefineKeepOld, kRefineKeepClone, kRefineKeepSecond};
  for (int k = 0; k < 3; ++k)
    for (int64_t r = 0; r < n; ++r) {
      at[k * n + r] = int32_t(sum[k]);
      sum[k] += (code[r] & bit[k]) != 0;
    }
  return {sum[0], sum[1], sum[2]};
}

void refine_sources_reference(const uint8_t* code, const int32_t* at, int64_t n, const RefineCounts& counts,
                              int32_t* params, int32_t* moments) {
  for (int64_t r = 0; r < n; ++r) {
    const RefinePlaces p = refine_places(at, r, n, counts.kept_old, counts.kept_clones);
    const int32_t row = int32_t(r);
    if (code[r] & kRefineKeepOld) params[p.own] = row, moments[p.own] = (code[r] & kRefineSplit) ? -1 : row;
    if (code[r] & kRefineKeepClone) params[p.clone] = row, moments[p.clone] = -1;
    if (code[r] & kRefineKeepSecond) params[p.second] = row, moments[p.second] = -1;
  }
}

void refine_grown_rows_reference(const uint8_t* code, const int32_t* at, int64_t n, const RefineCounts& counts,
                                 const RefineGrown& grown) {
  for (int64_t r = 0; r < n; ++r)
    refine_grown_row(code[r], refine_places(at, r, n, counts.kept_old, counts.kept_clones), r, grown);
}

}  // namespace splat::kernels
