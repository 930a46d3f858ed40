#include "core/transport/control_channel.h"

namespace splat::transport {

namespace {

class SoloControlChannel final : public ControlChannel {
 public:
  void share(std::span<int64_t>) override {}
};

class InProcessControlChannel final : public ControlChannel {
 public:
  InProcessControlChannel(std::shared_ptr<Rendezvous> group, int rank) : group_(std::move(group)), rank_(rank) {}
  void share(std::span<int64_t> values) override {
    if (rank_ == 0) group_->send_control(values);
    else group_->take_control(rank_, values);
  }

 private:
  std::shared_ptr<Rendezvous> group_;
  int rank_;
};

}  // namespace

std::unique_ptr<ControlChannel> make_solo_control_channel() { return std::make_unique<SoloControlChannel>(); }

std::unique_ptr<ControlChannel> make_in_process_control_channel(std::shared_ptr<Rendezvous> group, int rank) {
  if (rank < 0 || rank >= group->size())
    throw std::invalid_argument("rank " + std::to_string(rank) + " is not a rank of " + std::to_string(group->size()));
  return std::make_unique<InProcessControlChannel>(std::move(group), rank);
}

}  // namespace splat::transport
