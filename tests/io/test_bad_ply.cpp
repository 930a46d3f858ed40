// PLY files whose data disagrees with their header: each is refused with one PlyError naming the
// file, the element or property, and the problem, before the header's numbers size anything.
#include <catch2/catch.hpp>

#include <cstring>
#include <string>

#include "core/model/ply_io.h"
#include "tests/io/tiny_scene.h"
#include "tests/support/alloc_probe.h"
#include "tests/support/model_checks.h"
#include "tests/support/test_support.h"

namespace fs = std::filesystem;
namespace tiny = splat::test::tiny;
using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;

namespace {

// A degree-1 model whose every value differs, so a shifted column cannot go unnoticed.
splat::GaussianModel numbered_model(int64_t n) {
  splat::GaussianModel m(1, n);
  float x = 0.5f;
  for (auto* col : {&m.means, &m.log_scales, &m.quats, &m.opacity_logits, &m.sh_dc, &m.sh_rest})
    for (float& v : *col) v = (x += 0.25f);
  return m;
}

struct PlyBytes {
  std::string header, body;
};

// The bytes write_ply produces for `m`, split at end_header.
PlyBytes written(const fs::path& dir, const splat::GaussianModel& m) {
  const fs::path f = dir / "written.ply";
  splat::write_ply(f, m);
  const std::string s = tiny::read_file(f);
  const size_t end = s.find("end_header\n") + 11;
  return {s.substr(0, end), s.substr(end)};
}

void replace_once(std::string& s, const std::string& from, const std::string& to) {
  const size_t at = s.find(from);
  REQUIRE(at != std::string::npos);
  s.replace(at, from.size(), to);
}

// The PlyError message of read_ply(file) ("" when it reads), with the largest allocation made.
struct Outcome {
  std::string error;
  size_t largest_allocation = 0;
};
Outcome read_outcome(const fs::path& file) {
  Outcome o;
  splat::test::AllocationProbe probe;
  try {
    splat::read_ply(file);
  } catch (const splat::PlyError& e) {
    o.error = e.what();
  }
  o.largest_allocation = probe.largest();
  return o;
}

std::string ply_error(const fs::path& file, const std::string& bytes) {
  tiny::write_file(file, bytes);
  const std::string e = read_outcome(file).error;
  CHECK_THAT(e, StartsWith(file.string() + ": "));
  CHECK(e.find('\n') == std::string::npos);
  CHECK_THAT(e, !Contains("element ''"));
  return e;
}

}  // namespace

TEST_CASE("bad ply: binary data must be exactly as long as the header says", "[ply][bad]") {
  const fs::path dir = splat::test::scratch_dir("bad_ply_length");
  const PlyBytes good = written(dir, numbered_model(6));
  const size_t row = good.body.size() / 6;  // 26 floats at degree 1
  REQUIRE(row == 104);
  const fs::path f = dir / "bad.ply";

  // The vertex count lowered by one: one row of data too many.
  std::string lowered = good.header;
  replace_once(lowered, "element vertex 6\n", "element vertex 5\n");
  CHECK_THAT(ply_error(f, lowered + good.body),
             Contains("data length does not match the header") && Contains("104 bytes too many") &&
                 Contains("1 more vertex rows than the declared count of 5"));

  // Bytes appended after the data.
  CHECK_THAT(ply_error(f, good.header + good.body + "abc"), Contains("3 bytes too many"));

  // A chunk inserted in the middle of the data.
  std::string inserted = good.body;
  inserted.insert(250, std::string(37, '\x55'));
  CHECK_THAT(ply_error(f, good.header + inserted), Contains("37 bytes too many"));

  // Cut short: named as truncation, whatever the count.
  for (size_t cut : {size_t(1), row - 10, 3 * row})
    CHECK_THAT(ply_error(f, good.header + good.body.substr(0, good.body.size() - cut)),
               Contains("element 'vertex' declares 6 rows") && Contains("truncated"));

  // The same file, unharmed, still reads.
  tiny::write_file(f, good.header + good.body);
  CHECK(read_outcome(f).error.empty());
}

TEST_CASE("bad ply: a 3DGS column retyped from float is refused naming it and its type", "[ply][bad]") {
  const fs::path dir = splat::test::scratch_dir("bad_ply_retyped");
  const PlyBytes good = written(dir, numbered_model(4));
  const fs::path f = dir / "bad.ply";
  for (const std::string type : {"uchar", "short", "int", "uint8"}) {
    for (const std::string prop : {"x", "f_dc_1", "f_rest_4", "opacity", "scale_2", "rot_0"}) {
      std::string h = good.header;
      replace_once(h, "property float " + prop + "\n", "property " + type + " " + prop + "\n");
      const std::string e = ply_error(f, h + good.body);
      CHECK_THAT(e, Contains("vertex property '" + prop + "' has type '" + type + "'") &&
                        Contains("stores it as float"));
    }
  }
}

