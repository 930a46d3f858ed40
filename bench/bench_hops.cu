// What one hop between two GPUs' streams costs: GPU 0 runs a short kernel and signals, GPU 1's
// stream waits for the signal, runs the same kernel and signals back, and so on, all enqueued ahead by
// the host (as a training step is). The in-process exchange makes two such hops per collective (a ready
// token before the copies, a done token after them), so their latency lies on every step's path.
//   bench_hops [round trips (default 2000)] [kernel us (default 20)]
// Signals compared: a CUDA event recorded on one stream and waited for by the other
// (cudaStreamWaitEvent), and stream memory operations (cuStreamWriteValue32 / cuStreamWaitValue32 on a
// counter) with the counter in mapped host memory or in the waiting GPU's memory (written over the
// link). Prints per variant the microseconds per hop: (round-trip time - two kernels) / 2, where a
// kernel's time is a round trip without signals (the two sides then run side by side).
// Needs two GPUs with peer access for the device-memory variant; with one GPU both streams share it.
#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "bench_hops: %s: %s\n", what, cudaGetErrorString(e));
    std::exit(1);
  }
}
void check(CUresult e, const char* what) {
  if (e != CUDA_SUCCESS) {
    const char* s = nullptr;
    cuGetErrorString(e, &s);
    std::fprintf(stderr, "bench_hops: %s: %s\n", what, s ? s : "unknown error");
    std::exit(1);
  }
}

// Busy for about `ns` nanoseconds on one block, as the last kernel before a signal would be.
__global__ void spin(long long ns) {
  const long long t0 = clock64();
  const long long cycles = ns * 1.98;  // about the H100/H200 boost clock in GHz
  while (clock64() - t0 < cycles) {
  }
}

enum class Signal { Event, HostCounter, DeviceCounter };
const char* name(Signal s) {
  return s == Signal::Event ? "event" : s == Signal::HostCounter ? "stream memop, host counter"
                                                                 : "stream memop, counter in the waiter's memory";
}

struct Side {
  int device;
  cudaStream_t stream;
  cudaEvent_t event;
  unsigned* counter;  // the counter this side waits on (written by the other side)
};

// Round trips of kernel + signal between the two sides; returns ms for all of them.
float round_trips(Side (&s)[2], Signal sig, int trips, long long kernel_ns, bool signal) {
  cudaEvent_t t0, t1;
  check(cudaSetDevice(s[0].device), "device 0");
  check(cudaEventCreate(&t0), "timing event");
  check(cudaEventCreate(&t1), "timing event");
  check(cudaEventRecord(t0, s[0].stream), "start");
  unsigned value = 0;
  for (int i = 0; i < trips; ++i)
    for (int k = 0; k < 2; ++k) {
      Side& me = s[k];
      Side& other = s[1 - k];
      check(cudaSetDevice(me.device), "device");
      spin<<<1, 32, 0, me.stream>>>(kernel_ns);
      if (!signal) continue;
      ++value;
      if (sig == Signal::Event) {
        check(cudaEventRecord(me.event, me.stream), "record");
        check(cudaSetDevice(other.device), "device");
        check(cudaStreamWaitEvent(other.stream, me.event, 0), "wait event");
      } else {
        check(cuStreamWriteValue32(me.stream, CUdeviceptr(other.counter), value, 0), "write value");
        check(cudaSetDevice(other.device), "device");
        check(cuStreamWaitValue32(other.stream, CUdeviceptr(other.counter), value, CU_STREAM_WAIT_VALUE_GEQ),
              "wait value");
      }
    }
  check(cudaSetDevice(s[0].device), "device 0");
  check(cudaEventRecord(t1, s[0].stream), "end");
  check(cudaEventSynchronize(t1), "synchronize");
  float ms = 0;
  check(cudaEventElapsedTime(&ms, t0, t1), "elapsed");
  cudaEventDestroy(t0);
  cudaEventDestroy(t1);
  return ms;
}

}  // namespace

int main(int argc, char** argv) {
  const int trips = argc > 1 ? std::atoi(argv[1]) : 2000;
  const long long kernel_ns = argc > 2 ? std::atoll(argv[2]) * 1000 : 20000;
  int n = 0;
  check(cudaGetDeviceCount(&n), "counting devices");
  Side s[2];
  for (int k = 0; k < 2; ++k) {
    s[k].device = n > 1 ? k : 0;
    check(cudaSetDevice(s[k].device), "device");
    check(cudaStreamCreateWithFlags(&s[k].stream, cudaStreamNonBlocking), "stream");
    check(cudaEventCreateWithFlags(&s[k].event, cudaEventDisableTiming), "event");
  }
  int peer = 0;
  if (n > 1) {
    check(cudaDeviceCanAccessPeer(&peer, 0, 1), "peer query");
    for (int k = 0; k < 2 && peer; ++k) {
      check(cudaSetDevice(k), "device");
      check(cudaDeviceEnablePeerAccess(1 - k, 0), "peer access");
    }
  }
  int memops = 0;
  CUdevice dev;
  check(cuDeviceGet(&dev, s[0].device), "cuDeviceGet");
  check(cuDeviceGetAttribute(&memops, CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_MEM_OPS_V1, dev), "memop attribute");
  std::printf("devices %d, peer access %d, stream memory operations %d; %d round trips, kernels of %lld us\n", n,
              peer, memops, trips, kernel_ns / 1000);

  unsigned* host = nullptr;
  check(cudaHostAlloc(&host, 2 * sizeof(unsigned), cudaHostAllocMapped | cudaHostAllocPortable), "host counters");
  unsigned* on_device[2] = {nullptr, nullptr};
  for (int k = 0; k < 2; ++k) {
    check(cudaSetDevice(s[k].device), "device");
    check(cudaMalloc(&on_device[k], sizeof(unsigned)), "device counter");
  }

  const float alone = round_trips(s, Signal::Event, trips, kernel_ns, false);
  std::printf("kernels alone: %.2f us each\n", 1000 * alone / trips);
  for (Signal sig : {Signal::Event, Signal::HostCounter, Signal::DeviceCounter, Signal::Event}) {
    if (sig != Signal::Event && !memops) continue;
    if (sig == Signal::DeviceCounter && n > 1 && !peer) continue;
    for (int k = 0; k < 2; ++k) {
      check(cudaSetDevice(s[k].device), "device");
      check(cudaDeviceSynchronize(), "idle");
      if (sig == Signal::HostCounter) s[k].counter = host + k;
      if (sig == Signal::DeviceCounter) s[k].counter = on_device[k];
    }
    host[0] = host[1] = 0;
    for (int k = 0; k < 2; ++k) {
      check(cudaSetDevice(s[k].device), "device");
      check(cudaMemset(on_device[k], 0, sizeof(unsigned)), "clear counter");
      check(cudaDeviceSynchronize(), "idle");
    }
    const float ms = round_trips(s, sig, trips, kernel_ns, true);
    std::printf("%-45s %.2f us per round trip, %.2f us per hop\n", name(sig), 1000 * ms / trips,
                1000 * (ms - 2 * alone) / trips / 2);
  }
  return 0;
}
