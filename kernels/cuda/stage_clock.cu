#include "kernels/cuda/stage_clock.cuh"

#include "kernels/cuda/cuda_check.cuh"
#include "kernels/cuda_util.h"

namespace splat::kernels::cuda {

StageClock::~StageClock() {
  if (marks_.empty()) return;
  const DeviceScope scope(ordinal_, std::nothrow);  // no throwing from a destructor
  if (!scope.ok()) return;
  for (Mark& m : marks_) cudaEventDestroy(m.event);
}

void StageClock::mark(const char* name, cudaStream_t stream) {
  if (!on_) return;
  if (used_ == marks_.size()) {
    Mark m;
    check(cudaEventCreate(&m.event), "creating a timing event");
    marks_.push_back(m);
  }
  marks_[used_].name = name;
  check(cudaEventRecord(marks_[used_].event, stream), "recording a timing event");
  ++used_;
}

std::vector<StageTime> StageClock::read() {
  std::vector<StageTime> out;
  if (used_ == 0) return out;
  check(cudaEventSynchronize(marks_[used_ - 1].event), "waiting for timing events");
  for (size_t i = 1; i < used_; ++i) {
    if (!marks_[i].name) continue;
    float ms = 0.f;
    check(cudaEventElapsedTime(&ms, marks_[i - 1].event, marks_[i].event), "reading a timing event");
    out.push_back({marks_[i].name, ms});
  }
  return out;
}

}  // namespace splat::kernels::cuda
