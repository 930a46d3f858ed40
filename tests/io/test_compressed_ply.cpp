#include <catch2/catch.hpp>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <fstream>
#include <random>
#include <string>

#include "core/model/compressed_ply.h"
#include "core/model/ply_io.h"
#include "core/model/splat_files.h"
#include "tests/support/test_support.h"

namespace fs = std::filesystem;
using splat::GaussianModel;

namespace {

GaussianModel random_model(int degree, int64_t n, uint64_t seed) {
  GaussianModel m(degree, n);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> pos(-5.f, 5.f), logscale(-7.f, 0.5f), sh(-3.9f, 3.9f);
  std::normal_distribution<float> g(0.f, 1.5f);
  for (float& v : m.means) v = pos(rng);
  for (float& v : m.log_scales) v = logscale(rng);
  for (float& v : m.quats) v = g(rng);
  for (float& v : m.opacity_logits) v = g(rng);
  for (float& v : m.sh_dc) v = g(rng);
  for (float& v : m.sh_rest) v = sh(rng);
  return m;
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}
void spit(const fs::path& p, const std::string& s) {
  std::ofstream out(p, std::ios::binary);
  out.write(s.data(), std::streamsize(s.size()));
}
template <class T>
void put(std::string& s, T v) {
  s.append(reinterpret_cast<const char*>(&v), sizeof(T));
}
template <class T>
T get(const std::string& s, size_t at) {
  T v;
  std::memcpy(&v, s.data() + at, sizeof(T));
  return v;
}

double sigmoid(double x) { return 1 / (1 + std::exp(-x)); }

// Half a quantisation step of a b-bit fraction of [lo, hi], plus float rounding of the result.
double step_bound(double lo, double hi, int bits) {
  return (hi - lo) / (2.0 * ((1 << bits) - 1)) + 4 * FLT_EPSILON * std::max(std::abs(lo), std::abs(hi));
}

// Checks every Gaussian of `back` (file order) against `m` through the writer's order, within the
// bounds the bit widths and the chunk ranges give.
void check_within_quantisation(const GaussianModel& m, const GaussianModel& back) {
  REQUIRE(back.size() == m.size());
  REQUIRE(back.sh_degree() == m.sh_degree());
  const std::vector<int64_t> order = splat::compressed_ply_order(m);
  const int64_t n = m.size();
  const int rest = m.sh_rest_coeffs();
  // A rotation component: 10 bits over [-1/sqrt 2, 1/sqrt 2], so half a step is delta; the largest
  // component, sqrt(1 - sum of the others' squares) with itself >= 1/2, moves by at most
  // sum |a_i + a_i'| delta / (m + m') <= 3 (2m + delta) delta / m <= 6 delta + 6 delta^2.
  const double delta = std::sqrt(2.0) / (2 * 1023) + 1e-6;
  const double largest_bound = 6 * delta + 6 * delta * delta;
  const int bits[3] = {11, 10, 11};
  for (int64_t k = 0; k < n; ++k) {
    const int64_t r = order[size_t(k)];
    const int64_t begin = k / 256 * 256, end = std::min(n, begin + 256);
    for (int a = 0; a < 3; ++a) {
      double plo = INFINITY, phi = -INFINITY, slo = INFINITY, shi = -INFINITY, clo = INFINITY, chi = -INFINITY;
      for (int64_t j = begin; j < end; ++j) {
        const int64_t o = order[size_t(j)];
        plo = std::min<double>(plo, m.means[o * 3 + a]), phi = std::max<double>(phi, m.means[o * 3 + a]);
        slo = std::min<double>(slo, m.log_scales[o * 3 + a]), shi = std::max<double>(shi, m.log_scales[o * 3 + a]);
        const double c = splat::sh_dc_to_rgb(m.sh_dc[o * 3 + a]);
        clo = std::min(clo, c), chi = std::max(chi, c);
      }
      INFO("file row " << k << " (model row " << r << "), axis " << a);
      CHECK(std::abs(back.means[k * 3 + a] - m.means[r * 3 + a]) <= step_bound(plo, phi, bits[a]));
      CHECK(std::abs(back.log_scales[k * 3 + a] - m.log_scales[r * 3 + a]) <= step_bound(slo, shi, bits[a]));
      CHECK(std::abs(splat::sh_dc_to_rgb(back.sh_dc[k * 3 + a]) - splat::sh_dc_to_rgb(m.sh_dc[r * 3 + a])) <=
            step_bound(clo, chi, 8) + 1e-6);
    }
    INFO("file row " << k << " (model row " << r << ")");
    CHECK(std::abs(sigmoid(back.opacity_logits[k]) - sigmoid(m.opacity_logits[r])) <= 0.5 / 255 + 1e-6);
    double q[4], len = 0, dot = 0;
    for (int i = 0; i < 4; ++i) q[i] = m.quats[r * 4 + i], len += q[i] * q[i];
    int largest = 0;
    for (int i = 0; i < 4; ++i) {
      q[i] /= std::sqrt(len);
      dot += q[i] * back.quats[k * 4 + i];
      if (std::abs(q[i]) > std::abs(q[largest])) largest = i;
    }
    for (int i = 0; i < 4; ++i) {
      const double err = std::abs((dot < 0 ? -q[i] : q[i]) - back.quats[k * 4 + i]);
      CHECK(err <= (i == largest ? largest_bound : delta));
    }
    // 8 bits over [-4, 4): half a step inside, a whole step in the two end cells (read as -4 and 4).
    for (int j = 0; j < 3 * rest; ++j) CHECK(std::abs(back.sh_rest[k * 3 * rest + j] - m.sh_rest[r * 3 * rest + j]) <= 1.0 / 32 + 1e-6);
  }
}

}  // namespace

