#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "core/scene/demo_raytracer.h"
#include "core/scene/demo_scene.h"
#include "core/scene/scene_errors.h"
#include "core/scene/scene_loader.h"
#include "tests/support/test_support.h"

namespace fs = std::filesystem;

namespace {
// Small enough that a generation takes a fraction of a second.
splat::demo::DemoOptions small_options() {
  splat::demo::DemoOptions o;
  o.width = 96;
  o.height = 72;
  o.points = 800;
  return o;
}

std::map<std::string, std::string> read_tree(const fs::path& root) {
  std::map<std::string, std::string> files;
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    if (!e.is_regular_file()) continue;
    std::ifstream in(e.path(), std::ios::binary);
    files[fs::relative(e.path(), root).generic_string()] =
        std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  }
  return files;
}
}  // namespace

TEST_CASE("demo scene generation is deterministic and independent of the thread count", "[demo]") {
  auto o = small_options();
  o.threads = 1;
  const fs::path a = splat::test::scratch_dir("demo_det_a"), b = splat::test::scratch_dir("demo_det_b");
  splat::demo::ensure_demo_scene(a, o);
  o.threads = 3;
  splat::demo::ensure_demo_scene(b, o);
  const auto fa = read_tree(a), fb = read_tree(b);
  CHECK(fa.size() == static_cast<size_t>(splat::demo::demo_view_count()) + 4);  // PNGs, 3 txt, stamp
  REQUIRE(fa.size() == fb.size());
  for (const auto& [name, bytes] : fa) {
    INFO(name);
    REQUIRE(fb.count(name) == 1);
    CHECK(fb.at(name) == bytes);
  }
}

TEST_CASE("demo scene loads through the COLMAP loader and its points land on matching pixels", "[demo]") {
  const auto o = small_options();
  const splat::demo::DemoScene gen = splat::demo::generate_demo_scene(o);
  const fs::path dir = splat::test::scratch_dir("demo_load");
  splat::demo::write_demo_scene(gen, dir);

  splat::SceneLoadOptions lo;
  lo.show_progress = false;
  const splat::Scene s = splat::load_scene(dir, lo);
  REQUIRE(s.views.size() == static_cast<size_t>(splat::demo::demo_view_count()));
  REQUIRE(s.views.size() >= 50);
  REQUIRE(s.points.size() == gen.points.size());
  REQUIRE(s.images.size() == s.views.size());
  std::map<std::string, int> by_name;
  for (size_t i = 0; i < s.views.size(); ++i) by_name[s.views[i].name] = static_cast<int>(i);

  // Not blank: every image has clearly varying content.
  for (const splat::ImageRGB8& img : s.images) {
    REQUIRE(img.width == o.width);
    REQUIRE(img.height == o.height);
    double sum = 0, sum2 = 0;
    for (uint8_t v : img.pixels) sum += v, sum2 += double(v) * v;
    const double n = static_cast<double>(img.pixels.size());
    const double stddev = std::sqrt(sum2 / n - (sum / n) * (sum / n));
    CHECK(stddev > 20.0);
  }

  // Each point, projected with the pose and intrinsics AS LOADED, must land where the generator
  // sampled it, and the loaded image must show the point's colour there. A flipped axis, a
  // transposed rotation or a camera-to-world pose would put it elsewhere.
  std::vector<int> diffs;
  int in_views_total = 0;
  for (size_t i = 0; i < gen.points.size(); ++i) {
    const auto& src = gen.point_sources[i];
    const int vi = by_name.at(gen.views[src.view].name);
    const splat::SceneView& v = s.views[vi];
    const splat::Vec3d pc = v.R * s.points[i].xyz + v.t;
    REQUIRE(pc.z > 0);
    const double u = v.intrinsics.fx * pc.x / pc.z + v.intrinsics.cx;
    const double w = v.intrinsics.fy * pc.y / pc.z + v.intrinsics.cy;
    CHECK(std::abs(u - src.x) < 1e-3);
    CHECK(std::abs(w - src.y) < 1e-3);
    const int px = std::clamp(static_cast<int>(std::floor(u)), 0, o.width - 1);
    const int py = std::clamp(static_cast<int>(std::floor(w)), 0, o.height - 1);
    const uint8_t* pix = &s.images[vi].pixels[(static_cast<size_t>(py) * o.width + px) * 3];
    int d = 0;
    for (int c = 0; c < 3; ++c) d = std::max(d, std::abs(int(pix[c]) - int(s.points[i].rgb[c])));
    diffs.push_back(d);
    // Surface points are seen by many cameras of the hemisphere, not just their own.
    for (const splat::SceneView& other : s.views) {
      const splat::Vec3d q = other.R * s.points[i].xyz + other.t;
      const double x = other.intrinsics.fx * q.x / q.z + other.intrinsics.cx;
      const double y = other.intrinsics.fy * q.y / q.z + other.intrinsics.cy;
      in_views_total += q.z > 0 && x >= 0 && x < o.width && y >= 0 && y < o.height;
    }
  }
  std::sort(diffs.begin(), diffs.end());
  // The point is shaded at one spot, its pixel averages 4 sub-pixel samples: where the pixel
  // straddles an edge, a checker border or a penumbra the two differ, hence the quantiles.
  // (Measured at 96x72: median 0, p75 6, p90 39 of 255.)
  INFO("median " << diffs[diffs.size() / 2] << " p75 " << diffs[diffs.size() * 3 / 4]);
  CHECK(diffs[diffs.size() / 2] <= 8);
  CHECK(diffs[diffs.size() * 3 / 4] <= 20);
  CHECK(in_views_total > 20 * static_cast<int>(gen.points.size()));
}

