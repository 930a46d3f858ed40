// A process's place in a job of processes (core/transport/job_place.h) as each launcher describes it:
// OpenMPI's, Slurm's and torchrun-style variables, their precedence, Slurm's per-node task counts, and one
// error naming the variable for a set that is incomplete, malformed or inconsistent.
#include <catch2/catch.hpp>

#include <map>
#include <string>

#include "core/transport/job_place.h"

using namespace splat::transport;

namespace {

using Variables = std::map<std::string, std::string>;

std::optional<JobPlace> place_of(const Variables& variables) {
  return job_place_from_environment([&](const char* name) -> const char* {
    const auto it = variables.find(name);
    return it == variables.end() ? nullptr : it->second.c_str();
  });
}

// The message place_of throws (empty when it does not).
std::string error_of(const Variables& variables) {
  try {
    place_of(variables);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

const Variables kOpenMpi{{"OMPI_COMM_WORLD_SIZE", "4"}, {"OMPI_COMM_WORLD_RANK", "3"},
                         {"OMPI_COMM_WORLD_LOCAL_RANK", "1"}, {"OMPI_COMM_WORLD_LOCAL_SIZE", "2"}};
const Variables kSlurm{{"SLURM_PROCID", "5"}, {"SLURM_NTASKS", "7"}, {"SLURM_LOCALID", "1"},
                       {"SLURM_NODEID", "2"}, {"SLURM_TASKS_PER_NODE", "2(x3),1"}};
const Variables kTorchrun{{"RANK", "2"},           {"WORLD_SIZE", "4"},         {"LOCAL_RANK", "0"},
                          {"LOCAL_WORLD_SIZE", "2"}, {"MASTER_ADDR", "nodeA"}, {"MASTER_PORT", "29500"}};

Variables with(Variables v, const Variables& more) {
  for (const auto& [name, value] : more) v[name] = value;
  return v;
}
Variables without(Variables v, const std::string& name) {
  v.erase(name);
  return v;
}

}  // namespace

TEST_CASE("job place: no launcher's variables, no job", "[launch]") {
  CHECK_FALSE(place_of({}).has_value());
  CHECK_FALSE(place_of({{"MASTER_ADDR", "nodeA"}, {"MASTER_PORT", "29500"}, {"SLURM_NTASKS", "4"}}).has_value());
}

TEST_CASE("job place: OpenMPI's, Slurm's and torchrun-style variables each give rank, size and the node's share",
          "[launch]") {
  const JobPlace mpi = *place_of(kOpenMpi);
  CHECK(mpi.launcher == Launcher::OpenMpi);
  CHECK((mpi.rank == 3 && mpi.size == 4 && mpi.local_rank == 1 && mpi.local_size == 2));
  CHECK_FALSE(mpi.rendezvous);

  const JobPlace slurm = *place_of(kSlurm);
  CHECK(slurm.launcher == Launcher::Slurm);
  CHECK((slurm.rank == 5 && slurm.size == 7 && slurm.local_rank == 1 && slurm.local_size == 2));
  CHECK_FALSE(slurm.rendezvous);  // needed only when MPI cannot see the tasks
  CHECK_FALSE(slurm.pmi);
  CHECK(place_of(with(kSlurm, {{"PMIX_RANK", "5"}}))->pmi);
  // The last node holds one task; SLURM_NTASKS_PER_NODE, where set, is the count itself.
  CHECK(place_of(with(kSlurm, {{"SLURM_NODEID", "3"}, {"SLURM_PROCID", "6"}, {"SLURM_LOCALID", "0"}}))->local_size == 1);
  CHECK(place_of(with(without(kSlurm, "SLURM_TASKS_PER_NODE"), {{"SLURM_NTASKS_PER_NODE", "3"}}))->local_size == 3);
  const JobPlace slurm_tcp = *place_of(with(kSlurm, {{"MASTER_ADDR", "nodeA"}, {"MASTER_PORT", "29500"}}));
  REQUIRE(slurm_tcp.rendezvous);
  CHECK(slurm_tcp.rendezvous->text() == "nodeA:29500");

  const JobPlace torchrun = *place_of(kTorchrun);
  CHECK(torchrun.launcher == Launcher::Torchrun);
  CHECK((torchrun.rank == 2 && torchrun.size == 4 && torchrun.local_rank == 0 && torchrun.local_size == 2));
  CHECK(rendezvous_address(torchrun).text() == "nodeA:29500");
}

TEST_CASE("job place: OpenMPI wins over Slurm, which wins over torchrun-style variables", "[launch]") {
  // mpirun inside a Slurm allocation passes the allocation's SLURM_* on; a batch script may export RANK.
  CHECK(place_of(with(with(kOpenMpi, kSlurm), kTorchrun))->launcher == Launcher::OpenMpi);
  CHECK(place_of(with(kSlurm, kTorchrun))->launcher == Launcher::Slurm);
  CHECK(place_of(with(kSlurm, kTorchrun))->rank == 5);
}

TEST_CASE("job place: Slurm's tasks per node, '2(x3),1' and its malformed kinds", "[launch]") {
  CHECK(parse_slurm_tasks_per_node("2(x3),1") == std::vector<int>{2, 2, 2, 1});
  CHECK(parse_slurm_tasks_per_node("4") == std::vector<int>{4});
  CHECK(parse_slurm_tasks_per_node("1,3(x2)") == std::vector<int>{1, 3, 3});
  for (const char* bad : {"", "2(x3", "2(3)", "2(x0)", "0", "x,1", "2,,1", "2(x3),", "-1", "2(x3)1"}) {
    INFO(bad);
    try {
      parse_slurm_tasks_per_node(bad);
      FAIL("accepted");
    } catch (const std::invalid_argument& e) {
      CHECK(std::string(e.what()).find(std::string("SLURM_TASKS_PER_NODE='") + bad + "'") == 0);
    }
  }
}

TEST_CASE("job place: an incomplete, malformed or inconsistent set is refused naming the variable", "[launch]") {
  CHECK(error_of(with(kOpenMpi, {{"OMPI_COMM_WORLD_SIZE", "two"}})).find("OMPI_COMM_WORLD_SIZE='two': expected a whole number") == 0);
  CHECK(error_of(without(kOpenMpi, "OMPI_COMM_WORLD_RANK")).find("OMPI_COMM_WORLD_RANK is not set") == 0);
  CHECK(error_of(with(kOpenMpi, {{"OMPI_COMM_WORLD_RANK", "4"}})).find("OpenMPI's environment is inconsistent") == 0);

  CHECK(error_of(without(kSlurm, "SLURM_NTASKS")).find("SLURM_NTASKS is not set, though SLURM_PROCID is") == 0);
  CHECK(error_of(with(kSlurm, {{"SLURM_LOCALID", "1x"}})).find("SLURM_LOCALID='1x': expected a whole number") == 0);
  CHECK(error_of(without(kSlurm, "SLURM_NODEID")).find("SLURM_NODEID is not set, though SLURM_TASKS_PER_NODE is") == 0);
  CHECK(error_of(with(kSlurm, {{"SLURM_NODEID", "4"}})).find("SLURM_NODEID=4 is not a node of SLURM_TASKS_PER_NODE='2(x3),1'") == 0);
  CHECK(error_of(with(kSlurm, {{"SLURM_TASKS_PER_NODE", "2(x3"}})).find("SLURM_TASKS_PER_NODE='2(x3'") == 0);
  CHECK(error_of(without(kSlurm, "SLURM_TASKS_PER_NODE")).find("neither SLURM_NTASKS_PER_NODE nor SLURM_TASKS_PER_NODE") == 0);
  CHECK(error_of(with(kSlurm, {{"MASTER_ADDR", "nodeA"}})).find("MASTER_PORT is not set, though MASTER_ADDR is") == 0);
  // srun without PMIx meets over TCP: the message says how a batch script sets the address.
  try {
    rendezvous_address(*place_of(kSlurm));
    FAIL("no address, yet accepted");
  } catch (const std::invalid_argument& e) {
    CHECK(std::string(e.what()).find("MASTER_ADDR") != std::string::npos);
    CHECK(std::string(e.what()).find("scontrol show hostnames") != std::string::npos);
  }

  CHECK(error_of(without(kTorchrun, "WORLD_SIZE")).find("WORLD_SIZE is not set, though RANK is") == 0);
  CHECK(error_of(without(without(kTorchrun, "MASTER_ADDR"), "MASTER_PORT")).find("MASTER_ADDR is not set, though RANK is") == 0);
  CHECK(error_of(without(kTorchrun, "MASTER_ADDR")).find("MASTER_ADDR is not set, though MASTER_PORT is") == 0);
  CHECK(error_of(without(kTorchrun, "MASTER_PORT")).find("MASTER_PORT is not set, though MASTER_ADDR is") == 0);
  CHECK(error_of(with(kTorchrun, {{"MASTER_PORT", "70000"}})).find("MASTER_PORT=70000: expected a TCP port") == 0);
  CHECK(error_of(with(kTorchrun, {{"MASTER_ADDR", ""}})).find("MASTER_ADDR is empty") == 0);
  CHECK(error_of(with(kTorchrun, {{"LOCAL_RANK", "2"}})).find("the torchrun-style environment is inconsistent") == 0);
}