TEST_CASE("compressed PLY: written and read back within the quantisation of its bit widths", "[compressed_ply]") {
  const fs::path dir = splat::test::scratch_dir("compressed_ply_roundtrip");
  for (int degree : {0, 1, 3}) {
    const GaussianModel m = random_model(degree, 1000, 7 + degree);
    const fs::path file = dir / ("degree-" + std::to_string(degree) + ".compressed.ply");
    splat::write_compressed_ply(file, m);
    const GaussianModel back = splat::read_compressed_ply(file);
    INFO("SH degree " << degree);
    check_within_quantisation(m, back);
    const std::string data = slurp(file);
    CHECK(data.find("element chunk 4\n") != std::string::npos);  // ceil(1000 / 256)
    CHECK((data.find("element sh 1000\n") != std::string::npos) == (degree > 0));
    // 18 chunk floats, 4 words a Gaussian, one byte per SH rest value
    const size_t body = 4 * 18 * 4 + 1000 * 16 + 1000 * size_t(3 * m.sh_rest_coeffs());
    CHECK(data.size() - (data.find("end_header\n") + 11) == body);
  }
}

TEST_CASE("compressed PLY: any count is cut into chunks of 256, the last one partial", "[compressed_ply]") {
  const fs::path dir = splat::test::scratch_dir("compressed_ply_counts");
  for (int64_t n : {0, 1, 255, 256, 257, 700}) {
    const GaussianModel m = random_model(1, n, uint64_t(n));
    const fs::path file = dir / (std::to_string(n) + "-gaussians.compressed.ply");
    splat::write_compressed_ply(file, m);
    INFO(n << " Gaussians");
    CHECK(slurp(file).find("element chunk " + std::to_string((n + 255) / 256) + "\n") != std::string::npos);
    const GaussianModel back = splat::read_compressed_ply(file);
    check_within_quantisation(m, back);
    // The order is a permutation: every Gaussian is written once.
    std::vector<int64_t> order = splat::compressed_ply_order(m);
    std::sort(order.begin(), order.end());
    for (int64_t i = 0; i < n; ++i) CHECK(order[size_t(i)] == i);
  }
}