TEST_CASE("demo scene cache regenerates only when the stamp differs and never overwrites other data", "[demo]") {
  auto o = small_options();
  o.width = 32;
  o.height = 24;
  o.points = 100;
  const fs::path dir = splat::test::scratch_dir("demo_cache") / "scene";
  CHECK(splat::demo::ensure_demo_scene(dir, o).regenerated);
  const auto before = fs::last_write_time(dir / "images" / "demo_000.png");
  const auto again = splat::demo::ensure_demo_scene(dir, o);
  CHECK_FALSE(again.regenerated);
  CHECK(again.views == splat::demo::demo_view_count());
  CHECK(fs::last_write_time(dir / "images" / "demo_000.png") == before);
  CHECK(splat::demo::ensure_demo_scene(dir, o, /*force=*/true).regenerated);
  o.width = 40;
  o.height = 30;
  CHECK(splat::demo::ensure_demo_scene(dir, o).regenerated);

  const fs::path foreign = splat::test::scratch_dir("demo_cache_foreign");
  std::ofstream(foreign / "notes.txt") << "mine";
  CHECK_THROWS_AS(splat::demo::ensure_demo_scene(foreign, o), splat::SceneError);
  CHECK_FALSE(fs::exists(foreign / "images"));

  o.width = 8;
  CHECK_THROWS_AS(splat::demo::ensure_demo_scene(dir, o), std::invalid_argument);
}

// The GUI, `train --demo` and the tests open the one cached demo folder, often several processes at
// once on a fresh machine: each must find either no scene or a whole one, never a half-written one.
TEST_CASE("demo scene cache opened by several at once: each gets a whole scene", "[demo]") {
  auto o = small_options();
  o.width = 32;
  o.height = 24;
  o.points = 100;
  for (int round = 0; round < 3; ++round) {
    const fs::path dir = splat::test::scratch_dir("demo_cache_race") / ("scene" + std::to_string(round));
    if (round == 1) fs::create_directories(dir);  // an empty folder the user made is written into too
    if (round == 2) {                               // an older scene is replaced
      auto older = o;
      older.points = 50;
      splat::demo::ensure_demo_scene(dir, older);
    }
    constexpr int kOpeners = 6;
    std::vector<std::string> errors(kOpeners);
    std::vector<size_t> views(kOpeners, 0);
    std::vector<std::thread> openers;
    for (int i = 0; i < kOpeners; ++i)
      openers.emplace_back([&, i] {
        try {
          splat::demo::ensure_demo_scene(dir, o);
          splat::SceneLoadOptions lo;
          lo.show_progress = false;
          views[i] = splat::load_scene(dir, lo).images.size();
        } catch (const std::exception& e) {
          errors[i] = e.what();
        }
      });
    for (std::thread& t : openers) t.join();
    for (int i = 0; i < kOpeners; ++i) {
      INFO("round " << round << ", opener " << i << ": " << errors[i]);
      CHECK(errors[i].empty());
      CHECK(views[i] == static_cast<size_t>(splat::demo::demo_view_count()));
    }
    CHECK_FALSE(splat::demo::ensure_demo_scene(dir, o).regenerated);
    // Nothing left beside the scene: no half-written copies.
    size_t siblings = 0;
    for (const auto& e : fs::directory_iterator(dir.parent_path())) siblings += e.path() != dir;
    CHECK(siblings == 0);
  }
}

