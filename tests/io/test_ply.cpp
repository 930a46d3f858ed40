#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>

#include "core/model/ply_io.h"
#include "tests/support/test_support.h"

namespace fs = std::filesystem;

namespace {
splat::GaussianModel random_model(int degree, int64_t n, uint64_t seed) {
  splat::GaussianModel m(degree, n);
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> g(0.0f, 3.0f);
  for (auto* col : {&m.means, &m.log_scales, &m.quats, &m.opacity_logits, &m.sh_dc, &m.sh_rest})
    for (float& v : *col) v = g(rng);
  if (n > 3) {  // values whose bits a lossy path would change
    m.means[0] = -0.0f;
    m.means[1] = std::numeric_limits<float>::denorm_min();
    m.means[2] = std::numeric_limits<float>::infinity();
    m.log_scales[0] = std::numeric_limits<float>::quiet_NaN();
    m.opacity_logits[1] = std::numeric_limits<float>::max();
  }
  return m;
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  // An empty column (sh_rest at degree 0) has no buffer, and memcmp of null is undefined.
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0);
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

void spit(const fs::path& p, const std::string& s) {
  std::ofstream out(p, std::ios::binary);
  out.write(s.data(), static_cast<std::streamsize>(s.size()));
}

template <class T>
void put(std::string& s, T v) {
  s.append(reinterpret_cast<const char*>(&v), sizeof(T));
}

// Header of a degree-0 Gaussian PLY with the given format and extra lines before end_header.
std::string header_deg0(const std::string& format, int64_t count) {
  std::string h = "ply\nformat " + format + " 1.0\nelement vertex " + std::to_string(count) + "\n";
  for (const char* p : {"x", "y", "z", "f_dc_0", "f_dc_1", "f_dc_2", "opacity", "scale_0", "scale_1", "scale_2",
                        "rot_0", "rot_1", "rot_2", "rot_3"})
    h += std::string("property float ") + p + "\n";
  return h + "end_header\n";
}

// Expects read_ply to throw PlyError whose message names the file and contains `what`.
void expect_ply_error(const fs::path& file, const std::string& what) {
  try {
    splat::read_ply(file);
    FAIL("no error for " << file);
  } catch (const splat::PlyError& e) {
    const std::string msg = e.what();
    INFO(msg);
    CHECK(msg.find(file.string()) != std::string::npos);
    CHECK(msg.find(what) != std::string::npos);
  }
}
}  // namespace

TEST_CASE("PLY write then read is bit-identical for every SH degree", "[ply]") {
  const fs::path dir = splat::test::scratch_dir("ply_roundtrip");
  for (int d = 0; d <= 3; ++d) {
    const auto m = random_model(d, 257, 100 + d);
    const fs::path a = dir / (std::to_string(d) + "_a.ply");
    const fs::path b = dir / (std::to_string(d) + "_b.ply");
    splat::write_ply(a, m);
    const auto r = splat::read_ply(a);
    REQUIRE(r.size() == m.size());
    CHECK(r.sh_degree() == d);
    CHECK(same_bits(r.means, m.means));
    CHECK(same_bits(r.log_scales, m.log_scales));
    CHECK(same_bits(r.quats, m.quats));
    CHECK(same_bits(r.opacity_logits, m.opacity_logits));
    CHECK(same_bits(r.sh_dc, m.sh_dc));
    CHECK(same_bits(r.sh_rest, m.sh_rest));
    splat::write_ply(b, r);
    CHECK(slurp(a) == slurp(b));
  }
  const fs::path empty = dir / "empty.ply";
  splat::write_ply(empty, splat::GaussianModel(3, 0));
  CHECK(splat::read_ply(empty).size() == 0);
}

TEST_CASE("PLY files use the reference layout: channel-major f_rest, 62 floats per row at degree 3", "[ply]") {
  const fs::path dir = splat::test::scratch_dir("ply_layout");
  const auto m = random_model(3, 4, 5);
  const fs::path f = dir / "m.ply";
  splat::write_ply(f, m);
  const std::string s = slurp(f);
  const size_t body = s.find("end_header\n") + 11;
  REQUIRE(s.size() - body == 4 * 62 * sizeof(float));
  auto at = [&](int64_t row, int col) {
    float v;
    std::memcpy(&v, s.data() + body + (row * 62 + col) * sizeof(float), sizeof(float));
    return v;
  };
  const int64_t row = 2;
  for (int c = 0; c < 3; ++c)
    for (int k = 0; k < 15; ++k) CHECK(at(row, 9 + c * 15 + k) == m.sh_rest[(row * 15 + k) * 3 + c]);
  CHECK(at(row, 8) == m.sh_dc[row * 3 + 2]);
  CHECK(at(row, 54) == m.opacity_logits[row]);
  CHECK(at(row, 57) == m.log_scales[row * 3 + 2]);
  CHECK(at(row, 58) == m.quats[row * 4 + 0]);
  CHECK(at(row, 61) == m.quats[row * 4 + 3]);
  CHECK(s.find("property float f_rest_44\nproperty float opacity\n") != std::string::npos);
}

