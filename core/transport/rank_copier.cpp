#include "core/transport/rank_copier.h"

#include <cstring>

namespace splat::transport {

std::unique_ptr<RankCopier> make_cuda_rank_copier(const kernels::ComputeContext& where);  // cuda_rank_copier.cpp

namespace {

// Host memory: the barriers already order the threads, so a copy is a memcpy and tokens are not needed.
class HostCopier final : public RankCopier {
 public:
  void* ready() override { return nullptr; }
  void copy_from(void* dst, const void* src, size_t bytes, void*) override { std::memcpy(dst, src, bytes); }
  bool copy_rows_to(std::span<const kernels::RowColumn> columns, int64_t rows, const int32_t* gate, void*,
                    int) override {
    kernels::copy_gated_rows_reference(columns, rows, gate);
    return true;
  }
  void copy_own_rows(std::span<const kernels::RowColumn> columns, int64_t rows, const int32_t* gate) override {
    kernels::copy_gated_rows_reference(columns, rows, gate);
  }
  void* copies_done() override { return nullptr; }
  void after_peer(void*) override {}
};

}  // namespace

std::unique_ptr<RankCopier> make_rank_copier(const kernels::ComputeContext& where) {
  if (where.device == kernels::Device::CPU) return std::make_unique<HostCopier>();
  return make_cuda_rank_copier(where);
}

}  // namespace splat::transport
