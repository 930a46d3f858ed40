#include "core/train/batch_draw.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "kernels/camera_blocks_math.h"

namespace splat {

bool hold_own_photos(PhotoPlacement placement, int ranks, int64_t photo_bytes, std::optional<size_t> device_bytes) {
  if (placement != PhotoPlacement::Auto) return placement == PhotoPlacement::Own;
  return ranks > 1 && device_bytes && double(photo_bytes) > kTightPhotoShare * double(*device_bytes);
}

std::vector<std::vector<int>> dealt_views(std::span<const int> train, int ranks, int batch) {
  // Each view in turn goes to the rank furthest behind its share (its block's cameras over the batch),
  // the lower rank on a tie: every share within one view of its size, the shares interleaved.
  std::vector<double> share(static_cast<size_t>(ranks));
  for (int r = 0; r < ranks; ++r) share[size_t(r)] = double(kernels::block_cameras(r, batch, ranks)) / batch;
  std::vector<std::vector<int>> dealt(static_cast<size_t>(ranks));
  for (size_t k = 0; k < train.size(); ++k) {
    size_t to = 0;
    double most = -1e300;
    for (size_t r = 0; r < size_t(ranks); ++r) {
      const double behind = double(k + 1) * share[r] - double(dealt[r].size());
      if (behind > most) most = behind, to = r;
    }
    dealt[to].push_back(train[k]);
  }
  return dealt;
}

// ---- CameraSampler ----

CameraSampler::CameraSampler(std::vector<int> pool, uint64_t seed) : pool_(std::move(pool)), rng_(seed) {
  if (pool_.empty()) throw std::invalid_argument("no training cameras: the scene has no train views");
  reshuffle();
}

void CameraSampler::reshuffle() {
  order_ = pool_;
  std::shuffle(order_.begin(), order_.end(), rng_);
  pos_ = 0;
}

std::vector<int> CameraSampler::next(int count) {
  std::vector<int> out;
  out.reserve(count);
  while (int(out.size()) < count) {
    if (pos_ == order_.size()) reshuffle();
    out.push_back(order_[pos_++]);
  }
  return out;
}

nlohmann::json CameraSampler::state() const {
  return {{"rng", rng_to_string(rng_)}, {"order", order_}, {"pos", pos_}};
}

void CameraSampler::load_state(const nlohmann::json& s) {
  std::vector<int> order = s.at("order").get<std::vector<int>>();
  const size_t pos = s.at("pos").get<size_t>();
  std::vector<int> a = order, b = pool_;
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  if (a != b || pos > order.size())
    throw std::runtime_error("camera sampler state does not match this scene's training views");
  rng_ = rng_from_string(s.at("rng").get<std::string>(), "camera sampler state");
  order_ = std::move(order);
  pos_ = pos;
}

// ---- BatchDraw ----

BatchDraw::BatchDraw(std::span<const int> train, int ranks, bool own, uint64_t seed, int batch)
    : train_(train.begin(), train.end()), ranks_(ranks), own_(own && ranks > 1), seed_(seed) {
  if (!own_) {
    samplers_.emplace_back(train_, seed);
    return;
  }
  if (train_.size() < size_t(ranks))
    throw std::invalid_argument("own photos per rank: " + std::to_string(train_.size()) + " training view(s) for " +
                                std::to_string(ranks) + " ranks; every rank needs one of its own");
  deal(batch);
}

bool BatchDraw::deal(int batch) {
  if (!own_ || batch == dealt_for_) return false;
  if (batch < ranks_)
    throw std::invalid_argument("own photos per rank: a batch of " + std::to_string(batch) + " for " +
                                std::to_string(ranks_) + " ranks");
  // A deal that gives every rank the same views keeps its samplers.
  std::vector<std::vector<int>> owned = dealt_views(train_, ranks_, batch);
  dealt_for_ = batch;
  if (owned == owned_) return false;
  owned_ = std::move(owned);
  samplers_.clear();
  for (int r = 0; r < ranks_; ++r) {
    if (owned_[size_t(r)].empty())
      throw std::invalid_argument("own photos per rank: " + std::to_string(train_.size()) + " training view(s) leave rank " +
                                  std::to_string(r) + " none at batch size " + std::to_string(batch));
    samplers_.emplace_back(owned_[size_t(r)], seed_ + 0x9e3779b97f4a7c15ull * uint64_t(r + 1) + uint64_t(batch));
  }
  return true;
}

std::vector<int> BatchDraw::next(int batch) {
  if (!own_) return samplers_[0].next(batch);
  std::vector<int> views;
  views.reserve(size_t(batch));
  for (int r = 0; r < ranks_; ++r) {
    for (int v : samplers_[size_t(r)].next(kernels::block_cameras(r, batch, ranks_))) views.push_back(v);
  }
  return views;
}

void group_blocks_by_size(std::vector<int>& views, int ranks, const std::function<int64_t(int view)>& size_key) {
  const int B = int(views.size());
  if (ranks < 1) return;
  for (int q = 0; q < ranks; ++q) {
    const auto first = views.begin() + kernels::block_first_camera(q, B, ranks);
    const auto last = views.begin() + kernels::block_first_camera(q + 1, B, ranks);
    std::stable_sort(first, last, [&](int a, int b) { return size_key(a) < size_key(b); });
  }
}

nlohmann::json BatchDraw::state() const {
  if (!own_) return samplers_[0].state();
  nlohmann::json per_rank = nlohmann::json::array();
  for (const CameraSampler& s : samplers_) per_rank.push_back(s.state());
  return {{"per_rank", per_rank}, {"dealt_for", dealt_for_}};
}

void BatchDraw::load_state(const nlohmann::json& s) {
  const bool drawn_own = s.contains("per_rank");
  if (drawn_own != own_ ||
      (own_ && (s.at("per_rank").size() != samplers_.size() || s.value("dealt_for", 0) != dealt_for_)))
    return;
  if (!own_) return samplers_[0].load_state(s);
  for (size_t r = 0; r < samplers_.size(); ++r) samplers_[r].load_state(s.at("per_rank")[r]);
}

}  // namespace splat
