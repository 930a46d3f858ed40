// Which views a batch draws, and which rank holds whose photos (core/train/batch_draw.h): the Auto
// rule, the round-robin shares, every rank's block drawn from its own share in whole epochs, the
// every-photo draw unchanged, and the state a checkpoint keeps.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <vector>

#include "core/train/batch_draw.h"

using namespace splat;

namespace {

const std::vector<int> kTrain = {1, 2, 4, 5, 6, 8, 9, 10, 12, 13};  // a scene's train views (test views left out)

bool holds(const std::vector<int>& views, int v) { return std::find(views.begin(), views.end(), v) != views.end(); }

}  // namespace

TEST_CASE("photos: every, own, or own where every photo would fill a quarter of the device", "[batch_draw]") {
  CHECK_FALSE(hold_own_photos(PhotoPlacement::Every, 4, 1 << 30, size_t(1) << 30));
  CHECK(hold_own_photos(PhotoPlacement::Own, 2, 1, std::nullopt));
  CHECK_FALSE(hold_own_photos(PhotoPlacement::Auto, 1, 900, 1000));          // one rank holds them all anyway
  CHECK_FALSE(hold_own_photos(PhotoPlacement::Auto, 2, 900, std::nullopt));  // memory unknown (CPU)
  CHECK_FALSE(hold_own_photos(PhotoPlacement::Auto, 2, 250, 1000));
  CHECK(hold_own_photos(PhotoPlacement::Auto, 2, 251, 1000));
}

TEST_CASE("own photos: the training views dealt like the blocks of a batch, interleaved", "[batch_draw]") {
  CHECK(dealt_views(kTrain, 3, 3)[0] == std::vector<int>{1, 5, 9, 13});  // one camera a rank: round robin
  CHECK(dealt_views(kTrain, 3, 3)[2] == std::vector<int>{4, 8, 12});
  // Batch 3 on 2 ranks: blocks of 1 and 2 cameras, so shares of a third and two thirds, interleaved.
  CHECK(dealt_views(kTrain, 2, 3)[0] == std::vector<int>{2, 6, 10});
  CHECK(dealt_views(kTrain, 2, 3)[1] == std::vector<int>{1, 4, 5, 8, 9, 12, 13});
}

TEST_CASE("own photos: each rank's block of every batch comes from its share, every view alike", "[batch_draw]") {
  for (int batch : {2, 3, 4, 5}) {
    INFO("batch " << batch);
    BatchDraw draw(kTrain, 2, true, 11, batch);
    REQUIRE(draw.own());
    const int blocks[2] = {batch / 2, batch - batch / 2};  // kernels/camera_blocks_math.h: the first is the smaller
    const size_t shares[2] = {draw.held_by(0).size(), draw.held_by(1).size()};
    CHECK(shares[0] + shares[1] == kTrain.size());
    for (int r = 0; r < 2; ++r)  // sized like the blocks, up to the rounding of 10 views
      CHECK(std::abs(double(shares[r]) - double(kTrain.size()) * blocks[r] / batch) < 1.0);
    std::map<int, int> drawn;
    const int steps = int(shares[0] * shares[1]);
    for (int step = 0; step < steps; ++step) {
      const std::vector<int> views = draw.next(batch);
      REQUIRE(views.size() == size_t(batch));
      for (int k = 0; k < batch; ++k) {
        const int rank = k < blocks[0] ? 0 : 1;
        CHECK(holds(draw.held_by(rank), views[size_t(k)]));
        ++drawn[views[size_t(k)]];
      }
    }
    // Whole epochs of each rank's sampler: every view of a share drawn alike.
    for (int r = 0; r < 2; ++r)
      for (int v : draw.held_by(r)) CHECK(drawn[v] == steps * blocks[r] / int(shares[r]));
  }
}

TEST_CASE("own photos: a new batch size deals the views again where the blocks change", "[batch_draw]") {
  BatchDraw draw(kTrain, 2, true, 11, 4);
  const std::vector<int> at4 = draw.held_by(0);
  CHECK_FALSE(draw.deal(4));  // the same deal
  CHECK(draw.deal(3));        // blocks of 1 and 2: rank 0 holds fewer
  CHECK(draw.held_by(0).size() < at4.size());
  CHECK(draw.held_by(0) == dealt_views(kTrain, 2, 3)[0]);
  CHECK_THROWS_WITH(draw.deal(1), Catch::Contains("a batch of 1 for 2 ranks"));
}

TEST_CASE("every photo: one sampler draws the batch, as before there were shares", "[batch_draw]") {
  BatchDraw draw(kTrain, 2, false, 5, 4);
  CameraSampler sampler(kTrain, 5);
  CHECK_FALSE(draw.own());
  CHECK(draw.held_by(1) == kTrain);
  for (int step = 0; step < 9; ++step) CHECK(draw.next(4) == sampler.next(4));
  CHECK(draw.state() == sampler.state());  // a checkpoint's sampler state keeps its old form
  CHECK_FALSE(BatchDraw(kTrain, 1, true, 5, 4).own());  // one rank has no one to share with
}

TEST_CASE("own photos: a restored draw continues; one drawn another way starts afresh", "[batch_draw]") {
  BatchDraw a(kTrain, 2, true, 3, 3);
  for (int step = 0; step < 7; ++step) a.next(3);
  BatchDraw b(kTrain, 2, true, 3, 3);
  b.load_state(a.state());
  for (int step = 0; step < 6; ++step) CHECK(b.next(3) == a.next(3));

  BatchDraw fresh(kTrain, 2, true, 3, 3), from_every(kTrain, 2, true, 3, 3), from_three(kTrain, 2, true, 3, 3),
      from_other_deal(kTrain, 2, true, 3, 3);
  from_every.load_state(BatchDraw(kTrain, 2, false, 3, 3).state());
  BatchDraw three(kTrain, 3, true, 3, 3);
  three.next(3);
  from_three.load_state(three.state());
  BatchDraw at4(kTrain, 2, true, 3, 4);
  at4.next(4);
  from_other_deal.load_state(at4.state());
  const std::vector<int> first = fresh.next(4);
  CHECK(from_every.next(4) == first);
  CHECK(from_three.next(4) == first);
  CHECK(from_other_deal.next(4) == first);
}

TEST_CASE("own photos need a training view for every rank", "[batch_draw]") {
  CHECK_THROWS_WITH(BatchDraw(std::vector<int>{3}, 2, true, 0, 2),
                    Catch::Contains("1 training view(s) for 2 ranks"));
}

TEST_CASE("each rank's block puts its photos of one size together, keeping who renders what", "[batch_draw]") {
  // Views alternate between two sizes (keys 7 and 3), as a phone's portrait and landscape shots may.
  auto key = [](int v) { return int64_t(v % 2 ? 7 : 3); };
  std::vector<int> views{1, 2, 3, 4, 5, 6, 8, 9};
  group_blocks_by_size(views, 2, key);
  // Blocks {1, 2, 3, 4} and {5, 6, 8, 9}: each sorted by key, in drawn order among equal keys.
  CHECK(views == std::vector<int>{2, 4, 1, 3, 6, 8, 5, 9});
  // One rank: the whole batch.
  std::vector<int> one{5, 2, 7, 4};
  group_blocks_by_size(one, 1, key);
  CHECK(one == std::vector<int>{2, 4, 5, 7});
  // Uneven blocks (5 over 2 ranks: 2 and 3 views) keep their sizes.
  std::vector<int> uneven{1, 2, 3, 4, 5};
  group_blocks_by_size(uneven, 2, key);
  CHECK(uneven == std::vector<int>{2, 1, 4, 3, 5});
}