TEST_CASE("PLY reader takes any property order, double columns and extra properties and elements", "[ply]") {
  const fs::path f = splat::test::scratch_dir("ply_order") / "shuffled.ply";
  // Degree 1, properties shuffled, x as double, an extra uchar colour, and a face element with a
  // list property after the vertices.
  std::string h = "ply\nformat binary_little_endian 1.0\ncomment made by hand\nelement vertex 2\n";
  h += "property float rot_3\nproperty double x\nproperty uchar red\nproperty float opacity\n";
  for (int j = 8; j >= 0; --j) h += "property float f_rest_" + std::to_string(j) + "\n";
  for (const char* p : {"scale_2", "y", "z", "f_dc_2", "f_dc_0", "f_dc_1", "scale_0", "scale_1", "rot_0", "rot_1",
                        "rot_2", "nx"})
    h += std::string("property float ") + p + "\n";
  h += "element face 1\nproperty list uchar int vertex_indices\nend_header\n";
  std::string body;
  for (int r = 0; r < 2; ++r) {
    const float b = 100.0f * r;
    put<float>(body, b + 1);        // rot_3
    put<double>(body, b + 0.25);    // x
    put<uint8_t>(body, 200);        // red (ignored)
    put<float>(body, 7.0f + r);     // opacity
    for (int j = 8; j >= 0; --j) put<float>(body, b + 10 + j);  // f_rest_j
    for (int j = 0; j < 12; ++j) put<float>(body, b + 30 + j);  // scale_2 y z f_dc_2 f_dc_0 f_dc_1 scale_0 scale_1 rot_0..2 nx
  }
  put<uint8_t>(body, 3);
  for (int i = 0; i < 3; ++i) put<int32_t>(body, i);
  spit(f, h + body);

  const auto m = splat::read_ply(f);
  REQUIRE(m.size() == 2);
  REQUIRE(m.sh_degree() == 1);
  for (int r = 0; r < 2; ++r) {
    const float b = 100.0f * r;
    CHECK(m.means[r * 3 + 0] == b + 0.25f);
    CHECK(m.means[r * 3 + 1] == b + 31);
    CHECK(m.means[r * 3 + 2] == b + 32);
    CHECK(m.opacity_logits[r] == 7.0f + r);
    CHECK(m.sh_dc[r * 3 + 0] == b + 34);
    CHECK(m.sh_dc[r * 3 + 1] == b + 35);
    CHECK(m.sh_dc[r * 3 + 2] == b + 33);
    CHECK(m.log_scales[r * 3 + 0] == b + 36);
    CHECK(m.log_scales[r * 3 + 1] == b + 37);
    CHECK(m.log_scales[r * 3 + 2] == b + 30);
    CHECK(m.quats[r * 4 + 0] == b + 38);
    CHECK(m.quats[r * 4 + 2] == b + 40);
    CHECK(m.quats[r * 4 + 3] == b + 1);
    // f_rest_{c*3+k} -> coefficient k of channel c.
    for (int c = 0; c < 3; ++c)
      for (int k = 0; k < 3; ++k) CHECK(m.sh_rest[(r * 3 + k) * 3 + c] == b + 10 + c * 3 + k);
  }
}

TEST_CASE("PLY reader reads ascii files", "[ply]") {
  const fs::path f = splat::test::scratch_dir("ply_ascii") / "a.ply";
  std::string h = "ply\r\nformat ascii 1.0\r\nelement vertex 2\r\n";
  for (const char* p : {"x", "y", "z", "f_dc_0", "f_dc_1", "f_dc_2", "opacity", "scale_0", "scale_1", "scale_2",
                        "rot_0", "rot_1", "rot_2", "rot_3"})
    h += std::string("property float ") + p + "\r\n";
  h += "property uchar alpha\r\nend_header\r\n";
  h += "1.5 -2 3e-2 0.1 0.2 0.3 -1.25 -3 -4 -5 1 0 0 0 255\r\n";
  h += "  4 5 6\t0.4 0.5 0.6 2 -1 -2 -3 0.5 0.5 0.5 0.5 0\n";
  spit(f, h);
  const auto m = splat::read_ply(f);
  REQUIRE(m.size() == 2);
  CHECK(m.sh_degree() == 0);
  CHECK(m.means == std::vector<float>{1.5f, -2.0f, 0.03f, 4, 5, 6});
  CHECK(m.sh_dc == std::vector<float>{0.1f, 0.2f, 0.3f, 0.4f, 0.5f, 0.6f});
  CHECK(m.opacity_logits == std::vector<float>{-1.25f, 2.0f});
  CHECK(m.log_scales == std::vector<float>{-3, -4, -5, -1, -2, -3});
  CHECK(m.quats == std::vector<float>{1, 0, 0, 0, 0.5f, 0.5f, 0.5f, 0.5f});
}

