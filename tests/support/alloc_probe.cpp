#include "tests/support/alloc_probe.h"

#include <cstdlib>
#include <new>

namespace splat::test {
namespace {
thread_local AllocationProbe* t_probe = nullptr;
}

AllocationProbe::AllocationProbe() : outer_(t_probe) { t_probe = this; }
AllocationProbe::~AllocationProbe() { t_probe = outer_; }

void record_allocation(size_t bytes) {
  if (t_probe && bytes > t_probe->largest_) t_probe->largest_ = bytes;
}

}  // namespace splat::test

// Under AddressSanitizer the library's operator new stays: ASan checks new/delete pairing and
// refuses absurd sizes itself, so the probe records nothing there (largest() stays 0).
#if defined(__SANITIZE_ADDRESS__)
#define SPLAT_ALLOC_PROBE_OFF 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SPLAT_ALLOC_PROBE_OFF 1
#endif
#endif

#ifdef SPLAT_ALLOC_PROBE_OFF
bool splat::test::AllocationProbe::enabled() { return false; }
#else
bool splat::test::AllocationProbe::enabled() { return true; }

// Plain new/delete go straight to malloc/free; the aligned forms keep their library definitions,
// which pair among themselves.
namespace {
void* allocate(size_t n) {
  splat::test::record_allocation(n);
  return std::malloc(n == 0 ? 1 : n);
}
}  // namespace

void* operator new(size_t n) {
  if (void* p = allocate(n)) return p;
  throw std::bad_alloc();
}
void* operator new[](size_t n) { return ::operator new(n); }
void* operator new(size_t n, const std::nothrow_t&) noexcept { return allocate(n); }
void* operator new[](size_t n, const std::nothrow_t&) noexcept { return allocate(n); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, size_t) noexcept { std::free(p); }
void operator delete[](void* p, size_t) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }
#endif  // SPLAT_ALLOC_PROBE_OFF
