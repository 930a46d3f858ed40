#include "core/transport/run_ranks.h"

#include <cstdlib>
#include <exception>
#include <memory>
#include <set>
#include <thread>
#include <vector>

#include "core/transport/in_process_communicator.h"
#include "core/transport/rendezvous.h"
#include "kernels/device.h"
#if SPLATLAB_HAVE_NCCL
#include "core/transport/nccl/nccl_communicator.h"
#endif

namespace splat::transport {

namespace {

std::string message_of(const std::exception_ptr& e) {
  try {
    std::rethrow_exception(e);
  } catch (const std::exception& x) {
    return x.what();
  } catch (...) {
    return "an exception that is not a std::exception";
  }
}

[[noreturn]] void rethrow_naming_rank(const std::exception_ptr& e, const std::string& rank_name, int rank) {
  try {
    std::rethrow_exception(e);
  } catch (const CommError&) {
    throw;
  } catch (...) {
    std::throw_with_nested(CommError(rank_name + " failed: " + message_of(e), rank));
  }
}

// SPLATLAB_RANK_BACKEND=threads or =nccl in place of Auto: to compare the two backends on one machine.
RankBackend backend_from_environment(RankBackend wanted) {
  const char* v = std::getenv("SPLATLAB_RANK_BACKEND");
  if (wanted != RankBackend::Auto || !v || !*v) return wanted;
  const std::string name(v);
  if (name == "threads") return RankBackend::InProcess;
  if (name == "nccl") return RankBackend::Nccl;
  throw std::invalid_argument("SPLATLAB_RANK_BACKEND is \"" + name + "\": use threads or nccl (or leave it unset)");
}

// In-process ranks on several GPUs copy between them: let every pair of their devices do it directly.
void connect_devices(std::span<const kernels::ComputeContext> contexts) {
  std::set<int> ordinals;
  for (const kernels::ComputeContext& c : contexts)
    if (c.device == kernels::Device::CUDA) ordinals.insert(c.ordinal);
  for (const int a : ordinals)
    for (const int b : ordinals)
      if (a != b) kernels::enable_peer_access(a, b);
}

}  // namespace

bool nccl_built_in() { return SPLATLAB_HAVE_NCCL != 0; }

RankBackend choose_backend(std::span<const kernels::ComputeContext> contexts, RankBackend wanted,
                           const PeerQuery& peers) {
  if (contexts.empty()) throw std::invalid_argument("at least one rank is needed");
  const kernels::Device device = contexts[0].device;
  for (size_t r = 1; r < contexts.size(); ++r)
    if (contexts[r].device != device)
      throw std::invalid_argument(describe_rank(0, contexts[0]) + " and " +
                                  describe_rank(static_cast<int>(r), contexts[r]) +
                                  " are on different backends: ranks are all CPU or all CUDA");
  if (wanted == RankBackend::InProcess) return wanted;

  std::string why_not;
  if (!nccl_built_in()) why_not = "this build has no NCCL";
  else if (device != kernels::Device::CUDA) why_not = "NCCL needs CUDA ranks";
  else {
    std::set<int> ordinals;
    for (size_t r = 0; r < contexts.size() && why_not.empty(); ++r)
      if (!ordinals.insert(contexts[r].ordinal).second)
        why_not = "NCCL needs one rank per GPU, and " + describe_rank(static_cast<int>(r), contexts[r]) +
                  " shares its GPU with another rank (the in-process backend runs several ranks on one GPU)";
  }
  if (wanted == RankBackend::Nccl) {
    if (!why_not.empty()) throw std::invalid_argument(why_not);
    return wanted;
  }
  if (!why_not.empty() || contexts.size() < 2) return RankBackend::InProcess;
  for (const kernels::ComputeContext& a : contexts)
    for (const kernels::ComputeContext& b : contexts)
      if (a.ordinal != b.ordinal && !peers(a.ordinal, b.ordinal)) return RankBackend::Nccl;
  return RankBackend::InProcess;
}

void run_ranks(int ranks, const ContextFor& context_for, const RankWork& work, RankBackend backend,
               const CommOptions& options) {
  run_ranks_with_control(
      ranks, context_for, [&](Communicator& comm, ControlChannel&) { work(comm); }, backend, options);
}

void run_ranks_with_control(int ranks, const ContextFor& context_for, const ControlledRankWork& work,
                            RankBackend backend, const CommOptions& options) {
  if (ranks < 1) throw std::invalid_argument("run_ranks needs at least 1 rank, got " + std::to_string(ranks));
  std::vector<kernels::ComputeContext> contexts;
  std::vector<std::string> names;
  for (int r = 0; r < ranks; ++r) {
    contexts.push_back(context_for(r));
    names.push_back(describe_rank(r, contexts.back()));
  }
  const RankBackend chosen = choose_backend(contexts, backend_from_environment(backend));
  if (chosen == RankBackend::InProcess) connect_devices(contexts);
  // NCCL ranks use the rendezvous only to hear of each other's failures and for the control channel.
  auto group = std::make_shared<Rendezvous>(names, options.timeout);
#if SPLATLAB_HAVE_NCCL
  const NcclId nccl_id = chosen == RankBackend::Nccl ? make_nccl_id() : NcclId{};
#endif

  std::vector<std::exception_ptr> errors(ranks);
  // The communicators outlive every rank's work: after a collective's last barrier a peer may still
  // enqueue a wait on this rank's CUDA events (in-process backend), so none is destroyed before every
  // thread has returned.
  std::vector<std::unique_ptr<Communicator>> comms(ranks);
  std::vector<std::thread> threads;
  for (int r = 0; r < ranks; ++r)
    threads.emplace_back([&, r] {
      try {
        std::unique_ptr<Communicator>& comm = comms[r];
#if SPLATLAB_HAVE_NCCL
        if (chosen == RankBackend::Nccl) comm = make_nccl_communicator(nccl_id, r, ranks, contexts[r], options, group);
#endif
        if (!comm) comm = std::make_unique<InProcessCommunicator>(group, r, contexts[r]);
        const std::unique_ptr<ControlChannel> control = make_in_process_control_channel(group, r);
        work(*comm, *control);
      } catch (...) {
        errors[r] = std::current_exception();
        group->abort(r, message_of(errors[r]));
      }
      group->leave(r);
    });
  for (std::thread& t : threads) t.join();

  const int failed = group->failed_rank();
  if (failed < 0) return;
  if (errors[failed]) rethrow_naming_rank(errors[failed], names[failed], failed);
  // The failing rank itself returned (it was declared failed for leaving or arriving late): report what
  // the first rank that noticed saw.
  for (int r = 0; r < ranks; ++r)
    if (errors[r]) rethrow_naming_rank(errors[r], names[r], r);
}

}  // namespace splat::transport
