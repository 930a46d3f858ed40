#pragma once
// Processes that no MPI launcher wired up (torchrun-style variables; srun without PMIx) meet over TCP:
// rank 0 listens on MASTER_PORT, every other rank connects to MASTER_ADDR:MASTER_PORT and all host talk
// goes through rank 0 (a star: the setup's sums and NCCL's id are small and rare; the training's data
// goes over NCCL). POSIX sockets only.
//
// Failure: a peer whose connection closes, that sends its failure notice (end_job) or that does not answer
// within the timeout fails the pending call with CommError naming it, and rank 0 passes that failure on
// to every other rank, so each of them names the same rank. The failure sticks: every later call throws
// it again. Rank 0's control channel looks for such notices before each block it sends.
#include <chrono>
#include <memory>

#include "core/transport/job_place.h"
#include "core/transport/process_group.h"
#include "core/transport/tcp/tcp_socket.h"

namespace splat::transport {

struct TcpOptions {
  // How long ranks have to meet: rank 0 waiting for every other rank, and they for rank 0 to listen.
  std::chrono::milliseconds meet{std::chrono::minutes(5)};
  // How long a collective waits for its peers (the setup's: scene loading may keep a rank long).
  std::chrono::milliseconds wait{std::chrono::minutes(30)};
};

// Rank `rank` of `size` joining at `root` (MASTER_ADDR:MASTER_PORT): rank 0 listens on root.port.
// Returns once this rank is connected (rank 0: once every rank is). Throws CommError naming the address
// and the rank that did not come.
std::unique_ptr<ProcessGroup> meet_over_tcp(const TcpAddress& root, int rank, int size, const TcpOptions& options = {});
// Rank 0 on a listener made beforehand (tests take a free port: listen_tcp(0)); `root` names it in messages.
std::unique_ptr<ProcessGroup> meet_over_tcp_as_root(Socket listener, const TcpAddress& root, int size,
                                                    const TcpOptions& options = {});

}  // namespace splat::transport
