// The CUDA runtime check (kernels/cuda_util.h): a failed call is reported once, by the check that saw
// it, and does not linger as the runtime's last error for the next launch check to misreport (a
// failed CUDA-GL registration used to surface as the next kernel's failure).
#include <catch2/catch.hpp>

#include "kernels/cuda_util.h"
#include "tests/support/test_support.h"

using splat::kernels::cuda::check;

TEST_CASE("a failed CUDA call throws once and leaves no error for the next check", "[gpu]") {
  if (!splat::test::gpu_or_skip("the CUDA error check")) return;
  int current = -1;
  check(cudaGetDevice(&current), "asking for the current device");
  CHECK_THROWS_WITH(check(cudaSetDevice(1 << 20), "choosing a device that is not there"),
                    Catch::Contains("choosing a device that is not there"));
  CHECK_NOTHROW(check(cudaGetLastError(), "the next launch's check"));
  int after = -1;
  check(cudaGetDevice(&after), "asking for the current device again");
  CHECK(after == current);
}
