// MPI ranks in separate processes (mpirun -np 2) against two thread ranks: the same exchange script must
// leave every rank with the same bytes; and a process that fails ends the job with its rank named.
#include <catch2/catch.hpp>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <sys/wait.h>

#include "core/transport/run_ranks.h"
#include "tests/ranks/exchange_script.h"
#include "tests/support/test_support.h"

using namespace splat;

namespace {

// The mpirun command line for the exchange program, or empty (after printing a skip line) where it cannot run.
std::string exchange_job_or_skip(const char* what) {
#ifndef SPLATLAB_MPI_EXCHANGE
  std::printf("SKIPPED (built without MPI): %s\n", what);
  return {};
#else
  const std::optional<std::string> mpirun = test::mpirun_or_skip(120, what);
  return mpirun ? *mpirun + "-np 2 " SPLATLAB_MPI_EXCHANGE " " : std::string();
#endif
}

struct Run {
  int status = -1;
  std::string output;
};

Run run_command(const std::string& cmd) {
  Run run;
  FILE* pipe = popen((cmd + " 2>&1").c_str(), "r");
  REQUIRE(pipe);
  char buf[4096];
  while (size_t n = fread(buf, 1, sizeof buf, pipe)) run.output.append(buf, n);
  run.status = pclose(pipe);
  return run;
}

std::vector<uint8_t> read_file(const std::filesystem::path& p) {
  std::ifstream f(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

}  // namespace

TEST_CASE("mpirun -np 2 over the MPI backend equals two thread ranks, byte for byte", "[dist]") {
  const std::string mpirun = exchange_job_or_skip("mpirun -np 2 against 2 threads");
  if (mpirun.empty()) return;
  const auto dir = test::scratch_dir("dist_mpi_exchange");
  const Run run = run_command(mpirun + (dir / "rank").string());
  INFO(run.output);
  REQUIRE(run.status == 0);

  std::vector<std::vector<uint8_t>> threads(2);
  transport::run_ranks(2, [](int) { return kernels::ComputeContext(kernels::Device::CPU); },
                  [&](transport::Communicator& comm) { threads[comm.rank()] = test::run_exchange_script(comm); });
  for (int r = 0; r < 2; ++r) {
    INFO("rank " << r);
    CHECK(threads[r].size() > 100);  // the script moved real data
    CHECK(read_file(dir / ("rank." + std::to_string(r) + ".bin")) == threads[r]);
  }
}

TEST_CASE("an MPI rank that fails ends the job with its rank named, without hanging", "[dist]") {
  const std::string mpirun = exchange_job_or_skip("a failing MPI rank");
  if (mpirun.empty()) return;
  const auto dir = test::scratch_dir("dist_mpi_failure");
  const Run run = run_command(mpirun + "--fail-rank 1 " + (dir / "rank").string());
  INFO(run.output);
  CHECK(run.status != 0);
  CHECK(WEXITSTATUS(run.status) != 124);  // ended by the failure, not by the 120 s guard
  CHECK_THAT(run.output, Catch::Contains("rank 1 (CPU) on host ") && Catch::Contains(" failed: failing on purpose"));
  CHECK_FALSE(std::filesystem::exists(dir / "rank.0.bin"));  // rank 0 did not finish alone
}
