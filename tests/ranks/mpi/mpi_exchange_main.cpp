// The MPI side of tests/ranks/test_mpi.cpp: every process runs the exchange script over the MPI backend
// and writes its transcript to <prefix>.<rank>.bin. With --fail-rank R, rank R fails before the script
// (as a rank running out of memory would) and must end the whole job, naming itself.
#include <cstdio>
#include <fstream>
#include <stdexcept>
#include <string>

#include "core/transport/mpi/mpi_communicator.h"
#include "tests/ranks/exchange_script.h"

int main(int argc, char** argv) {
  splat::transport::MpiSession mpi;
  int fail_rank = -1;
  std::string prefix;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--fail-rank" && i + 1 < argc) fail_rank = std::stoi(argv[++i]);
    else prefix = a;
  }
  if (prefix.empty()) {
    std::fprintf(stderr, "usage: mpirun -np N %s [--fail-rank R] <output prefix>\n", argv[0]);
    return 2;
  }
  try {
    auto comm = splat::transport::make_mpi_communicator();
    if (comm->rank() == fail_rank) throw std::runtime_error("failing on purpose");
    const std::vector<uint8_t> transcript = splat::test::run_exchange_script(*comm);
    const std::string path = prefix + "." + std::to_string(comm->rank()) + ".bin";
    std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(transcript.data()),
                                                static_cast<std::streamsize>(transcript.size()));
  } catch (const std::exception& e) {
    splat::transport::abort_mpi_job(e.what());
  }
  return 0;
}
