#include "ui/step_share.h"

#include <algorithm>

namespace splat::ui {

const char* step_part_name(StepPart part) {
  switch (part) {
    case StepPart::RenderForward: return "render forward";
    case StepPart::Loss: return "loss";
    case StepPart::RenderBackward: return "render backward";
    case StepPart::Adam: return "Adam";
    case StepPart::Strategy: return "strategy";
    case StepPart::Other: return "other";
  }
  return "?";
}

StepPart step_part_of(const std::string& phase) {
  const auto starts = [&](const char* prefix) { return phase.rfind(prefix, 0) == 0; };
  if (starts("render forward")) return StepPart::RenderForward;
  if (starts("loss")) return StepPart::Loss;
  if (starts("render backward")) return StepPart::RenderBackward;
  if (starts("adam")) return StepPart::Adam;
  if (starts("strategy")) return StepPart::Strategy;
  return StepPart::Other;
}

std::optional<StepShare> step_share(const kernels::PhaseTotals& before, const kernels::PhaseTotals& now) {
  const auto& cur = now.phases();
  if (cur.empty()) return std::nullopt;
  // Phases keep their first-seen order, so `before` of the same run is a prefix of `now` by name;
  // a smaller count means the totals were restarted in between.
  const auto& old = before.phases();
  bool same_run = old.size() <= cur.size();
  for (size_t i = 0; same_run && i < old.size(); ++i)
    same_run = old[i].name == cur[i].name && old[i].count <= cur[i].count;
  const auto old_of = [&](size_t i) { return same_run && i < old.size() ? &old[i] : nullptr; };

  StepShare s;
  // The first phase is marked once per step (the step's first mark), so its count is the steps.
  s.steps = cur[0].count - (old_of(0) ? old_of(0)->count : 0);
  if (s.steps <= 0) return std::nullopt;
  double total = 0;
  for (size_t i = 0; i < cur.size(); ++i) {
    const double ms = std::max(0.0, cur[i].total_ms - (old_of(i) ? old_of(i)->total_ms : 0.0));
    s.fraction[static_cast<int>(step_part_of(cur[i].name))] += ms;
    total += ms;
  }
  if (total <= 0) return std::nullopt;
  for (double& f : s.fraction) f /= total;
  s.ms_per_step = total / double(s.steps);
  return s;
}

}  // namespace splat::ui
