// A device timeline without a profiler: a CUPTI injection library that records every kernel, copy and
// memset of a process (its device, stream, start and end on the GPU clock) and writes them as CSV.
// The lent GPU machines have ncu but no timeline tool, and ncu serialises kernels, which hides exactly
// what a timeline is for: where a GPU sits idle while its peer or its host catches up.
//
//   CUDA_INJECTION64_PATH=build/bench/libkernel_trace.so KERNEL_TRACE_OUT=trace.csv ./splatlab train ...
//   python3 bench/trace/trace_gaps.py trace.csv
//
// The driver loads the library when the process first initialises CUDA and calls InitializeInjection;
// the records are flushed when the process exits. The GPU clock is one clock for every device of the
// process, so two GPUs' records can be compared directly. Recording costs little on the device (CUPTI
// timestamps kernels as they run), a few per cent of host time.
#include <cupti.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

namespace {

constexpr size_t kBufferBytes = 8u << 20;
std::mutex out_mutex;
std::FILE* out = nullptr;
std::atomic<long long> dropped{0};

void check(CUptiResult r, const char* what) {
  if (r == CUPTI_SUCCESS) return;
  const char* msg = nullptr;
  cuptiGetResultString(r, &msg);
  std::fprintf(stderr, "kernel_trace: %s: %s\n", what, msg ? msg : "unknown CUPTI error");
  std::exit(1);
}

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, kBufferBytes));
  *size = kBufferBytes;
  *max_records = 0;
}

// A copy's or memset's line: its bytes where a kernel's has its name.
template <class Record>
void write_transfer(const char* kind, const Record* r) {
  using u64 = unsigned long long;
  std::fprintf(out, "%s,%u,%u,%llu,%llu,%llu\n", kind, r->deviceId, r->streamId, u64(r->start), u64(r->end),
               u64(r->bytes));
}

// One line per record: kind, device, stream, start ns, end ns, name (kernels) or bytes (copies, memsets).
void CUPTIAPI buffer_completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
  std::lock_guard<std::mutex> lock(out_mutex);
  CUpti_Activity* record = nullptr;
  while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) {
    switch (record->kind) {
      case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
        const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
        std::fprintf(out, "kernel,%u,%u,%llu,%llu,\"%s\"\n", k->deviceId, k->streamId,
                     static_cast<unsigned long long>(k->start), static_cast<unsigned long long>(k->end), k->name);
        break;
      }
      case CUPTI_ACTIVITY_KIND_MEMCPY:
        write_transfer("memcpy", reinterpret_cast<const CUpti_ActivityMemcpy6*>(record));
        break;
      case CUPTI_ACTIVITY_KIND_MEMCPY2:
        write_transfer("peer", reinterpret_cast<const CUpti_ActivityMemcpyPtoP4*>(record));
        break;
      case CUPTI_ACTIVITY_KIND_MEMSET:
        write_transfer("memset", reinterpret_cast<const CUpti_ActivityMemset4*>(record));
        break;
      default:
        break;
    }
  }
  size_t lost = 0;
  if (cuptiActivityGetNumDroppedRecords(nullptr, 0, &lost) == CUPTI_SUCCESS) dropped += static_cast<long long>(lost);
  std::free(buffer);
}

void finish() {
  cuptiActivityFlushAll(1);
  std::lock_guard<std::mutex> lock(out_mutex);
  if (dropped > 0) std::fprintf(stderr, "kernel_trace: %lld records dropped\n", dropped.load());
  std::fclose(out);
}

}  // namespace

extern "C" int InitializeInjection() {
  const char* path = std::getenv("KERNEL_TRACE_OUT");
  out = std::fopen(path ? path : "kernel_trace.csv", "w");
  if (!out) {
    std::fprintf(stderr, "kernel_trace: cannot write %s: %s\n", path ? path : "kernel_trace.csv", std::strerror(errno));
    return 0;
  }
  std::fprintf(out, "kind,device,stream,start_ns,end_ns,what\n");
  check(cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed), "registering the buffers");
  for (CUpti_ActivityKind kind : {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
                                  CUPTI_ACTIVITY_KIND_MEMCPY2, CUPTI_ACTIVITY_KIND_MEMSET})
    check(cuptiActivityEnable(kind), "enabling a record kind");
  std::atexit(finish);
  return 1;
}
