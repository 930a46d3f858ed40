#include "core/train/rank_stats.h"

#include <algorithm>
#include <span>

namespace splat::sharded {

// Each rank writes its row into its slot of a zeroed table; one sum per value type gives every rank
// the whole table (the times travel as float: a few significant digits are all they have).
std::vector<RankStats> gather_rank_stats(Communicator& comm, const RankStats& mine) {
  constexpr size_t kInts = 5, kFloats = 4;
  const size_t R = size_t(comm.size()), r = size_t(comm.rank());
  std::vector<int64_t> ints(kInts * R, 0);
  std::vector<float> floats(kFloats * R, 0.f);
  const int64_t my_ints[kInts] = {mine.rank, mine.device_ordinal, mine.gaussians, mine.bytes_sent, mine.bytes_received};
  const float my_floats[kFloats] = {float(mine.step_ms), float(mine.render_ms), float(mine.exchange_wait_ms),
                                    float(mine.device_memory_mb)};
  std::copy_n(my_ints, kInts, &ints[kInts * r]);
  std::copy_n(my_floats, kFloats, &floats[kFloats * r]);
  comm.all_reduce_sum(std::span<int64_t>(ints));
  comm.all_reduce_sum(std::span<float>(floats));
  std::vector<RankStats> all(R);
  for (size_t q = 0; q < R; ++q) {
    const int64_t* i = &ints[kInts * q];
    const float* f = &floats[kFloats * q];
    all[q] = {int(i[0]), int(i[1]), i[2], f[0], f[1], f[2], i[3], i[4], f[3]};
  }
  return all;
}

}  // namespace splat::sharded