TEST_CASE("bad ply: columns are found by name, and a missing property line is refused", "[ply][bad]") {
  const fs::path dir = splat::test::scratch_dir("bad_ply_missing");
  const splat::GaussianModel m = numbered_model(6);
  const PlyBytes good = written(dir, m);
  const fs::path f = dir / "bad.ply";

  // The nx line removed, its data left in place: every later column would shift by one.
  std::string no_nx = good.header;
  replace_once(no_nx, "property float nx\n", "");
  CHECK_THAT(ply_error(f, no_nx + good.body),
             Contains("4 more bytes per vertex row") && Contains("property line missing"));

  // A file without normals at all, as other tools write it: its columns are read by name.
  std::string no_normals = good.header, body;
  for (const char* p : {"nx", "ny", "nz"}) replace_once(no_normals, std::string("property float ") + p + "\n", "");
  for (size_t r = 0; r < 6; ++r) {
    const std::string row = good.body.substr(r * 104, 104);
    body += row.substr(0, 12) + row.substr(24);  // drop the three normal floats after x y z
  }
  tiny::write_file(f, no_normals + body);
  splat::test::check_same_model(splat::read_ply(f), m);

  // A required column's line removed with its data: named.
  std::string no_scale = good.header;
  replace_once(no_scale, "property float scale_1\n", "");
  CHECK_THAT(ply_error(f, no_scale + good.body), Contains("missing required vertex property 'scale_1'"));
}

TEST_CASE("bad ply: ascii rows are lines of exactly the declared values", "[ply][bad]") {
  const fs::path dir = splat::test::scratch_dir("bad_ply_ascii");
  std::string h = "ply\nformat ascii 1.0\nelement vertex 2\n";
  for (const char* p : {"x", "y", "z", "nx", "ny", "nz", "f_dc_0", "f_dc_1", "f_dc_2", "opacity", "scale_0", "scale_1",
                        "scale_2", "rot_0", "rot_1", "rot_2", "rot_3"})
    h += std::string("property float ") + p + "\n";
  h += "end_header\n";
  const std::string row = "1 2 3 0 0 0 0.1 0.2 0.3 -1 -3 -4 -5 1 0 0 0\n";
  const fs::path f = dir / "bad.ply";
  tiny::write_file(f, h + row + row);
  REQUIRE(read_outcome(f).error.empty());

  std::string no_nx = h;
  replace_once(no_nx, "property float nx\n", "");
  CHECK_THAT(ply_error(f, no_nx + row + row),
             Contains("more values than the header declares") && Contains("element 'vertex', row 0"));
  CHECK_THAT(ply_error(f, h + row + "1 2 3 0 0 0 0.1 0.2 0.3 -1 -3\n"),
             Contains("ends before all its values") && Contains("row 1, property 'scale_1'"));
  std::string lowered = h;
  replace_once(lowered, "element vertex 2\n", "element vertex 1\n");
  CHECK_THAT(ply_error(f, lowered + row + row), Contains("after the last element"));
  // A value with a terminal escape in it is quoted inertly.
  const std::string e = ply_error(f, h + row + "1 2 3 0 0 0 0.1 \x1B[2J 0.3 -1 -3 -4 -5 1 0 0 0\n");
  CHECK_THAT(e, Contains("bad ascii value '\\x1B[2J'") && Contains("property 'f_dc_1'"));
  CHECK(e.find('\x1B') == std::string::npos);
}

TEST_CASE("bad ply: huge counts and header words are refused before anything is sized by them", "[ply][bad]") {
  const fs::path dir = splat::test::scratch_dir("bad_ply_counts");
  const PlyBytes good = written(dir, numbered_model(3));
  const fs::path f = dir / "bad.ply";
  for (const std::string count : {"5000000", "1099511627776", "9223372036854775807"}) {
    std::string h = good.header;
    replace_once(h, "element vertex 3\n", "element vertex " + count + "\n");
    tiny::write_file(f, h + good.body);
    const Outcome o = read_outcome(f);
    CHECK_THAT(o.error, StartsWith(f.string() + ": ") && Contains("element 'vertex' declares " + count + " rows"));
    // Nothing but file buffers and the file itself (under 1 kB) was allocated; the model of the
    // smallest of these counts alone would take 5,000,000 x 104 bytes.
    CHECK(o.largest_allocation < 65536);
  }
  // A face element with an absurd count after valid vertices.
  CHECK_THAT(ply_error(f, good.header.substr(0, good.header.size() - 11) +
                               "element face 1000000000\nproperty list uchar int vertex_indices\nend_header\n" + good.body),
             Contains("element 'face' declares 1000000000 rows"));
  // Header words from the file are quoted and cut: a 100 kB keyword with escapes in it.
  const std::string noise = "\x1B]0;pwned\x07" + std::string(100000, 'k');
  const std::string e = ply_error(f, "ply\nformat ascii 1.0\n" + noise + "\nend_header\n");
  CHECK_THAT(e, Contains("unknown header keyword '\\x1B]0;pwned\\x07kkk") && Contains("(100010 bytes)"));
  CHECK(e.size() < 300);
}