TEST_CASE("compressed PLY: a chunk whose values are all equal reads back exactly", "[compressed_ply]") {
  GaussianModel m(1, 300);
  for (int64_t i = 0; i < m.size(); ++i) {
    const float p[3] = {1.5f, -2.25f, 3.f}, s[3] = {-3.f, -2.f, -1.f}, dc[3] = {0.25f, -0.5f, 1.f};
    for (int a = 0; a < 3; ++a) m.means[i * 3 + a] = p[a], m.log_scales[i * 3 + a] = s[a], m.sh_dc[i * 3 + a] = dc[a];
    m.opacity_logits[i] = 0.f;
  }
  const fs::path file = splat::test::scratch_dir("compressed_ply_flat") / "flat.compressed.ply";
  splat::write_compressed_ply(file, m);
  const GaussianModel back = splat::read_compressed_ply(file);
  REQUIRE(back.size() == 300);
  CHECK(back.means == m.means);
  CHECK(back.log_scales == m.log_scales);
  for (size_t j = 0; j < m.sh_dc.size(); ++j) CHECK(std::abs(back.sh_dc[j] - m.sh_dc[j]) <= 1e-5);
  for (int64_t i = 0; i < m.size(); ++i) {
    // The identity: the three small components are stored as 512 of 1023, a hair above 0.
    CHECK(back.quats[i * 4] >= 1.f - 2e-6f);
    CHECK(std::abs(sigmoid(back.opacity_logits[i]) - 0.5) <= 0.5 / 255 + 1e-6);
  }
}

