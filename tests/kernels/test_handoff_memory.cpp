// Hand-off memory (kernels/handoff_memory.h): on the CPU plain host memory that moves like a Buffer;
// on CUDA, dropped while the streams that used it are still busy, it goes back without a host wait and
// is not handed out again before those uses have run.
#include <catch2/catch.hpp>
#include <cuda_runtime.h>

#include <chrono>
#include <cstring>
#include <optional>
#include <thread>
#include <vector>

#include "kernels/buffer.h"
#include "kernels/handoff_memory.h"
#include "kernels/host_waits.h"
#include "kernels/stream.h"
#include "tests/support/test_support.h"

using namespace splat::kernels;

namespace {
void CUDART_CB sleep_on_stream(void* ms) {
  std::this_thread::sleep_for(std::chrono::milliseconds(*static_cast<int*>(ms)));
}
}  // namespace

TEST_CASE("hand-off memory on the CPU is host memory that moves with its owner", "[handoff]") {
  HandoffBlock none;
  CHECK(none.data() == nullptr);
  CHECK(none.bytes() == 0);
  HandoffBlock b(Device::CPU, 1000);
  REQUIRE(b.data() != nullptr);
  CHECK(b.bytes() == 1000);
  std::memset(b.data(), 7, 1000);
  b.used_on(Device::CPU);  // nothing to record
  void* const p = b.data();
  HandoffBlock moved = std::move(b);
  CHECK(moved.data() == p);
  CHECK(moved.bytes() == 1000);
  CHECK(b.data() == nullptr);
  CHECK(static_cast<unsigned char*>(moved.data())[999] == 7);
  moved = HandoffBlock(Device::CPU, 0);  // the old memory goes; an empty block holds none
  CHECK(moved.data() == nullptr);
}

TEST_CASE("hand-off memory dropped behind busy streams goes back without a host wait, after their work",
          "[handoff][gpu]") {
  if (!splat::test::gpu_or_skip("hand-off memory freed in stream order")) return;
  std::optional<PriorityStream> maker_stream, reader_stream;
  const ComputeContext maker = on_own_stream(Device::CUDA, StreamPriority::Training, maker_stream);
  const ComputeContext reader = on_own_stream(Device::CUDA, StreamPriority::Background, reader_stream);
  constexpr size_t kCount = 1 << 20;
  const std::vector<int> values(kCount, 42);
  Buffer<int> source(maker);
  source.upload(values);
  Buffer<int> read_back(reader, kCount);

  // The reader's stream is held busy; the maker fills the block, the reader copies it out after the
  // maker's event, and the block is dropped at once.
  static int busy_ms = 400;
  std::optional<HandoffBlock> block;
  block.emplace(maker, kCount * sizeof(int));
  copy_bytes(block->data(), maker, source.data(), maker, kCount * sizeof(int));
  block->used_on(maker);
  StreamEvent filled;
  filled.record(maker);
  REQUIRE(cudaLaunchHostFunc(static_cast<cudaStream_t>(reader.stream), sleep_on_stream, &busy_ms) == cudaSuccess);
  filled.wait_on(reader);
  REQUIRE(cudaMemcpyAsync(read_back.data(), block->data(), kCount * sizeof(int), cudaMemcpyDeviceToDevice,
                          static_cast<cudaStream_t>(reader.stream)) == cudaSuccess);
  block->used_on(reader);
  const uint64_t waits = host_waits();
  const auto t0 = std::chrono::steady_clock::now();
  block.reset();
  const double drop_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  CHECK(host_waits() == waits);
  CHECK(drop_ms < busy_ms / 2);

  // New blocks filled with something else meanwhile must not land on memory the reader has yet to read.
  std::vector<HandoffBlock> others;
  for (int i = 0; i < 4; ++i) {
    others.emplace_back(maker, kCount * sizeof(int));
    REQUIRE(cudaMemsetAsync(others.back().data(), 0, kCount * sizeof(int), static_cast<cudaStream_t>(maker.stream)) ==
            cudaSuccess);
    others.back().used_on(maker);
  }
  CHECK(read_back.download() == values);
}
