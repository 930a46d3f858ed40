#include "kernels/host_waits.h"

namespace splat::kernels {
namespace {
thread_local uint64_t waits = 0;
thread_local const char* last = "";
}  // namespace

void note_host_wait(const char* what) {
  ++waits;
  last = what;
}

uint64_t host_waits() { return waits; }

const char* last_host_wait() { return last; }

}  // namespace splat::kernels