// The layout is pinned here byte for byte, independently of the writer: a reader and writer that
// agreed on a wrong layout would pass the round trips above but not this.
TEST_CASE("compressed PLY: the bit layout of the words is the viewers'", "[compressed_ply]") {
  const fs::path dir = splat::test::scratch_dir("compressed_ply_layout");
  SECTION("reading a hand-made file") {
    std::string s = "ply\nformat binary_little_endian 1.0\nelement chunk 1\n";
    for (const char* p : {"min_x", "min_y", "min_z", "max_x", "max_y", "max_z", "min_scale_x", "min_scale_y", "min_scale_z",
                          "max_scale_x", "max_scale_y", "max_scale_z", "min_r", "min_g", "min_b", "max_r", "max_g", "max_b"})
      s += std::string("property float ") + p + "\n";
    s += "element vertex 1\nproperty uint packed_position\nproperty uint packed_rotation\nproperty uint packed_scale\n"
         "property uint packed_color\nelement sh 1\n";
    for (int j = 0; j < 9; ++j) s += "property uchar f_rest_" + std::to_string(j) + "\n";
    s += "end_header\n";
    // Ranges of 2^b - 1 make the stored integers the values themselves.
    for (float v : {0.f, 0.f, 0.f, 2047.f, 1023.f, 2047.f, -10.f, -10.f, -10.f, 2037.f, 1013.f, 2037.f, 0.f, 0.f, 0.f, 255.f, 255.f, 255.f})
      put(s, v);
    put<uint32_t>(s, 5u << 21 | 7u << 11 | 9u);                    // x 5, y 7, z 9
    put<uint32_t>(s, 2u << 30 | 700u << 20 | 300u << 10 | 512u);  // largest: component 2 (y)
    put<uint32_t>(s, 15u << 21 | 17u << 11 | 19u);                 // log scales 5, 7, 9
    put<uint32_t>(s, 10u << 24 | 20u << 16 | 30u << 8 | 51u);     // colours 10, 20, 30 (x 1/255), opacity 0.2
    for (uint8_t b : {0, 255, 128, 1, 2, 3, 4, 5, 6}) put<uint8_t>(s, b);
    const fs::path file = dir / "hand.compressed.ply";
    spit(file, s);
    const GaussianModel m = splat::read_compressed_ply(file);
    REQUIRE(m.size() == 1);
    REQUIRE(m.sh_degree() == 1);
    CHECK(m.means == std::vector<float>{5.f, 7.f, 9.f});
    CHECK(m.log_scales == std::vector<float>{5.f, 7.f, 9.f});
    CHECK(splat::sh_dc_to_rgb(m.sh_dc[0]) == Approx(10.0).margin(1e-4));
    CHECK(splat::sh_dc_to_rgb(m.sh_dc[1]) == Approx(20.0).margin(1e-4));
    CHECK(splat::sh_dc_to_rgb(m.sh_dc[2]) == Approx(30.0).margin(1e-4));
    CHECK(sigmoid(m.opacity_logits[0]) == Approx(0.2).margin(1e-6));
    const double c0 = (700.0 / 1023 - 0.5) * std::sqrt(2.0), c1 = (300.0 / 1023 - 0.5) * std::sqrt(2.0),
                 c2 = (512.0 / 1023 - 0.5) * std::sqrt(2.0);
    const double w = std::sqrt(1 - c0 * c0 - c1 * c1 - c2 * c2);
    CHECK(m.quats[0] == Approx(c0).margin(1e-6));  // rot_0 (w)
    CHECK(m.quats[1] == Approx(c1).margin(1e-6));
    CHECK(m.quats[2] == Approx(w).margin(1e-6));   // the implied largest, at index 2
    CHECK(m.quats[3] == Approx(c2).margin(1e-6));
    // f_rest_j is channel-major: f_rest_0..2 are red's three coefficients, f_rest_3 green's first.
    CHECK(m.sh_rest[0] == -4.f);                                 // red, coefficient 0: byte 0
    CHECK(m.sh_rest[3] == 4.f);                                  // red, coefficient 1: byte 255
    CHECK(m.sh_rest[6] == Approx((128.5 / 256 - 0.5) * 8));      // red, coefficient 2
    CHECK(m.sh_rest[1] == Approx((1.5 / 256 - 0.5) * 8));        // green, coefficient 0: f_rest_3
  }
  SECTION("the words the writer stores") {
    GaussianModel m(0, 2);
    const float means[6] = {0, 0, 0, 1, 1, 1};
    std::copy(means, means + 6, m.means.begin());
    m.quats = {1, 0, 0, 0, 0, 0, 0, -1};  // identity; a half turn about z, stored with its sign flipped
    m.opacity_logits = {-100.f, 100.f};
    const fs::path file = dir / "two.compressed.ply";
    splat::write_compressed_ply(file, m);
    const std::string s = slurp(file);
    const size_t words = s.find("end_header\n") + 11 + 18 * 4;
    REQUIRE(s.size() == words + 2 * 16);
    REQUIRE(splat::compressed_ply_order(m) == std::vector<int64_t>{0, 1});
    CHECK(get<uint32_t>(s, words) == 0u);                                     // at the chunk's minimum
    CHECK(get<uint32_t>(s, words + 16) == 0xFFFFFFFFu);                       // at its maximum: 2047, 1023, 2047
    CHECK(get<uint32_t>(s, words + 4) == (0u << 30 | 512u << 20 | 512u << 10 | 512u));
    CHECK(get<uint32_t>(s, words + 20) == (3u << 30 | 512u << 20 | 512u << 10 | 512u));
    CHECK((get<uint32_t>(s, words + 12) & 0xffu) == 0u);    // opacity ~0
    CHECK((get<uint32_t>(s, words + 28) & 0xffu) == 255u);  // opacity ~1
  }
}

