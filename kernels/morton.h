#pragma once
// Rows ordered along a Morton curve where the means live: the shards' layout keeps each rank's rows a
// compact region of space (core/model/shard_layout.h), and a rebalance re-sorts a shard before moving
// rows to its neighbours. On the device a shard of a million rows sorts in a few ms; on the host that
// sort held every rank for tens of ms.
#include <cstdint>

#include "kernels/device_context.h"
#include "kernels/morton_math.h"

namespace splat::kernels {

// The bounding box of n means (3 floats each) on `where`, read on the host; all zeros for none.
MortonBox bounding_box(const ComputeContext& where, const float* means, int64_t n);
// order[i] (n entries on `where`) = the row that sorts i-th by morton_code over `box`, ties by row.
void morton_order(const ComputeContext& where, const float* means, int64_t n, const MortonBox& box, int32_t* order);

// CPU references (the entry points above call these for Device::CPU).
MortonBox bounding_box_reference(const float* means, int64_t n);
void morton_order_reference(const float* means, int64_t n, const MortonBox& box, int32_t* order);

}  // namespace splat::kernels
