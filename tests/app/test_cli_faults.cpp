// Faults planted in `splatlab train` (SPLATLAB_FAULT, core/train/planted_fault.h) as a rehearsal of real
// ones: a rank thread that runs out of memory stops every rank at once with one line naming it, the only
// rank's names its device, a process that dies leaves its last checkpoint whole; and a malformed
// variable is refused in one line. (Processes of an mpirun job: tests/app/test_cli_mpi.cpp.)
#include <catch2/catch.hpp>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "kernels/device.h"
#include "tests/app/cli_runner.h"
#include "tests/app/planted_faults.h"
#include "tests/support/test_support.h"

namespace fs = std::filesystem;
using splat::test::CliResult;
using splat::test::check_resumes_at_4;
using splat::test::count;

namespace {

// `splatlab train` of the demo with `fault` planted on the ranks of `placement` (device and rank options),
// a checkpoint every 4 images, 12 in all.
struct Faulted {
  CliResult result;
  double seconds = 0;
};
Faulted train_with_fault(const fs::path& run, const std::string& fault, const std::string& placement) {
  const auto start = std::chrono::steady_clock::now();
  CliResult r = splat::test::run_cli_command("SPLATLAB_FAULT=" + fault + " timeout 120 " +
                                             splat::test::splatlab_binary() + " train demo " + placement +
                                             " --batch-size 2 --images 12 --checkpoint-every 4 --out '" +
                                             run.string() + "'");
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("planted %s (%s): ended with %d after %.1f s\n", fault.c_str(), placement.c_str(), r.code, s);
  return {std::move(r), s};
}

}  // namespace

TEST_CASE("cli: a rank thread out of memory stops every rank at once, one line naming it, the checkpoint kept",
          "[cli][dist][fault]") {
  const fs::path run = splat::test::scratch_dir("cli-fault-oom") / "run";
  const Faulted f = train_with_fault(run, "oom:1:6", "--device cpu --ranks 2");
  INFO(f.result.out);
  CHECK(f.result.code == 1);
  CHECK(f.seconds < 30);
  CHECK(count(f.result.out, "error: ") == 1);
  CHECK_THAT(splat::test::last_line(f.result.out),
             Catch::StartsWith("error: rank 1 (CPU) failed: out of memory on CPU, planted at 6 images") &&
                 Catch::Contains("every rank stopped, the run keeps its last checkpoint: continue with splatlab "
                                 "train --resume"));
  check_resumes_at_4(run);
}

TEST_CASE("cli: the only rank out of memory names its device and how to continue", "[cli][fault]") {
  const fs::path run = splat::test::scratch_dir("cli-fault-solo") / "run";
  const Faulted f = train_with_fault(run, "oom:0:6", "--device cpu");
  INFO(f.result.out);
  CHECK(f.result.code == 1);
  CHECK(count(f.result.out, "error: ") == 1);
  CHECK_THAT(splat::test::last_line(f.result.out),
             Catch::StartsWith("error: out of memory on CPU, planted at 6 images") &&
                 Catch::Contains("continue with splatlab train --resume"));
  check_resumes_at_4(run);
}

TEST_CASE("cli: a process that dies mid-run leaves its last checkpoint whole", "[cli][dist][fault]") {
  const fs::path run = splat::test::scratch_dir("cli-fault-exit") / "run";
  const Faulted f = train_with_fault(run, "exit:1:6", "--device cpu --ranks 2");
  INFO(f.result.out);
  CHECK(f.result.code == 137);  // what `kill -9` leaves
  CHECK(f.result.out.find("splatlab: rank 1 (CPU) on host ") != std::string::npos);
  CHECK(f.result.out.find("exiting now, planted at 6 images (SPLATLAB_FAULT)") != std::string::npos);
  check_resumes_at_4(run);
}

TEST_CASE("cli: a malformed SPLATLAB_FAULT is refused in one line and makes no run", "[cli][fault]") {
  const fs::path run = splat::test::scratch_dir("cli-fault-malformed") / "run";
  const Faulted f = train_with_fault(run, "oom:1", "--device cpu");
  INFO(f.result.out);
  CHECK(f.result.code != 0);
  CHECK(count(f.result.out, "error: ") == 1);
  CHECK_THAT(splat::test::last_line(f.result.out), Catch::Contains("SPLATLAB_FAULT: 'oom:1': expected KIND:RANK:IMAGES"));
  CHECK_FALSE(fs::exists(run / "checkpoint.ckpt"));
}

TEST_CASE("cli: on GPUs, a rank out of memory or a process that dies ends the run within bounds, the checkpoint kept",
          "[cli][dist][fault][gpu]") {
  if (!splat::test::gpu_or_skip("planted faults on CUDA ranks")) return;
  std::vector<std::string> placements{"--device cuda --ranks 2"};  // two ranks sharing GPU 0
  if (splat::kernels::cuda_device_count() >= 2) placements.push_back("--device cuda --gpus 2");
  const fs::path dir = splat::test::scratch_dir("cli-fault-gpu");
  int n = 0;
  for (const std::string& ranks : placements)
    for (const std::string fault : {"oom:1:6", "exit:1:6"}) {
      INFO(ranks << ", " << fault);
      const fs::path run = dir / std::to_string(n++);
      const Faulted f = train_with_fault(run, fault, ranks);
      INFO(f.result.out);
      CHECK(f.seconds < 60);  // the scene's upload included
      if (fault[0] == 'o') {
        CHECK(f.result.code == 1);
        CHECK(count(f.result.out, "error: ") == 1);
        CHECK_THAT(splat::test::last_line(f.result.out),
                   Catch::StartsWith("error: rank 1 (CUDA device ") && Catch::Contains("out of memory on CUDA device"));
      } else {
        CHECK(f.result.code == 137);
      }
      check_resumes_at_4(run);
    }
}