TEST_CASE("compressed PLY: a truncated or malformed file is refused naming the file", "[compressed_ply]") {
  const fs::path dir = splat::test::scratch_dir("compressed_ply_bad");
  const fs::path good = dir / "good.compressed.ply";
  splat::write_compressed_ply(good, random_model(1, 300, 3));
  const std::string data = slurp(good);
  auto refusal = [&](const std::string& bytes, const std::string& name) {
    const fs::path f = dir / name;
    spit(f, bytes);
    try {
      splat::read_compressed_ply(f);
    } catch (const splat::PlyError& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  auto replaced = [&](std::string from, std::string to) {
    std::string s = data;
    s.replace(s.find(from), from.size(), to);
    return s;
  };
  const std::string truncated = refusal(data.substr(0, data.size() - 7), "cut.compressed.ply");
  CHECK(truncated.find("cut.compressed.ply") != std::string::npos);
  CHECK(truncated.find("truncated file") != std::string::npos);
  const std::string appended = refusal(data + "xyz", "appended.compressed.ply");
  CHECK(appended.find("appended.compressed.ply") != std::string::npos);
  CHECK(appended.find("data length does not match the header") != std::string::npos);
  const std::string retyped = refusal(replaced("property uint packed_scale", "property float packed_scale"), "retyped.compressed.ply");
  CHECK(retyped.find("retyped.compressed.ply") != std::string::npos);
  CHECK(retyped.find("'packed_scale'") != std::string::npos);
  const std::string chunks = refusal(replaced("element chunk 2", "element chunk 1"), "chunks.compressed.ply");
  CHECK(chunks.find("chunks.compressed.ply") != std::string::npos);
  CHECK(chunks.find("300 vertices need 2") != std::string::npos);
  const std::string plain = dir / "plain.ply";
  splat::write_ply(plain, random_model(0, 3, 1));
  const std::string not_compressed = refusal(slurp(plain), "plain.compressed.ply");
  CHECK(not_compressed.find("plain.compressed.ply") != std::string::npos);
  CHECK(not_compressed.find("not a compressed PLY") != std::string::npos);
  const std::string huge = refusal(replaced("element vertex 300", "element vertex 3000000000"), "huge.compressed.ply");
  CHECK(huge.find("huge.compressed.ply") != std::string::npos);
  CHECK(refusal("", "empty.compressed.ply").find("empty.compressed.ply") != std::string::npos);
}

TEST_CASE("splat files: the format follows the name's ending", "[compressed_ply]") {
  CHECK(splat::splat_format_of("a/b.ply") == splat::SplatFormat::Ply);
  CHECK(splat::splat_format_of("b.PLY") == splat::SplatFormat::Ply);
  CHECK(splat::splat_format_of("b.compressed.ply") == splat::SplatFormat::CompressedPly);
  CHECK(splat::splat_format_of("b.Compressed.PLY") == splat::SplatFormat::CompressedPly);
  CHECK_FALSE(splat::splat_format_of("b.splat").has_value());
  CHECK_FALSE(splat::splat_format_of(".ply").has_value());  // a name that is only an ending
  CHECK(splat::with_splat_format("a/b.ply", splat::SplatFormat::CompressedPly) == fs::path("a/b.compressed.ply"));
  CHECK(splat::with_splat_format("a/b.COMPRESSED.ply", splat::SplatFormat::Ply) == fs::path("a/b.ply"));
  CHECK(splat::with_splat_format("b", splat::SplatFormat::CompressedPly) == fs::path("b.compressed.ply"));
  const fs::path dir = splat::test::scratch_dir("splat_files");
  const GaussianModel m = random_model(2, 40, 5);
  splat::write_splats(dir / "x.compressed.ply", m);
  splat::write_splats(dir / "x.ply", m);
  CHECK(slurp(dir / "x.compressed.ply").find("packed_position") != std::string::npos);
  CHECK(slurp(dir / "x.ply").find("packed_position") == std::string::npos);
  CHECK(splat::read_splats(dir / "x.ply").means == m.means);
  CHECK(splat::read_splats(dir / "x.compressed.ply").size() == 40);
  try {
    splat::write_splats(dir / "x.splat", m);
    FAIL("no refusal");
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    CHECK(what.find("x.splat") != std::string::npos);
    CHECK(what.find(".ply, .compressed.ply") != std::string::npos);
  }
  CHECK_FALSE(fs::exists(dir / "x.splat"));
}
