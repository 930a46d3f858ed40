#include "core/train/sharded/exchange_plan.h"

#include <stdexcept>
#include <string>

namespace splat::sharded {

ExchangePlan::ExchangePlan(const kernels::ComputeContext& where, int ranks)
    : ranks_(ranks), send_(size_t(ranks)), receive_(size_t(ranks)),
      copies_(std::make_unique<kernels::HostCopies>(where)) {
  if (2 * ranks > kernels::HostCopies::kMostValues)
    throw std::invalid_argument("exchange plan: " + std::to_string(ranks) + " ranks, at most " +
                                std::to_string(kernels::HostCopies::kMostValues / 2));
}

ExchangePlan::Sizes ExchangePlan::plan(const std::vector<int64_t>& all_send, const std::vector<int64_t>& all_receive) {
  // Every rank has counted the same steps, so every rank learns from the same ones here.
  while (pending_.size() >= size_t(kLag)) {
    learn(pending_.front(), copies_->values(pending_.front().copy));
    pending_.pop_front();
  }
  current_ = {0, all_send, all_receive, {all_send, all_receive}};
  for (size_t q = 0; q < size_t(ranks_); ++q) {
    if (const auto s = send_[q].capacity(all_send[q], all_send[q])) current_.sizes.send[q] = *s;
    if (const auto r = receive_[q].capacity(all_receive[q], all_receive[q])) current_.sizes.receive[q] = *r;
  }
  return current_.sizes;
}

void ExchangePlan::counted(const int64_t* device_counts) {
  current_.copy = copies_->queue(device_counts, 2 * ranks_);
  pending_.push_back(current_);
}

void ExchangePlan::learn(const Step& s, const std::vector<int64_t>& counts) {
  for (size_t q = 0; q < size_t(ranks_); ++q) {
    overflows_ += send_[q].record(s.all_send[q], counts[q], s.sizes.send[q]);
    overflows_ += receive_[q].record(s.all_receive[q], counts[size_t(ranks_) + q], s.sizes.receive[q]);
  }
}

}  // namespace splat::sharded
