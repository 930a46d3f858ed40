// `splatlab train` started with torchrun-style variables, as a user runs it: the processes meet over the TCP
// rendezvous at MASTER_ADDR:MASTER_PORT (core/transport/tcp/). CPU ranks are refused there (TCP carries no
// CPU training data; CUDA ranks talk NCCL): both processes meet, agree that the setup failed and stop with
// one line saying why, leaving nothing behind. An incomplete set of variables is refused naming the variable.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

#include "core/transport/tcp/tcp_socket.h"
#include "tests/app/cli_runner.h"
#include "tests/support/test_support.h"

namespace fs = std::filesystem;
using splat::test::CliResult;
using splat::test::count;

namespace {

// The torchrun-style variables of rank `rank` of 2 on this machine, meeting at 127.0.0.1:`port`.
std::string torchrun_env(int rank, int port) {
  return "env RANK=" + std::to_string(rank) + " WORLD_SIZE=2 LOCAL_RANK=" + std::to_string(rank) +
         " LOCAL_WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT=" + std::to_string(port) + " ";
}

}  // namespace

TEST_CASE("cli: two processes with torchrun-style variables meet over TCP and refuse --device cpu in one line",
          "[cli][dist]") {
  const fs::path out = splat::test::scratch_dir("cli-tcp-cpu") / "run";
  const std::string train = "timeout 120 " + splat::test::splatlab_binary() +
                            " train demo --device cpu --batch-size 2 --images 4 --out '" + out.string() + "'";
  const int port = splat::transport::bound_port(splat::transport::listen_tcp(0));  // free a moment ago
  // Rank 1 in the background, rank 0 in the foreground; the job's status is rank 0's, rank 1's is printed.
  // A subshell, so that the output of both is captured.
  std::string both = torchrun_env(1, port) + train + " & " + torchrun_env(0, port) + train;
  both += "; code=$?; wait $!; echo \"rank 1 exit $?\"; exit $code";
  const CliResult job = splat::test::run_cli_command("(" + both + ")");
  INFO(job.out);
  CHECK(job.code == 1);
  CHECK(job.out.find("rank 1 exit 1") != std::string::npos);
  CHECK(count(job.out, "error: ") == 1);  // the lowest rank that failed speaks
  CHECK(job.out.find("error: rank 0 (CPU) on host ") != std::string::npos);
  CHECK(job.out.find("--device cpu: these torchrun-style processes met over TCP") != std::string::npos);
  CHECK(job.out.find("mpirun") != std::string::npos);  // what to use instead
  CHECK(job.out.find("no rank started training") != std::string::npos);
  CHECK_FALSE(fs::exists(out));
}

TEST_CASE("cli: an incomplete set of torchrun-style variables is refused naming the variable", "[cli][dist]") {
  const fs::path out = splat::test::scratch_dir("cli-tcp-environment") / "run";
  const std::string train = splat::test::splatlab_binary() + " train demo --device cpu --out '" + out.string() + "'";
  const CliResult no_size = splat::test::run_cli_command("RANK=0 MASTER_ADDR=127.0.0.1 MASTER_PORT=29500 " + train);
  CHECK(no_size.code == 1);
  CHECK(splat::test::last_line(no_size.out).find("error: WORLD_SIZE is not set, though RANK is") == 0);
  const CliResult no_port =
      splat::test::run_cli_command("RANK=0 WORLD_SIZE=2 LOCAL_RANK=0 LOCAL_WORLD_SIZE=2 MASTER_ADDR=nodeA " + train);
  CHECK(no_port.code == 1);
  CHECK(splat::test::last_line(no_port.out).find("error: MASTER_PORT is not set, though MASTER_ADDR is") == 0);
  CHECK_FALSE(fs::exists(out));
}
