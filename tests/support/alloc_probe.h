#pragma once
// Measures the largest single `new` allocation the calling thread makes while a probe is alive,
// so a test can assert that bad input is refused before a header field sizes anything: a
// 5,000,000-row header on a 300-byte file must not allocate 5,000,000 rows first.
// (alloc_probe.cpp replaces the global operator new/delete of the test executables; under
// AddressSanitizer it does not, and largest() stays 0: ASan refuses absurd allocations itself.)
#include <cstddef>

namespace splat::test {

void record_allocation(size_t bytes);  // called by the replaced operator new

class AllocationProbe {
 public:
  AllocationProbe();
  ~AllocationProbe();
  AllocationProbe(const AllocationProbe&) = delete;
  AllocationProbe& operator=(const AllocationProbe&) = delete;

  // Bytes of the largest single allocation so far (0: none).
  size_t largest() const { return largest_; }
  // False where operator new is not replaced (AddressSanitizer builds): largest() stays 0.
  static bool enabled();

 private:
  friend void record_allocation(size_t bytes);
  size_t largest_ = 0;
  AllocationProbe* outer_ = nullptr;  // probes nest; the innermost one records
};

}  // namespace splat::test
