#pragma once
// Optional CUDA-event marks between the stages of one forward/backward, read back on request.
// Disabled, a mark costs nothing; enabled, it records an event (no host synchronisation).
#include <cuda_runtime.h>

#include <vector>

#include "kernels/rasterizer.h"

namespace splat::kernels::cuda {

class StageClock {
 public:
  // Events are made on CUDA device `ordinal` (mark() is called with it current, inside the owner's
  // DeviceScope) and destroyed there: destroying them elsewhere would open a context on that device.
  explicit StageClock(int ordinal) : ordinal_(ordinal) {}
  StageClock(const StageClock&) = delete;
  StageClock& operator=(const StageClock&) = delete;
  ~StageClock();

  void enable(bool on) { on_ = on; }
  // Starts a new sequence of marks (the first mark is the start of the first stage).
  void restart() { used_ = 0; }
  // Ends the stage called `name` (the time since the previous mark).
  void mark(const char* name, cudaStream_t stream);
  // Starts the next stage without reporting the time since the previous mark: the caller's work
  // between two entry points (the loss before backward, the exchange before rasterize).
  void resume(cudaStream_t stream) { mark(nullptr, stream); }
  // Durations between consecutive marks, named by the later mark (a resume ends none); synchronises.
  std::vector<StageTime> read();

 private:
  struct Mark {
    cudaEvent_t event = nullptr;
    const char* name = nullptr;
  };
  int ordinal_;
  bool on_ = false;
  std::vector<Mark> marks_;
  size_t used_ = 0;
};

}  // namespace splat::kernels::cuda
