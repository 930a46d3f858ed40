// ModelSnapshot: an immutable copy of the parameters on one context. Uploading a host model and
// downloading it back is exact; copies to another context are independent of their source; the
// view points into the snapshot's own columns; capturing a trainer's Gaussians copies their values.
#include <catch2/catch.hpp>

#include "core/model/device_gaussians.h"
#include "core/model/model_snapshot.h"
#include "tests/support/model_checks.h"
#include "tests/support/test_support.h"

using namespace splat;
using splat::test::check_same_model;

namespace {
GaussianModel sample_model(int sh_degree) {
  RandomInitOptions o;
  o.count = 57;
  o.init.sh_degree = sh_degree;
  GaussianModel m = init_random(o);
  // Distinct values in every column, so a swapped or missing column shows.
  for (int64_t i = 0; i < m.size(); ++i) m.opacity_logits[i] = -1.f + 0.01f * static_cast<float>(i);
  for (size_t k = 0; k < m.sh_rest.size(); ++k) m.sh_rest[k] = 0.001f * static_cast<float>(k % 97);
  // As the trainer holds them (each column in its storage precision).
  return GaussianState::from_model(m).to_model();
}
}  // namespace

TEST_CASE("model snapshot: host upload, download and view", "[snapshot]") {
  for (int degree : {0, 3}) {
    const GaussianModel m = sample_model(degree);
    const auto s = ModelSnapshot::upload(m, kernels::Device::CPU);
    CHECK(s->size() == m.size());
    CHECK(s->version() == 0);
    check_same_model(s->download(), m);

    const kernels::GaussiansView v = s->view();
    CHECK(v.n == m.size());
    CHECK(v.means == s->param(Group::Means).data());
    CHECK(v.opacity_logits == s->param(Group::Opacity).data());
    CHECK(v.sh_rest_coeffs == m.sh_rest_coeffs());
    CHECK((v.sh_rest == nullptr) == (degree == 0));
    CHECK(v.opacity_logits[5] == m.opacity_logits[5]);
  }
  const auto empty = ModelSnapshot::upload(GaussianModel(3, 0), kernels::Device::CPU);
  CHECK(empty->size() == 0);
  CHECK(empty->download().size() == 0);
}

TEST_CASE("model snapshot: capture copies the trainer's values, not their storage", "[snapshot]") {
  const GaussianModel m = sample_model(2);
  DeviceGaussians g(kernels::Device::CPU, GaussianState::from_model(m));
  const auto s = ModelSnapshot::capture(g, 7, 42);
  CHECK(s->version() == 7);
  CHECK(s->step() == 42);
  CHECK(s->param(Group::Means).data() != g.param(Group::Means).data());
  const GaussianModel at_capture = g.to_model();
  check_same_model(s->download(), at_capture);
  // Later edits of the trainer's columns leave the snapshot as it was.
  g.cap_values(Group::Opacity, -5.f);
  g.keep_rows(std::vector<uint8_t>(static_cast<size_t>(m.size()), 0));
  CHECK(g.size() == 0);
  check_same_model(s->download(), at_capture);

  const auto copy = s->copy_to(kernels::Device::CPU);
  CHECK(copy->version() == 7);
  CHECK(copy->param(Group::ShDc).data() != s->param(Group::ShDc).data());
  check_same_model(copy->download(), at_capture);
}

TEST_CASE("model snapshot: CUDA capture and copies equal the host values", "[snapshot][gpu]") {
  if (!test::gpu_or_skip("CUDA model snapshots")) return;
  const GaussianModel m = sample_model(3);
  DeviceGaussians g(kernels::Device::CUDA, GaussianState::from_model(m));
  const auto s = ModelSnapshot::capture(g, 1, 0);
  CHECK(s->context().device == kernels::Device::CUDA);
  check_same_model(s->download(), g.to_model());
  check_same_model(s->copy_to(kernels::Device::CPU)->download(), g.to_model());
  check_same_model(ModelSnapshot::upload(m, kernels::Device::CUDA)->download(), m);
}

namespace {
// A snapshot on `device` of some rows (repeats allowed) equals the host model's same rows.
void check_snapshot_rows(kernels::Device device) {
  const GaussianModel m = sample_model(3);
  const std::vector<int32_t> rows = {4, 0, 56, 17, 17};
  // The host model's rows: append copies of them (in the order given), then keep only the copies.
  GaussianModel expected = m;
  expected.append_rows(std::vector<int64_t>(rows.begin(), rows.end()));
  std::vector<uint8_t> copies(size_t(expected.size()), 0);
  std::fill(copies.begin() + m.size(), copies.end(), uint8_t(1));
  expected.keep_rows(copies);
  const auto s = ModelSnapshot::upload(m, device);
  const auto some = s->rows(rows);
  CHECK(some->context().device == device);
  CHECK(some->size() == 5);
  check_same_model(some->download(), expected);
  CHECK(s->rows({})->size() == 0);
  CHECK_THROWS_AS(s->rows(std::vector<int32_t>{57}), std::out_of_range);
  // A trainer's snapshot under mixed precision holds SH rest in bf16; its rows stay bf16, as stored.
  const DeviceGaussians amp(device, GaussianState::from_model(m, kAmpColumns));
  const auto amp_some = ModelSnapshot::capture(amp, 1, 0)->rows(rows);
  CHECK(amp_some->view().sh_rest_bf16 != nullptr);
  check_same_model(amp_some->download(), GaussianState::from_model(expected, kAmpColumns).to_model());
}
}  // namespace

TEST_CASE("model snapshot: a snapshot of some rows equals the host model's rows", "[snapshot]") {
  check_snapshot_rows(kernels::Device::CPU);
}

TEST_CASE("model snapshot: CUDA snapshot rows equal the host model's rows", "[snapshot][gpu]") {
  if (test::gpu_or_skip("snapshot rows on CUDA")) check_snapshot_rows(kernels::Device::CUDA);
}
