#include "tests/ranks/rank_outcome.h"

#include <chrono>
#include <exception>
#include <mutex>

namespace splat::test {

using namespace transport;

RankOutcome catch_ranks(int ranks, const RankWorkWithControl& work, const CommOptions& options) {
  RankOutcome out;
  out.rank_errors.resize(size_t(ranks));
  std::mutex m;
  const auto start = std::chrono::steady_clock::now();
  try {
    run_ranks_with_control(
        ranks, [](int) { return kernels::ComputeContext(kernels::Device::CPU); },
        [&](Communicator& comm, ControlChannel& channel) {
          try {
            work(comm, channel);
          } catch (const CommError& e) {
            std::lock_guard lock(m);
            out.rank_errors[size_t(comm.rank())] = e.what();
            throw;
          }
        },
        RankBackend::Auto, options);
  } catch (const CommError& e) {
    out.error = e.what();
    out.failed_rank = e.failed_rank();
    try {
      std::rethrow_if_nested(e);
    } catch (const std::exception& cause) {
      out.nested = cause.what();
    }
  }
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return out;
}

}  // namespace splat::test
