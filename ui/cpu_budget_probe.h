#pragma once
// The GUI's side of core/train/cpu_budget.h: when a scene opens for CPU training, measures the
// rasterizer's speed on it off the GUI thread and hands the proposal (data factor, image budget) to the
// Training panel once, which applies it and keeps the line that says why. A scene is measured once per
// source: opening it again at the proposed factor, or the user choosing another, proposes nothing new,
// so what the user sets stays. Destroying a probe waits for its measurement (seconds at most). No GL or
// ImGui here.
#include <future>
#include <optional>
#include <string>
#include <vector>

#include "core/train/cpu_budget.h"
#include "ui/viewer_content.h"

namespace splat::ui {

class CpuBudgetProbe {
 public:
  // Data factors measured for a capture (the demo loads at its own size only).
  static constexpr int kFactors[] = {1, 2, 4, 8};

  // Call once a frame. `wanted`: the content would train on the CPU with the GUI's defaults (no
  // session, no run folder's own settings, no budget from the command line). Starts a measurement
  // for content not measured yet, and returns a finished measurement's proposal once (images > 0).
  std::optional<BudgetProposal> poll(const ViewerContent& content, bool wanted);
  bool measuring() const { return pending_.valid(); }
  // What was proposed and why ("proposed for ~10 min on the CPU: ..."); empty before a proposal.
  const std::string& note() const { return note_; }
  BudgetGoal goal;

 private:
  std::string measured_;     // the source measured last (a new one is measured again)
  int measured_factor_ = 1;  // the data factor it was open at
  std::future<std::vector<FactorSpeed>> pending_;
  std::string note_;
};

}  // namespace splat::ui
