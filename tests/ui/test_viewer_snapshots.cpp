// Opening a PLY through the viewer state (worker-thread loader) and the two snapshots: a PNG at a
// chosen resolution rendered by the CPU backend and a PLY of the Gaussians shown. No window needed.
#include <catch2/catch.hpp>

#include <stb_image.h>

#include <fstream>

#include "core/model/compressed_ply.h"
#include "core/model/ply_io.h"
#include "tests/support/test_support.h"
#include "tests/ui/tiny_demo_viewer.h"
#include "ui/viewer_state.h"

using namespace splat;
using namespace splat::ui;
namespace fs = std::filesystem;

namespace {
void open_and_wait(ViewerState& state, const fs::path& p) {
  state.open(p);
  state.loader.wait();
  state.poll_loader();
}
}  // namespace

TEST_CASE("viewer opens a PLY, frames it, and saves PNG and PLY snapshots", "[ui][snapshot]") {
  const fs::path dir = splat::test::scratch_dir("ui_snapshots");
  ViewerState state(kernels::Device::CPU, dir / "recent.json");
  splat::test::open_random_cube(state, dir, 400);
  REQUIRE(state.notes.error_count() == 0);
  REQUIRE(state.has_content());
  REQUIRE(state.content.model->size() == 400);
  REQUIRE(state.content.scene == nullptr);
  REQUIRE(state.recent.items().front() == (dir / "in.ply").string());
  // Framed on the cube of Gaussians: the camera looks at its centre.
  REQUIRE(norm(state.camera.pivot() - Vec3d{5, -2, 1}) < 0.1);

  state.snapshot.width = 96;
  state.snapshot.height = 64;
  state.snapshot.png_path = (dir / "out" / "view.png").string();
  state.snapshot.ply_path = (dir / "out.ply").string();
  state.save_png();
  state.save_ply();
  REQUIRE(state.notes.error_count() == 0);

  int w = 0, h = 0, c = 0;
  unsigned char* px = stbi_load(state.snapshot.png_path.c_str(), &w, &h, &c, 3);
  REQUIRE(px != nullptr);
  REQUIRE(w == 96);
  REQUIRE(h == 64);
  // The Gaussians fill the middle of the frame: the centre is lit, unlike a black background.
  const unsigned char* centre = px + 3 * (32 * 96 + 48);
  const int lum = centre[0] + centre[1] + centre[2];
  stbi_image_free(px);
  REQUIRE(lum > 30);

  const GaussianModel back = read_ply(state.snapshot.ply_path);
  REQUIRE(back.size() == 400);
  REQUIRE(back.means == state.content.model->means);

  // The menu's compressed snapshot: the same name with the compressed ending, in that format.
  state.save_ply(splat::SplatFormat::CompressedPly);
  REQUIRE(state.notes.error_count() == 0);
  CHECK(state.snapshot.ply_path == (dir / "out.compressed.ply").string());
  CHECK(splat::read_compressed_ply(dir / "out.compressed.ply").size() == 400);
  // An ending of no format is refused with a note naming the supported ones.
  state.snapshot.ply_path = (dir / "out.splat").string();
  state.save_ply();
  CHECK(state.notes.error_count() == 1);
  CHECK_FALSE(fs::exists(dir / "out.splat"));
}

TEST_CASE("viewer reports a bad file by name and keeps running", "[ui][snapshot]") {
  const fs::path dir = splat::test::scratch_dir("ui_bad_open");
  std::ofstream(dir / "broken.ply") << "ply\nformat ascii 1.0\nelement vertex 2\nend_header\n";
  ViewerState state(kernels::Device::CPU, dir / "recent.json");
  open_and_wait(state, dir / "broken.ply");
  REQUIRE(state.notes.error_count() == 1);
  REQUIRE_FALSE(state.has_content());
  state.save_png();  // nothing open: an error, not a crash
  REQUIRE(state.notes.error_count() == 2);
  REQUIRE(state.recent.items().empty());
}
