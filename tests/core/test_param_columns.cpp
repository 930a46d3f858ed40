// The parameter column table (core/model/param_columns.h) and a column stored as bf16: the production
// table is all fp32, so these tests pass a modified copy of it, the way a future bf16 column
// would be declared, and check storage size, host and device row edits, and the rounding rules.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "core/model/device_gaussians.h"
#include "core/model/gaussian_model.h"
#include "core/model/param_columns.h"

using namespace splat;

namespace {

uint32_t bits_of(float v) {
  uint32_t b;
  std::memcpy(&b, &v, 4);
  return b;
}

// The production table with sh_dc stored as bf16.
ColumnTable bf16_dc_table() {
  ColumnTable t = kParamColumns;
  t[static_cast<int>(Group::ShDc)].storage = Precision::BF16;
  return t;
}

// A model whose values have full fp32 mantissas (so rounding to bf16 changes them).
GaussianModel busy_model(int sh_degree, int64_t n) {
  GaussianModel m(sh_degree, n);
  float x = 0.1234567f;
  for (Group g : kAllGroups)
    for (float& v : m.column(g)) {
      x = std::fmod(x * 7.31f + 0.377f, 1.0f);  // stays in [0, 1) with a full mantissa
      v = 3.0f * x - 1.5f;
    }
  return m;
}

}  // namespace

TEST_CASE("param columns: the table describes the model's columns", "[columns]") {
  std::set<std::string> names;
  for (const ColumnSpec& c : kParamColumns) names.insert(c.name);
  CHECK(names.size() == kParamColumns.size());
  for (int degree = 0; degree <= 3; ++degree) {
    const GaussianModel m(degree, 5);
    for (Group g : kAllGroups) CHECK(m.column(g).size() == size_t(5 * group_width(g, degree)));
    CHECK(group_width(Group::ShRest, degree) == 3 * m.sh_rest_coeffs());
  }
  GaussianModel m(1, 2);
  CHECK(&m.column(Group::Quats) == &m.quats);
  CHECK(&m.column(Group::Opacity) == &m.opacity_logits);
  CHECK(&m.column(Group::ShRest) == &m.sh_rest);
}

TEST_CASE("param columns: bf16 rounding is to nearest, ties to even, and exact on bf16 values", "[columns]") {
  const float halfway = 1.0f + std::ldexp(1.0f, -8);  // between 1 and the next bf16, 1 + 2^-7
  CHECK(round_to_storage(halfway, Precision::BF16) == 1.0f);
  const float above = std::nextafter(halfway, 2.0f);
  CHECK(round_to_storage(above, Precision::BF16) == 1.0f + std::ldexp(1.0f, -7));
  const float odd_halfway = 1.0f + 3 * std::ldexp(1.0f, -8);  // between 1+2^-7 (odd) and 1+2^-6 (even)
  CHECK(round_to_storage(odd_halfway, Precision::BF16) == 1.0f + std::ldexp(1.0f, -6));
  CHECK(std::isnan(round_to_storage(std::numeric_limits<float>::quiet_NaN(), Precision::BF16)));
  CHECK(round_to_storage(-std::numeric_limits<float>::infinity(), Precision::BF16) ==
        -std::numeric_limits<float>::infinity());
  const GaussianModel m = busy_model(0, 50);
  for (float v : m.means) {
    const float r = round_to_storage(v, Precision::BF16);
    CHECK((bits_of(r) & 0xffffu) == 0u);
    CHECK(std::abs(r - v) <= std::abs(v) * std::ldexp(1.0f, -8));
    CHECK(round_to_storage(r, Precision::BF16) == r);
    CHECK(round_to_storage(v, Precision::F32) == v);
  }
  std::vector<float> back(m.means.size());
  const std::vector<unsigned char> bytes = encode_values(m.means, Precision::BF16);
  CHECK(bytes.size() == m.means.size() * element_size(Precision::BF16));
  decode_values(bytes.data(), Precision::BF16, back);
  for (size_t i = 0; i < back.size(); ++i) CHECK(back[i] == round_to_storage(m.means[i], Precision::BF16));
}

TEST_CASE("param columns: a bf16 column stores two bytes per value and survives host row edits", "[columns]") {
  const GaussianModel m = busy_model(1, 6);
  const GaussianState f32 = GaussianState::from_model(m);
  GaussianState s = GaussianState::from_model(m, bf16_dc_table());
  CHECK(s.spec(Group::ShDc).storage == Precision::BF16);
  CHECK(f32.storage_bytes() - s.storage_bytes() == size_t(6 * 3) * (sizeof(float) - 2));
  for (Group g : kAllGroups)
    for (size_t i = 0; i < m.column(g).size(); ++i) {
      const float want = g == Group::ShDc ? round_to_storage(m.column(g)[i], Precision::BF16) : m.column(g)[i];
      CHECK(s.col(g).value[i] == want);
    }
  CHECK(s.col(Group::ShDc).value != m.sh_dc);  // the busy values really were rounded

  // Host gather: appended and kept rows are the rows they copy, bit for bit.
  const std::vector<int64_t> parents = {4, 0, 4};
  s.append_rows(parents);
  s.check_consistent();
  for (size_t k = 0; k < parents.size(); ++k)
    for (int c = 0; c < 3; ++c) CHECK(s.row(Group::ShDc, 6 + k)[c] == s.row(Group::ShDc, parents[k])[c]);
  const GaussianState before_keep = s;
  const std::vector<uint8_t> keep = {0, 1, 1, 0, 0, 1, 1, 0, 1};
  s.keep_rows(keep);
  REQUIRE(s.size() == 5);
  int64_t out = 0;
  for (size_t i = 0; i < keep.size(); ++i)
    if (keep[i]) {
      for (int c = 0; c < 3; ++c) CHECK(s.row(Group::ShDc, out)[c] == before_keep.row(Group::ShDc, i)[c]);
      ++out;
    }

  // A value the storage cannot hold is a bug that check_consistent names.
  s.row(Group::ShDc, 0)[0] = 1.0f + std::ldexp(1.0f, -20);
  CHECK_THROWS_WITH(s.check_consistent(), Catch::Matchers::Contains("sh_dc") && Catch::Matchers::Contains("bf16"));
  s.round_to_storage();
  CHECK_NOTHROW(s.check_consistent());
}

TEST_CASE("param columns: a device gather keeps a bf16 column in its storage precision", "[columns]") {
  const GaussianState s = GaussianState::from_model(busy_model(1, 5), bf16_dc_table());
  DeviceGaussians d(kernels::Device::CPU, s);
  d.append_rows(std::vector<int64_t>{3, 1});
  const GaussianState back = d.download();
  CHECK(back.spec(Group::ShDc).storage == Precision::BF16);
  CHECK_NOTHROW(back.check_consistent());
  REQUIRE(back.size() == 7);
  for (int c = 0; c < 3; ++c) {
    CHECK(back.row(Group::ShDc, 6)[c] == s.row(Group::ShDc, 1)[c]);
    CHECK(back.row(Group::ShDc, 5)[c] == s.row(Group::ShDc, 3)[c]);
    CHECK(back.row(Group::ShDc, 2)[c] == s.row(Group::ShDc, 2)[c]);
  }
  // The fp32 columns are untouched by the bf16 one's rounding.
  for (int c = 0; c < 3; ++c) CHECK(back.row(Group::Means, 5)[c] == s.row(Group::Means, 3)[c]);
}
