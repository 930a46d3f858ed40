#include <catch2/catch.hpp>

#include <cmath>

#include "core/model/device_gaussians.h"

using namespace splat;

namespace {
// Every float of row i in every column and both moments encodes (i, group, which) so that any
// misaligned row edit shows up.
float code(int64_t row, Group g, int which, int k) {
  return float(row * 1000 + static_cast<int>(g) * 100 + which * 10 + k);
}

GaussianState coded_state(int64_t n, int sh_degree = 1) {
  GaussianState s(sh_degree, n);
  for (Group g : kAllGroups) {
    const int w = s.width(g);
    for (int64_t i = 0; i < n; ++i)
      for (int k = 0; k < w; ++k) {
        s.col(g).value[i * w + k] = code(i, g, 0, k % 10);
        s.col(g).exp_avg[i * w + k] = code(i, g, 1, k % 10);
        s.col(g).exp_avg_sq[i * w + k] = code(i, g, 2, k % 10);
      }
  }
  return s;
}

// Checks that row `row` of s holds original row `orig`'s values; moments either original or zero.
void check_row(const GaussianState& s, int64_t row, int64_t orig, bool moments_zero) {
  for (Group g : kAllGroups) {
    const int w = s.width(g);
    for (int k = 0; k < w; ++k) {
      CHECK(s.col(g).value[row * w + k] == code(orig, g, 0, k % 10));
      CHECK(s.col(g).exp_avg[row * w + k] == (moments_zero ? 0.f : code(orig, g, 1, k % 10)));
      CHECK(s.col(g).exp_avg_sq[row * w + k] == (moments_zero ? 0.f : code(orig, g, 2, k % 10)));
    }
  }
}
}  // namespace

TEST_CASE("group widths follow the SH storage degree", "[device_gaussians]") {
  CHECK(group_width(Group::Means, 3) == 3);
  CHECK(group_width(Group::Quats, 3) == 4);
  CHECK(group_width(Group::Opacity, 3) == 1);
  CHECK(group_width(Group::ShRest, 0) == 0);
  CHECK(group_width(Group::ShRest, 1) == 9);
  CHECK(group_width(Group::ShRest, 3) == 45);
}

TEST_CASE("GaussianState row edits keep parameters and moments aligned", "[device_gaussians]") {
  GaussianState s = coded_state(5);
  const std::vector<int64_t> rows{3, 0, 3};
  s.append_rows(rows);
  s.check_consistent();
  REQUIRE(s.size() == 8);
  for (int64_t i = 0; i < 5; ++i) check_row(s, i, i, false);
  check_row(s, 5, 3, true);  // copies start without momentum
  check_row(s, 6, 0, true);
  check_row(s, 7, 3, true);

  const std::vector<uint8_t> keep{0, 1, 0, 1, 1, 0, 1, 0};
  s.keep_rows(keep);
  s.check_consistent();
  REQUIRE(s.size() == 4);
  check_row(s, 0, 1, false);
  check_row(s, 1, 3, false);
  check_row(s, 2, 4, false);
  check_row(s, 3, 0, true);

  const std::vector<int64_t> reset{1};
  s.reset_moments(reset);
  check_row(s, 1, 3, true);
  check_row(s, 2, 4, false);

  const std::vector<uint8_t> wrong(3, 1);
  CHECK_THROWS_AS(s.keep_rows(wrong), std::logic_error);
  const std::vector<int64_t> bad{7};
  CHECK_THROWS_AS(s.append_rows(bad), std::out_of_range);
}

TEST_CASE("DeviceGaussians round-trips state and resizes gradients and statistics with the rows",
          "[device_gaussians]") {
  DeviceGaussians g(kernels::Device::CPU, coded_state(4, 2));
  CHECK(g.size() == 4);
  CHECK(g.sh_rest_coeffs() == 8);
  const kernels::GaussiansView v = g.view();
  CHECK(v.n == 4);
  CHECK(v.sh_rest_coeffs == 8);
  CHECK(v.means[3] == code(1, Group::Means, 0, 0));
  CHECK(v.opacity_logits[2] == code(2, Group::Opacity, 0, 0));

  // Gradients and statistics are zero after upload and sized by the rows.
  g.grad(Group::Quats).data()[0] = 5.f;
  g.stats().visible_count[3] = 9;
  const std::vector<int64_t> rows{2};
  g.append_rows(rows);
  CHECK(g.size() == 5);
  for (Group grp : kAllGroups) {
    CHECK(g.grad(grp).size() == size_t(5 * group_width(grp, 2)));
    for (float x : g.grad(grp).download()) CHECK(x == 0.f);
  }
  const HostDensifyStats st = g.download_stats();
  CHECK(st.visible_count.size() == 5);
  CHECK(st.grad2d_norm.size() == 5);
  for (int32_t c : st.visible_count) CHECK(c == 0);

  GaussianState back = g.download();
  for (int64_t i = 0; i < 4; ++i) check_row(back, i, i, false);
  check_row(back, 4, 2, true);

  const std::vector<uint8_t> keep{1, 0, 1, 1, 0};
  g.keep_rows(keep);
  back = g.download();
  REQUIRE(back.size() == 3);
  check_row(back, 1, 2, false);
  CHECK(g.bytes() > 0);
}

