#include "ui/cpu_budget_probe.h"

#include <chrono>

namespace splat::ui {

std::optional<BudgetProposal> CpuBudgetProbe::poll(const ViewerContent& content, bool wanted) {
  if (pending_.valid()) {
    if (pending_.wait_for(std::chrono::seconds(0)) != std::future_status::ready) return std::nullopt;
    std::vector<FactorSpeed> speeds;
    try {
      speeds = pending_.get();
    } catch (const std::exception&) {
      return std::nullopt;  // no proposal: the defaults stay, and training reports its own errors
    }
    // Meanwhile the user may have started training, chosen a data factor, or opened something else:
    // that needs no proposal (or its own, measured at the next call).
    if (!wanted || content.source != measured_ || content.data_factor != measured_factor_) {
      if (content.source != measured_) measured_.clear();
      return std::nullopt;
    }
    const BudgetProposal p = propose_budget(speeds, goal);
    if (p.images <= 0) return std::nullopt;
    note_ = describe(p, goal.seconds);
    return p;
  }
  if (!wanted || !content.scene || !content.model || content.source == measured_) return std::nullopt;
  measured_ = content.source;
  measured_factor_ = content.data_factor;
  note_.clear();
  std::vector<int> factors;
  if (content.demo) factors = {content.data_factor};  // generated small: never loaded at another factor
  else factors.assign(std::begin(kFactors), std::end(kFactors));
  // The shared pointers keep the scene and the Gaussians alive for the worker whatever opens next.
  pending_ = std::async(std::launch::async, [scene = content.scene, model = content.model,
                                             loaded = content.data_factor, factors] {
    return measure_cpu_speeds(*model, *scene, loaded, factors);
  });
  return std::nullopt;
}

}  // namespace splat::ui