TEST_CASE("default demo folder follows XDG_CACHE_HOME, then HOME", "[demo]") {
  const char* old_xdg = std::getenv("XDG_CACHE_HOME");
  const std::string saved = old_xdg ? old_xdg : "";
  setenv("XDG_CACHE_HOME", "/tmp/xdg-test", 1);
  CHECK(splat::demo::default_demo_folder() == fs::path("/tmp/xdg-test/splatlab/demo"));
  unsetenv("XDG_CACHE_HOME");
  if (const char* home = std::getenv("HOME"); home && *home)
    CHECK(splat::demo::default_demo_folder() == fs::path(home) / ".cache" / "splatlab" / "demo");
  if (old_xdg) setenv("XDG_CACHE_HOME", saved.c_str(), 1);
}

TEST_CASE("demo ray tracer hits the ground, a sphere and a box where geometry says", "[demo]") {
  const splat::demo::DemoWorld world;
  // Straight down far from the objects: the ground plane z = 0.
  const auto g = world.intersect({{3.0, 3.0, 2.0}, {0, 0, -1}});
  REQUIRE(g);
  CHECK(g->ground);
  CHECK(g->t == Approx(2.0));
  CHECK(g->normal.z == 1.0);
  // Towards the red sphere's centre (-1, 0.2, 0.55), radius 0.55, from above it.
  const auto s = world.intersect({{-1.0, 0.2, 3.0}, {0, 0, -1}});
  REQUIRE(s);
  CHECK_FALSE(s->ground);
  CHECK(s->t == Approx(3.0 - 0.55 - 0.55));
  CHECK(s->normal.z == Approx(1.0));
  // Onto the top face of the green pillar (centre (0.1, -0.1, 0.7), half height 0.7).
  const auto b = world.intersect({{0.1, -0.1, 5.0}, {0, 0, -1}});
  REQUIRE(b);
  CHECK(b->t == Approx(5.0 - 1.4));
  CHECK(b->normal.z == Approx(1.0));
  // Upwards: only sky, bluer at the zenith than at the horizon.
  CHECK_FALSE(world.intersect({{0, 0, 3}, {0, 0, 1}}));
  const splat::Vec3d zenith = world.sky({0, 0, 1}), horizon = world.sky({1, 0, 0});
  CHECK(zenith.z - zenith.x > horizon.z - horizon.x + 0.2);
  // The red sphere's shadow: the ground point behind its centre as seen from the sun, against the
  // point one checker period pair (1.0) further along x, same ground colour, in the sun.
  const splat::Vec3d sun = splat::Vec3d{-0.45, -0.35, 0.82} / std::sqrt(0.45 * 0.45 + 0.35 * 0.35 + 0.82 * 0.82);
  const splat::Vec3d shadow = splat::Vec3d{-1.0, 0.2, 0.55} - sun * (0.55 / sun.z);
  const splat::Vec3d lit = shadow - splat::Vec3d{1.0, 0, 0};
  auto ground_radiance = [&](splat::Vec3d p) {
    const splat::Vec3d from = p + splat::Vec3d{0.6, 0.6, 2.0};
    const splat::Vec3d d = (p - from) / splat::norm(p - from);
    const auto h = world.intersect({from, d});
    REQUIRE(h);
    REQUIRE(h->ground);
    return world.radiance({from, d}, -1);
  };
  const splat::Vec3d in_shadow = ground_radiance(shadow), in_sun = ground_radiance(lit);
  INFO("shadow " << in_shadow.x << " sun " << in_sun.x);
  CHECK(in_shadow.x < 0.5 * in_sun.x);
}