TEST_CASE("PLY reader rejects malformed files with errors naming the file", "[ply]") {
  const fs::path dir = splat::test::scratch_dir("ply_errors");
  std::string one_row;
  for (int j = 0; j < 14; ++j) put<float>(one_row, 1.0f);

  const fs::path magic = dir / "magic.ply";
  spit(magic, "plx\n" + header_deg0("binary_little_endian", 1).substr(4) + one_row);
  expect_ply_error(magic, "not a PLY file");

  const fs::path big = dir / "big_endian.ply";
  spit(big, header_deg0("binary_big_endian", 1) + one_row);
  expect_ply_error(big, "binary_big_endian");

  const fs::path missing = dir / "missing.ply";
  std::string h = header_deg0("binary_little_endian", 1);
  h.erase(h.find("property float rot_2\n"), 21);
  spit(missing, h + one_row.substr(4));
  expect_ply_error(missing, "missing required vertex property 'rot_2'");

  const fs::path truncated = dir / "truncated.ply";
  spit(truncated, header_deg0("binary_little_endian", 2) + one_row + one_row.substr(0, 20));
  expect_ply_error(truncated, "only 76 bytes");

  const fs::path truncated_ascii = dir / "truncated_ascii.ply";
  spit(truncated_ascii, header_deg0("ascii", 2) + "1 2 3 4 5 6 7 8 9 10 11 12 13 14\n1 2 3 4 5 6 7 8 9\n");
  expect_ply_error(truncated_ascii, "truncated");

  const fs::path bad_ascii = dir / "bad_ascii.ply";
  spit(bad_ascii, header_deg0("ascii", 1) + "1 2 3 4 5 6 seven 8 9 10 11 12 13 14\n");
  expect_ply_error(bad_ascii, "bad ascii value 'seven'");

  // A count no file could hold must fail before anything of that size is allocated.
  const fs::path huge = dir / "huge_count.ply";
  spit(huge, header_deg0("binary_little_endian", 4000000000000000000LL) + one_row);
  expect_ply_error(huge, "declares 4000000000000000000 rows");

  const fs::path rest = dir / "rest_count.ply";
  std::string hr = header_deg0("binary_little_endian", 1);
  hr.insert(hr.find("property float opacity"), "property float f_rest_0\nproperty float f_rest_1\n");
  spit(rest, hr + one_row + one_row.substr(0, 8));
  expect_ply_error(rest, "unsupported number of f_rest properties: 2");

  const fs::path gap = dir / "rest_gap.ply";
  std::string hg = header_deg0("binary_little_endian", 1);
  std::string rest9;
  for (int j = 1; j <= 9; ++j) rest9 += "property float f_rest_" + std::to_string(j) + "\n";  // 1..9, no 0
  hg.insert(hg.find("property float opacity"), rest9);
  std::string row9 = one_row;
  for (int j = 0; j < 9; ++j) put<float>(row9, 0.0f);
  spit(gap, hg + row9);
  expect_ply_error(gap, "missing required vertex property 'f_rest_0'");

  const fs::path no_end = dir / "no_end_header.ply";
  spit(no_end, "ply\nformat ascii 1.0\nelement vertex 1\n");
  expect_ply_error(no_end, "end_header");

  const fs::path absent = dir / "does_not_exist.ply";
  expect_ply_error(absent, "cannot open");
}

TEST_CASE("PLY reader answers corrupted files with PlyError, never a crash or another error", "[ply]") {
  const fs::path dir = splat::test::scratch_dir("ply_fuzz");
  const fs::path good = dir / "good.ply";
  splat::write_ply(good, random_model(1, 6, 9));
  const std::string bytes = slurp(good);
  const size_t header_end = bytes.find("end_header\n") + 11;
  std::mt19937_64 rng(1234);
  int errors = 0;
  for (int trial = 0; trial < 300; ++trial) {
    std::string s = bytes;
    // Mostly header damage (where parsing decisions are made), sometimes truncation.
    if (trial % 5 == 0) {
      s.resize(rng() % s.size());
    } else {
      const size_t at = rng() % header_end;
      s[at] = static_cast<char>(rng() % 256);
    }
    const fs::path f = dir / "fuzzed.ply";
    spit(f, s);
    try {
      splat::read_ply(f);
    } catch (const splat::PlyError& e) {
      ++errors;
      CHECK(std::string(e.what()).find(f.string()) == 0);
    }
  }
  CHECK(errors > 100);  // most damage must be noticed
}
