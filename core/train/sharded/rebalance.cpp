#include "core/train/sharded/rebalance.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <string>

#include "core/model/shard_layout.h"
#include "core/train/sharded/wait_balance.h"
#include "kernels/morton.h"

namespace splat::sharded {

std::vector<int64_t> balanced_counts(std::span<const int64_t> counts, std::span<const double> weights) {
  if (counts.size() != weights.size() || counts.empty())
    throw std::invalid_argument("balanced_counts: " + std::to_string(counts.size()) + " counts and " +
                                std::to_string(weights.size()) + " weights");
  const int64_t total = std::accumulate(counts.begin(), counts.end(), int64_t(0));
  double weight_sum = 0;
  for (double w : weights) {
    if (!(w > 0) || !std::isfinite(w)) throw std::invalid_argument("balanced_counts: a weight is not positive");
    weight_sum += w;
  }
  // Floors of the exact shares, then the remainder to the largest fractions (ties to the lower rank).
  std::vector<int64_t> out(counts.size());
  std::vector<std::pair<double, size_t>> fraction(counts.size());
  int64_t given = 0;
  for (size_t r = 0; r < counts.size(); ++r) {
    const double exact = double(total) * weights[r] / weight_sum;
    out[r] = static_cast<int64_t>(std::floor(exact));
    fraction[r] = {exact - double(out[r]), r};
    given += out[r];
  }
  std::stable_sort(fraction.begin(), fraction.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  for (size_t k = 0; given < total; ++k, ++given) ++out[fraction[k % fraction.size()].second];
  return out;
}

double imbalance(std::span<const int64_t> counts, std::span<const int64_t> targets) {
  double worst = 0;
  for (size_t r = 0; r < counts.size() && r < targets.size(); ++r) {
    const double off = std::abs(double(counts[r] - targets[r]));
    worst = std::max(worst, targets[r] > 0 ? off / double(targets[r]) : off);
  }
  return worst;
}

void rebalance(Communicator& comm, DeviceGaussians& g, std::span<const int64_t> targets) {
  const int R = comm.size(), me = comm.rank();
  if (static_cast<int>(targets.size()) != R)
    throw std::invalid_argument("rebalance: " + std::to_string(targets.size()) + " targets for " +
                                std::to_string(R) + " ranks");
  const std::vector<int64_t> counts = comm.all_gather_value(g.size());
  const int64_t total = std::accumulate(counts.begin(), counts.end(), int64_t(0));
  if (std::accumulate(targets.begin(), targets.end(), int64_t(0)) != total)
    throw std::invalid_argument("rebalance: the targets add up to " +
                                std::to_string(std::accumulate(targets.begin(), targets.end(), int64_t(0))) +
                                " rows, the shards hold " + std::to_string(total));
  // Global row ranges before ([old_first[r], +counts[r])) and after ([new_first[r], +targets[r])).
  std::vector<int64_t> old_first(R + 1, 0), new_first(R + 1, 0);
  for (int r = 0; r < R; ++r) old_first[r + 1] = old_first[r] + counts[r], new_first[r + 1] = new_first[r] + targets[r];
  // Rows this rank sends to rank q: its old range met with q's new range; receives likewise.
  auto overlap = [](int64_t a0, int64_t a1, int64_t b0, int64_t b1) {
    return std::pair{std::max(a0, b0), std::max(std::max(a0, b0), std::min(a1, b1))};
  };
  std::vector<int64_t> send_rows(R), send_at(R), recv_rows(R), recv_at(R);
  for (int q = 0; q < R; ++q) {
    const auto [s0, s1] = overlap(old_first[me], old_first[me + 1], new_first[q], new_first[q + 1]);
    send_rows[q] = s1 - s0, send_at[q] = s0 - old_first[me];
    const auto [r0, r1] = overlap(old_first[q], old_first[q + 1], new_first[me], new_first[me + 1]);
    recv_rows[q] = r1 - r0, recv_at[q] = r0 - new_first[me];
  }
  std::vector<int64_t> sc(R), so(R), rc(R), ro(R);
  g.replace_rows(targets[me], [&](const void* old, int64_t row_bytes, void* out) {
    for (int q = 0; q < R; ++q)
      sc[q] = send_rows[q] * row_bytes, so[q] = send_at[q] * row_bytes, rc[q] = recv_rows[q] * row_bytes,
      ro[q] = recv_at[q] * row_bytes;
    comm.all_to_all_v(old, {sc, so}, out, {rc, ro});
  });
}

namespace {

// The bounding box of every shard's means: each rank fills its slot with its own (`rows` rows), one
// sum gives every rank all.
Box shared_box(Communicator& comm, const Box& mine, int64_t my_rows) {
  const size_t R = size_t(comm.size()), r = size_t(comm.rank());
  std::vector<float> boxes(6 * R, 0.f);
  std::vector<int64_t> rows(R, 0);
  std::copy_n(mine.lo, 3, &boxes[6 * r]);
  std::copy_n(mine.hi, 3, &boxes[6 * r + 3]);
  rows[r] = my_rows;
  comm.all_reduce_sum(std::span<float>(boxes));
  comm.all_reduce_sum(std::span<int64_t>(rows));
  Box box;
  bool first = true;
  for (size_t q = 0; q < R; ++q) {
    if (rows[q] == 0) continue;  // an empty shard's zeros are no corner of the model
    for (int a = 0; a < 3; ++a) {
      box.lo[a] = first ? boxes[6 * q + size_t(a)] : std::min(box.lo[a], boxes[6 * q + size_t(a)]);
      box.hi[a] = first ? boxes[6 * q + 3 + size_t(a)] : std::max(box.hi[a], boxes[6 * q + 3 + size_t(a)]);
    }
    first = false;
  }
  return box;
}

}  // namespace

bool rebalance_if_uneven(Communicator& comm, DeviceGaussians& g, double threshold, const RankWindow& mine) {
  if (!(threshold > 0)) return false;
  // Every rank's row count and window in one sum: four values a rank, the times as whole nanoseconds.
  const size_t R = size_t(comm.size()), me = size_t(comm.rank());
  auto ns = [](double ms) { return std::isfinite(ms) && ms > 0 ? static_cast<int64_t>(std::llround(ms * 1e6)) : 0; };
  std::vector<int64_t> all(4 * R, 0);
  all[me] = g.size();
  all[R + me] = ns(mine.outside_ms);
  all[2 * R + me] = ns(mine.step_ms);
  all[3 * R + me] = std::max(mine.steps, 0);
  comm.all_reduce_sum(std::span<int64_t>(all));
  const std::vector<int64_t> counts(all.begin(), all.begin() + std::ptrdiff_t(R));
  std::vector<RankWindow> windows(R);
  for (size_t r = 0; r < R; ++r)
    windows[r] = {double(all[R + r]) * 1e-6, double(all[2 * R + r]) * 1e-6, int(all[3 * R + r])};
  const bool timed = std::all_of(windows.begin(), windows.end(), [](const RankWindow& w) { return w.steps > 0; });
  const std::vector<int64_t> targets = timed ? wait_balanced_counts(counts, windows)
                                             : balanced_counts(counts, std::vector<double>(counts.size(), 1.0));
  if (imbalance(counts, targets) <= threshold) return false;
  // The shard sorted where it lives, along the curve over the whole model's box (each shard's box read
  // on the host, then shared).
  const float* means = g.param(Group::Means).data();
  g.sort_along_curve(shared_box(comm, kernels::bounding_box(g.context(), means, g.size()), g.size()));
  rebalance(comm, g, targets);
  return true;
}

}  // namespace splat::sharded
