#pragma once
// Which training views a step draws, and which rank holds whose photos.
//
// By default every rank holds every training photo on its device and one shuffled-epoch sampler
// draws each batch; the ranks of a multi-GPU step render contiguous blocks of it
// (core/train/sharded/sharded_step.h), so any photo may be needed on any rank. Where the photos
// would take much of a GPU's memory, each rank holds only its own share instead
// (PhotoPlacement::Own): the training views are dealt out in proportion to the ranks' blocks of a
// batch, and rank r's block of every batch is drawn by a sampler of its own over its own views, so
// every view still comes equally often (a rank whose block is one image larger holds more views).
// Every rank draws every block alike (it projects for every camera of the batch) but keeps only its
// own photos. A new batch size deals the views again.
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/train/rng_state.h"

namespace splat {

enum class PhotoPlacement { Auto, Every, Own };
inline constexpr const char* kPhotoPlacementNames[] = {"auto", "every", "own"};

// Auto holds own photos where there are ranks and every training photo (and mask) would take more
// than this share of the device's memory on each rank (unknown memory, as on the CPU: every photo).
inline constexpr double kTightPhotoShare = 0.25;
bool hold_own_photos(PhotoPlacement placement, int ranks, int64_t photo_bytes, std::optional<size_t> device_bytes);

// The training views each of `ranks` ranks holds with own photos at batch size `batch` (>= ranks):
// shares sized like the ranks' blocks of a batch (kernels/camera_blocks_math.h), within one view, and
// interleaved along the capture.
std::vector<std::vector<int>> dealt_views(std::span<const int> train, int ranks, int batch);

// Shuffled epochs over a fixed list of camera indices; the whole state is (rng, order, position),
// so a restored sampler continues with exactly the same cameras.
class CameraSampler {
 public:
  CameraSampler(std::vector<int> pool, uint64_t seed);
  std::vector<int> next(int count);

  nlohmann::json state() const;
  void load_state(const nlohmann::json& s);

 private:
  void reshuffle();
  std::vector<int> pool_, order_;
  size_t pos_ = 0;
  Rng rng_;
};

// Orders the views of each of `ranks` ranks' blocks of a batch (kernels/camera_blocks_math.h) by
// `size_key` of the view, keeping the order among equal keys: a step renders a block run by run of one
// image size (size_run_ends in core/train/train_step.h), so a block whose photos come in two sizes (a
// phone's portrait and landscape shots) takes two rasterizer calls rather than as many as the drawn
// order alternates. Which rank renders which view does not change.
void group_blocks_by_size(std::vector<int>& views, int ranks, const std::function<int64_t(int view)>& size_key);

// The views of each batch: one sampler over every training view, or with own photos one per rank
// over its views, drawing its block of the batch (kernels/camera_blocks_math.h's blocks).
class BatchDraw {
 public:
  BatchDraw(std::span<const int> train, int ranks, bool own, uint64_t seed, int batch);
  // The views of a batch of `batch` (the last step of a budget may be smaller than the dealt size).
  std::vector<int> next(int batch);
  // Deals the views for another batch size (own photos; the draws start afresh). Returns whether the
  // shares changed, so that their photos must move.
  bool deal(int batch);
  bool own() const { return own_; }
  // The views whose photos rank `rank` holds: its own with own photos, else every training view.
  const std::vector<int>& held_by(int rank) const { return own_ ? owned_[size_t(rank)] : train_; }

  // The samplers' states. A checkpoint drawn another way (every photo against own, another rank
  // count or deal) is not continued: the draws start afresh from the seed (where in an epoch a
  // sampler stood is no training work).
  nlohmann::json state() const;
  void load_state(const nlohmann::json& s);

 private:
  std::vector<int> train_;
  int ranks_;
  bool own_;
  uint64_t seed_;
  int dealt_for_ = 0;                    // the batch size the shares are sized for
  std::vector<std::vector<int>> owned_;  // with own photos, per rank
  std::vector<CameraSampler> samplers_;  // one, or one per rank
};

}  // namespace splat