TEST_CASE("GaussianState converts to and from GaussianModel", "[device_gaussians]") {
  GaussianModel m(1, 3);
  for (size_t i = 0; i < m.means.size(); ++i) m.means[i] = float(i) * 0.5f;
  for (size_t i = 0; i < m.sh_rest.size(); ++i) m.sh_rest[i] = -float(i);
  const GaussianState s = GaussianState::from_model(m);
  CHECK(s.col(Group::Means).value == m.means);
  for (float x : s.col(Group::Means).exp_avg) CHECK(x == 0.f);
  const GaussianModel back = s.to_model();
  CHECK(back.means == m.means);
  CHECK(back.sh_rest == m.sh_rest);
  CHECK(back.quats == m.quats);
  CHECK(back.sh_degree() == 1);
}

TEST_CASE("download_stats fetches only the selected statistics, into reused vectors", "[device_gaussians]") {
  DeviceGaussians g(kernels::Device::CPU, coded_state(3));
  const kernels::DensifyStats d = g.stats();
  for (int i = 0; i < 3; ++i) {
    d.grad2d_norm[i] = 1.f + float(i);
    d.grad2d_abs_norm[i] = 10.f + float(i);
    d.max_radius[i] = 0.1f * float(i);
    d.visible_count[i] = 5 + i;
  }
  StatsSelection which;
  which.grad2d_abs_norm = false;
  which.max_radius = false;
  HostDensifyStats st;
  st.max_radius.assign(7, 9.f);  // left over from an earlier, larger download
  g.download_stats(st, which);
  CHECK(st.grad2d_norm == std::vector<float>{1.f, 2.f, 3.f});
  CHECK(st.visible_count == std::vector<int32_t>{5, 6, 7});
  CHECK(st.grad2d_abs_norm.empty());
  CHECK(st.max_radius.empty());

  const HostDensifyStats all = g.download_stats();
  CHECK(all.grad2d_abs_norm == std::vector<float>{10.f, 11.f, 12.f});
  CHECK(all.max_radius == std::vector<float>{0.f, 0.1f, 0.2f});
}

TEST_CASE("device gaussians: a step's one call names the rows it reached, until a writer completes a group",
          "[device_gaussians][reached]") {
  DeviceGaussians g(kernels::Device::CPU, coded_state(4, 1));
  for (Group grp : kAllGroups) CHECK(g.reached_rows(grp) == nullptr);  // a fresh model's gradients are zeros
  const kernels::GaussiansGrad only = g.grad(GradWrite::OnlyCall);
  REQUIRE(only.reached != nullptr);
  for (Group grp : kAllGroups) {
    CHECK(g.reached_rows(grp) == only.reached);
    const kernels::AdamGroup a = g.adam_group(grp);
    CHECK(a.grads.reached == only.reached);  // Adam takes the unreached rows' gradients as zeros
    CHECK(a.grads.width == group_width(grp, 1));
  }
  g.set_grad_complete(Group::Opacity);  // e.g. a regulariser stored every row's
  CHECK(g.reached_rows(Group::Opacity) == nullptr);
  CHECK(g.adam_group(Group::Opacity).grads.reached == nullptr);
  CHECK(g.reached_rows(Group::Means) == only.reached);
  // Calls that store every row, and zeroed gradients, name none.
  CHECK(g.grad(GradWrite::Overwrite).reached == nullptr);
  for (Group grp : kAllGroups) CHECK(g.reached_rows(grp) == nullptr);
  g.grad(GradWrite::OnlyCall);
  g.zero_grad();
  for (Group grp : kAllGroups) CHECK(g.reached_rows(grp) == nullptr);
}
