#include "core/transport/job_place.h"

#include <charconv>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

namespace splat::transport {

namespace {

// The launcher's variables, read with the same errors for all three: each message names the variable and
// who sets it.
class Reader {
 public:
  Reader(const Environment& environment, const char* source) : environment_(environment), source_(source) {}

  const char* text(const char* name) const { return environment_(name); }

  // A whole number at least `least`; nullopt when not set.
  std::optional<int> number(const char* name, int least) const {
    const char* value = environment_(name);
    if (!value) return std::nullopt;
    const std::optional<int> n = whole_number(value);
    if (!n || *n < least)
      throw std::invalid_argument(std::string(name) + "='" + value + "': expected a whole number of at least " +
                                  std::to_string(least) + " (" + source_ + ")");
    return n;
  }

  // The same, required once the launcher's first variable (`by`) is set.
  int required(const char* name, int least, const char* by, const std::string& how) const {
    if (const std::optional<int> n = number(name, least)) return *n;
    throw std::invalid_argument(std::string(name) + " is not set, though " + by + " is: " + how);
  }

  static std::optional<int> whole_number(std::string_view text) {
    int value = 0;
    const auto [at, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc() || at != text.data() + text.size() || text.empty()) return std::nullopt;
    return value;
  }

 private:
  const Environment& environment_;
  const char* source_;
};

// `environment`: "OpenMPI's environment", as messages name it.
void check_consistent(const JobPlace& p, const char* environment) {
  if (p.rank >= p.size || p.local_rank >= p.local_size || p.local_size > p.size)
    throw std::invalid_argument(std::string(environment) + " is inconsistent: rank " + std::to_string(p.rank) +
                                " of " + std::to_string(p.size) + ", local rank " + std::to_string(p.local_rank) +
                                " of " + std::to_string(p.local_size));
}

// MASTER_ADDR and MASTER_PORT: both or neither; `required_by` (torchrun-style's RANK) needs them.
std::optional<TcpAddress> master_address(const Reader& env, const char* required_by) {
  const char* host = env.text("MASTER_ADDR");
  const std::optional<int> port = env.number("MASTER_PORT", 1);
  if (port && *port > 65535)
    throw std::invalid_argument("MASTER_PORT=" + std::to_string(*port) + ": expected a TCP port, 1 to 65535");
  if (host && !*host) throw std::invalid_argument("MASTER_ADDR is empty: expected rank 0's host name or address");
  if (host && port) return TcpAddress{host, *port};
  if (!host && !port && !required_by) return std::nullopt;
  const char* missing = host ? "MASTER_PORT" : "MASTER_ADDR";
  const char* by = host ? "MASTER_ADDR" : port ? "MASTER_PORT" : required_by;
  throw std::invalid_argument(std::string(missing) + " is not set, though " + by +
                              " is: rank 0 listens on MASTER_PORT and the other ranks connect to "
                              "MASTER_ADDR:MASTER_PORT; set both");
}

std::optional<JobPlace> from_openmpi(const Environment& environment) {
  const Reader env(environment, "the environment OpenMPI's mpirun gives its processes");
  const std::optional<int> size = env.number("OMPI_COMM_WORLD_SIZE", 1);
  if (!size) return std::nullopt;
  const char* by = "OMPI_COMM_WORLD_SIZE";
  const std::string how = "start splatlab with OpenMPI's mpirun, or unset OMPI_COMM_WORLD_SIZE to run without it";
  JobPlace p{.launcher = Launcher::OpenMpi,
             .rank = env.required("OMPI_COMM_WORLD_RANK", 0, by, how),
             .size = *size,
             .local_rank = env.required("OMPI_COMM_WORLD_LOCAL_RANK", 0, by, how),
             .local_size = env.required("OMPI_COMM_WORLD_LOCAL_SIZE", 1, by, how),
             .rendezvous = std::nullopt,
             .pmi = false};
  check_consistent(p, "OpenMPI's environment");
  return p;
}

std::optional<JobPlace> from_slurm(const Environment& environment) {
  const Reader env(environment, "the environment Slurm's srun gives its tasks");
  const std::optional<int> rank = env.number("SLURM_PROCID", 0);
  if (!rank) return std::nullopt;
  const char* by = "SLURM_PROCID";
  const std::string how = "start splatlab with srun, or unset SLURM_PROCID to run without it";
  JobPlace p{.launcher = Launcher::Slurm,
             .rank = *rank,
             .size = env.required("SLURM_NTASKS", 1, by, how),
             .local_rank = env.required("SLURM_LOCALID", 0, by, how),
             .local_size = 1,  // below
             .rendezvous = std::nullopt,
             .pmi = false};
  if (const std::optional<int> per_node = env.number("SLURM_NTASKS_PER_NODE", 1)) {
    p.local_size = *per_node;
  } else if (const char* layout = env.text("SLURM_TASKS_PER_NODE")) {
    const std::vector<int> counts = parse_slurm_tasks_per_node(layout);
    const int node = env.required("SLURM_NODEID", 0, "SLURM_TASKS_PER_NODE", how);
    if (node >= static_cast<int>(counts.size()))
      throw std::invalid_argument("SLURM_NODEID=" + std::to_string(node) + " is not a node of SLURM_TASKS_PER_NODE='" +
                                  layout + "' (" + std::to_string(counts.size()) + " node(s))");
    p.local_size = counts[static_cast<size_t>(node)];
  } else {
    throw std::invalid_argument("neither SLURM_NTASKS_PER_NODE nor SLURM_TASKS_PER_NODE is set, though SLURM_PROCID "
                                "is: " + how);
  }
  check_consistent(p, "Slurm's environment");
  p.rendezvous = master_address(env, nullptr);
  p.pmi = env.text("PMIX_RANK") || env.text("PMI_RANK");
  return p;
}

std::optional<JobPlace> from_torchrun(const Environment& environment) {
  const Reader env(environment, "torchrun-style launch variables");
  const std::optional<int> rank = env.number("RANK", 0);
  if (!rank) return std::nullopt;
  const char* by = "RANK";
  const std::string how = "a torchrun-style launch sets RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE, MASTER_ADDR "
                          "and MASTER_PORT for every process; unset RANK to run without it";
  JobPlace p{.launcher = Launcher::Torchrun,
             .rank = *rank,
             .size = env.required("WORLD_SIZE", 1, by, how),
             .local_rank = env.required("LOCAL_RANK", 0, by, how),
             .local_size = env.required("LOCAL_WORLD_SIZE", 1, by, how),
             .rendezvous = std::nullopt,
             .pmi = false};
  check_consistent(p, "the torchrun-style environment");
  p.rendezvous = master_address(env, by);
  return p;
}

}  // namespace

const char* launcher_name(Launcher launcher) {
  switch (launcher) {
    case Launcher::OpenMpi: return "mpirun";
    case Launcher::Slurm: return "srun";
    case Launcher::Torchrun: return "torchrun-style";
  }
  return "?";
}

std::vector<int> parse_slurm_tasks_per_node(const std::string& text, const char* name) {
  const auto malformed = [&] {
    return std::invalid_argument(std::string(name) + "='" + text +
                                 "': expected task counts per node like '2(x3),1' (three nodes of 2 tasks, one of 1)");
  };
  std::vector<int> counts;
  size_t at = 0;
  while (at <= text.size()) {
    const size_t end = std::min(text.find(',', at), text.size());
    const std::string_view entry = std::string_view(text).substr(at, end - at);
    const size_t paren = entry.find('(');
    const std::optional<int> tasks = Reader::whole_number(entry.substr(0, paren));
    int repeat = 1;
    if (paren != std::string_view::npos) {
      // "(xN)": N nodes with this count.
      if (entry.size() < paren + 4 || entry.substr(paren, 2) != "(x" || entry.back() != ')') throw malformed();
      const std::optional<int> n = Reader::whole_number(entry.substr(paren + 2, entry.size() - paren - 3));
      if (!n || *n < 1) throw malformed();
      repeat = *n;
    }
    if (!tasks || *tasks < 1) throw malformed();
    counts.insert(counts.end(), static_cast<size_t>(repeat), *tasks);
    at = end + 1;
  }
  return counts;
}

std::optional<JobPlace> job_place_from_environment(const Environment& environment) {
  if (std::optional<JobPlace> p = from_openmpi(environment)) return p;
  if (std::optional<JobPlace> p = from_slurm(environment)) return p;
  return from_torchrun(environment);
}

std::optional<JobPlace> job_place_from_environment() {
  return job_place_from_environment([](const char* name) -> const char* { return std::getenv(name); });
}

const TcpAddress& rendezvous_address(const JobPlace& place) {
  if (place.rendezvous) return *place.rendezvous;
  throw std::invalid_argument(
      "under srun without PMIx (or where MPI's view of the job is not srun's) the tasks meet over TCP at "
      "MASTER_ADDR:MASTER_PORT, and neither is set: export both in the batch script, e.g. "
      "MASTER_ADDR=$(scontrol show hostnames \"$SLURM_JOB_NODELIST\" | head -n 1) MASTER_PORT=29500, "
      "or start the tasks with srun --mpi=pmix");
}

}  // namespace splat::transport
