// The faults a rehearsal plants through SPLATLAB_FAULT (core/train/planted_fault.h): how they are
// written, refused when malformed, when they fire, and what an out-of-memory one throws.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <stdexcept>

#include "core/train/planted_fault.h"
#include "kernels/buffer.h"

using namespace splat;

namespace {

// Sets SPLATLAB_FAULT for one scope.
struct FaultVariable {
  explicit FaultVariable(const char* value) { setenv("SPLATLAB_FAULT", value, 1); }
  ~FaultVariable() { unsetenv("SPLATLAB_FAULT"); }
};

}  // namespace

TEST_CASE("planted fault: KIND:RANK:IMAGES is read, anything else refused saying the form", "[fault]") {
  const PlantedFault oom = parse_fault("oom:1:200");
  CHECK(oom.kind == FaultKind::OutOfMemory);
  CHECK(oom.rank == 1);
  CHECK(oom.images == 200);
  const PlantedFault exit = parse_fault("exit:0:0");
  CHECK(exit.kind == FaultKind::Exit);
  CHECK(exit.rank == 0);
  CHECK(exit.images == 0);
  for (const char* bad : {"", "oom", "oom:1", "oom:1:2:3", "segv:1:2", "oom:-1:2", "oom:1:-2", "oom:x:2",
                          "oom:1:2x", "OOM:1:2", "oom::2", "oom:1:99999999999999999999"}) {
    INFO(bad);
    try {
      parse_fault(bad);
      FAIL("accepted");
    } catch (const std::invalid_argument& e) {
      CHECK_THAT(e.what(), Catch::Contains("KIND:RANK:IMAGES"));
    }
  }
}

TEST_CASE("planted fault: the variable, unset, empty, set or malformed", "[fault]") {
  unsetenv("SPLATLAB_FAULT");
  CHECK_FALSE(planted_fault_from_env());
  {
    const FaultVariable v("");
    CHECK_FALSE(planted_fault_from_env());
  }
  {
    const FaultVariable v("exit:2:40");
    const std::optional<PlantedFault> f = planted_fault_from_env();
    REQUIRE(f);
    CHECK(f->kind == FaultKind::Exit);
    CHECK(f->rank == 2);
    CHECK(f->images == 40);
  }
  const FaultVariable v("oom:one:40");
  CHECK_THROWS_WITH(planted_fault_from_env(), Catch::StartsWith("SPLATLAB_FAULT: rank 'one'"));
}

TEST_CASE("planted fault: fires on its rank once its images are trained, an out-of-memory as one", "[fault]") {
  const std::optional<PlantedFault> f = parse_fault("oom:1:6");
  CHECK_FALSE(fault_due(std::nullopt, 1, 100));
  CHECK_FALSE(fault_due(f, 1, 5));
  CHECK(fault_due(f, 1, 6));
  CHECK(fault_due(f, 1, 8));  // a batch that steps past the mark
  CHECK_FALSE(fault_due(f, 0, 8));
  CHECK_THROWS_MATCHES(fire_fault(*f, "rank 1", "CUDA device 1"), kernels::OutOfMemory,
                       Catch::Message("out of memory on CUDA device 1, planted at 6 images (SPLATLAB_FAULT)"));
}
