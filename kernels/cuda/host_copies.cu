// Both backends of kernels/host_copies.h: the CPU one copies at once, the CUDA one through pinned
// slots and events. A CUDA copy is a one-block kernel writing the slot through its mapped device
// address, not cudaMemcpyAsync: between kernels a copy engine transfer cost about 6 us of idle GPU on
// either side, a kernel 1 us (bench/TWO_GPUS.md, "The ranks' timelines").
#include <cuda_runtime.h>

#include <array>
#include <cstring>
#include <stdexcept>
#include <string>

#include "kernels/cuda/cuda_check.cuh"
#include "kernels/cuda_util.h"
#include "kernels/host_copies.h"
#include "kernels/host_waits.h"

namespace splat::kernels {

namespace {

__global__ void copy_values(const int64_t* from, int64_t* to, int n) {
  if (int(threadIdx.x) < n) to[threadIdx.x] = from[threadIdx.x];
}

}  // namespace

struct HostCopies::Impl {
  ComputeContext where;
  int64_t* host = nullptr;    // kSlots x kMostValues; pinned and mapped on CUDA
  int64_t* mapped = nullptr;  // the device's address of `host`
  std::array<cudaEvent_t, kSlots> events{};
  std::array<int, kSlots> counts{};
  std::array<uint64_t, kSlots> numbers{};  // which copy each slot holds
  std::vector<int64_t> cpu;                // the CPU backend's slots
};

HostCopies::HostCopies(const ComputeContext& where) : impl_(std::make_unique<Impl>()) {
  impl_->where = where;
  impl_->numbers.fill(~uint64_t(0));
  if (where.device == Device::CPU) {
    impl_->cpu.resize(size_t(kSlots) * kMostValues);
    impl_->host = impl_->cpu.data();
    return;
  }
  const cuda::DeviceScope scope(where.ordinal);
  cuda::check(cudaHostAlloc(&impl_->host, sizeof(int64_t) * kSlots * kMostValues, cudaHostAllocMapped),
              "allocating pinned host copies");
  cuda::check(cudaHostGetDevicePointer(&impl_->mapped, impl_->host, 0), "mapping the host copies");
  for (cudaEvent_t& e : impl_->events)
    cuda::check(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), "creating a host copy event");
}

HostCopies::~HostCopies() {
  if (impl_->where.device == Device::CPU) return;
  const cuda::DeviceScope scope(impl_->where.ordinal, std::nothrow);
  if (!scope.ok()) return;
  for (cudaEvent_t e : impl_->events)
    if (e) cudaEventDestroy(e);
  cudaFreeHost(impl_->host);
}

uint64_t HostCopies::queue(const int64_t* device_values, int n) {
  if (n < 0 || n > kMostValues)
    throw std::invalid_argument("host copies: " + std::to_string(n) + " values, at most " +
                                std::to_string(kMostValues) + " a copy");
  const uint64_t number = next_++;
  const int slot = int(number % kSlots);
  int64_t* to = impl_->host + size_t(slot) * kMostValues;
  impl_->counts[slot] = n;
  impl_->numbers[slot] = number;
  if (impl_->where.device == Device::CPU) {
    std::memcpy(to, device_values, sizeof(int64_t) * size_t(n));
    return number;
  }
  const cuda::DeviceScope scope(impl_->where.ordinal);
  cudaEvent_t& e = impl_->events[slot];
  cuda::check(cudaEventSynchronize(e), "waiting for the oldest host copy");  // the throttle, see the header
  const auto stream = static_cast<cudaStream_t>(impl_->where.stream);
  static_assert(kMostValues <= 1024, "one thread a value");
  if (n > 0) {
    copy_values<<<1, kMostValues, 0, stream>>>(device_values, impl_->mapped + size_t(slot) * kMostValues, n);
    cuda::check_launch("copying device values to the host");
  }
  cuda::check(cudaEventRecord(e, stream), "recording a host copy");
  return number;
}

bool HostCopies::landed(uint64_t number) {
  const int slot = int(number % kSlots);
  if (impl_->numbers[slot] != number)
    throw std::logic_error("host copies: copy " + std::to_string(number) + " is not among the last " +
                           std::to_string(kSlots) + " queued");
  if (impl_->where.device == Device::CPU) return true;
  const cuda::DeviceScope scope(impl_->where.ordinal);
  const cudaError_t e = cudaEventQuery(impl_->events[slot]);
  if (e == cudaErrorNotReady) return false;
  cuda::check(e, "querying a host copy");
  return true;
}

std::vector<int64_t> HostCopies::values(uint64_t number) {
  const int slot = int(number % kSlots);
  if (!landed(number)) {
    if (number + 1 == next_) note_host_wait("waiting for device values copied to the host");
    const cuda::DeviceScope scope(impl_->where.ordinal);
    cuda::check(cudaEventSynchronize(impl_->events[slot]), "waiting for a host copy");
  }
  const int64_t* from = impl_->host + size_t(slot) * kMostValues;
  return std::vector<int64_t>(from, from + impl_->counts[slot]);
}

}  // namespace splat::kernels
