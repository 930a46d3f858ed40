#include "core/transport/rank_copier.h"

#include <cstring>
#include <stdexcept>
#include <string>

namespace splat::transport {

std::unique_ptr<RankCopier> make_cuda_rank_copier(const kernels::ComputeContext& where);  // cuda_rank_copier.cpp

namespace {

// Host memory: the barriers already order the threads, so a copy is a memcpy and tokens are not needed.
class HostCopier final : public RankCopier {
 public:
  explicit HostCopier(const kernels::ComputeContext& where) : RankCopier(where) {}
  void* sends_ready() override { return nullptr; }
  void copy_from(void* dst, const void* src, size_t bytes, void*) override { std::memcpy(dst, src, bytes); }
  bool copy_rows_from(std::span<const kernels::RowColumn> columns, int64_t rows, const int32_t* gate,
                      const void* staged, void*, int) override {
    if (staged) kernels::scatter_staged_rows_reference(columns, rows, staged);
    else kernels::copy_gated_rows_reference(columns, rows, gate);
    return true;
  }
  void* reads_done() override { return nullptr; }
  void after_reader(void*) override {}
};

}  // namespace

const void* RankCopier::stage_rows(int peer, std::span<const kernels::RowColumn> columns, int64_t rows,
                                   const int32_t* gate) {
  if (peer < 0) throw std::invalid_argument("stage_rows: peer " + std::to_string(peer));
  while (staging_.size() <= size_t(peer)) staging_.emplace_back(where_);
  kernels::Buffer<std::byte>& area = staging_[size_t(peer)];
  area.resize(size_t(kernels::staged_rows_bytes(columns, rows)));
  kernels::stage_gated_rows(where_, columns, rows, gate, area.data());
  return area.data();
}

std::unique_ptr<RankCopier> make_rank_copier(const kernels::ComputeContext& where) {
  if (where.device == kernels::Device::CPU) return std::make_unique<HostCopier>(where);
  return make_cuda_rank_copier(where);
}

}  // namespace splat::transport
