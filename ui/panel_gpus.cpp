// The per-GPU panel: what the viewer costs training (images/s against the viewport's render time
// per second), then one block per rank of the training session, from each rank's figures of
// its last step (TrainingSession::rank_stats): its device, its shard's Gaussians (a bar against the
// largest shard), device memory, step time, time waiting on the exchanges and bytes exchanged; and the
// imbalance (max / mean) of the Gaussians and of the step times. Beside the viewer's price, the snapshot
// cadence: how often training publishes the model and what each publication costs it.
#include <imgui.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#include "ui/panels.h"
#include "ui/rank_figures.h"

namespace splat::ui {
namespace {
// "1.23 GB", "45.6 kB", "789 B": bytes in a narrow column.
void format_bytes(char* out, size_t n, double v) {
  if (v >= 1e9) std::snprintf(out, n, "%.2f GB", v / 1e9);
  else if (v >= 1e6) std::snprintf(out, n, "%.2f MB", v / 1e6);
  else if (v >= 1e3) std::snprintf(out, n, "%.1f kB", v / 1e3);
  else std::snprintf(out, n, "%.0f B", v);
}

void draw_rank(const sharded::RankStats& r, int64_t largest) {
  char device[24], overlay[96], bytes[32];
  if (r.device_ordinal >= 0) std::snprintf(device, sizeof device, "GPU %d", r.device_ordinal);
  else std::snprintf(device, sizeof device, "CPU");
  std::snprintf(overlay, sizeof overlay, "rank %d, %s: %lld Gaussians", r.rank, device,
                static_cast<long long>(r.gaussians));
  const float share = largest > 0 ? float(double(r.gaussians) / double(largest)) : 0.f;
  ImGui::ProgressBar(share, ImVec2(-1, 0), overlay);
  format_bytes(bytes, sizeof bytes, double(r.bytes_sent + r.bytes_received));
  ImGui::TextDisabled("  step %.1f ms, wait %.1f ms, %s/step", r.step_ms, r.exchange_wait_ms, bytes);
  if (r.device_ordinal >= 0) {
    ImGui::SameLine();
    ImGui::TextDisabled(", %.0f MB", r.device_memory_mb);
  }
}

void draw_price(const ViewerState& state, const TrainingController& training) {
  const bool gpu = state.raster.device() == kernels::Device::CUDA;
  if (training.state() == SessionState::Running)
    ImGui::Text("training: %.1f images/s", training.history.images_per_s);
  else
    ImGui::TextDisabled("training: not running");
  ImGui::Text("viewer: %.1f %s ms/s", state.render_cost.ms_per_s(RenderCost::Clock::now()), gpu ? "GPU" : "CPU");
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("time the viewport spent rendering over the last second, taken from training\n"
                      "(View panel: Viewer fps cap, Pause view while training)");
  const TrainingSession::SnapshotPace pace = training.snapshot_pace();
  if (training.state() != SessionState::Running || pace.interval_ms <= 0) return;
  ImGui::Text("snapshots: every %.0f ms, %.2f ms each", pace.interval_ms, pace.cost_ms);
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("how often training publishes the model to the viewer and what each copy costs it:\n"
                      "as often as keeps that cost within %.0f %% of training time, from every %lld ms\n"
                      "to every %lld ms",
                      100 * SnapshotCadence::kTrainingShare, static_cast<long long>(SnapshotCadence::kMinInterval.count()),
                      static_cast<long long>(SnapshotCadence::kMaxInterval.count()));
}
}  // namespace

void draw_gpus_panel(const ViewerState& state, const TrainingController& training) {
  if (!ImGui::CollapsingHeader("GPUs", ImGuiTreeNodeFlags_DefaultOpen)) return;
  draw_price(state, training);
  const std::vector<sharded::RankStats>& ranks = training.rank_stats();
  if (!ranks_reported(ranks)) {
    // An opened run's session before its first step: the run's recorded figures, not zeros.
    for (const sharded::RankStats& r : ranks) ImGui::TextDisabled("rank %d: -", r.rank);
    if (training.history.gaussians > 0)
      ImGui::TextDisabled("%lld Gaussians recorded", static_cast<long long>(training.history.gaussians));
    ImGui::TextDisabled("per-rank figures appear while training");
    return;
  }
  int64_t largest = 0;
  std::vector<double> gaussians, step_ms;
  for (const sharded::RankStats& r : ranks) {
    largest = std::max(largest, r.gaussians);
    gaussians.push_back(double(r.gaussians));
    step_ms.push_back(r.step_ms);
  }
  for (const sharded::RankStats& r : ranks) draw_rank(r, largest);
  ImGui::TextWrapped("imbalance (max/mean): Gaussians %.2f, step time %.2f", sharded::imbalance(gaussians),
                     sharded::imbalance(step_ms));
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("1.00 is perfectly balanced: the slowest rank sets the pace of every step");
}

}  // namespace splat::ui
