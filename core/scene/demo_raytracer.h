#pragma once
// A small CPU ray tracer for the built-in demo scene: a few spheres and boxes with diffuse,
// textured and glossy materials on a checkered ground under a sky gradient, lit by a sun with
// soft shadows and a sky ambient term. The scene is analytic geometry, NOT Gaussians, so a model
// trained on its images has to approximate it the way it approximates a real capture.
#include <optional>
#include <vector>

#include "core/scene/lens_model.h"
#include "core/scene/scene.h"

namespace splat::demo {

struct Ray {
  Vec3d origin, dir;  // dir is unit length
};

enum class Texture { Solid, Checker, Stripes };

struct Material {
  Vec3d albedo{0.5, 0.5, 0.5};
  Vec3d albedo2{0.5, 0.5, 0.5};  // second colour of a checker or stripe texture
  Texture texture = Texture::Solid;
  double texture_period = 0.5;  // world units per checker square / stripe
  double specular = 0.0;        // Blinn-Phong highlight strength
  double shininess = 32.0;
  double reflectivity = 0.0;    // mirror reflection mixed in (one bounce)
};

struct Sphere {
  Vec3d center;
  double radius = 1;
  Material material;
};

// An upright box: half extents along its own axes, turned by `yaw` radians about world z.
struct Box {
  Vec3d center, half;
  double yaw = 0;
  Material material;
};

struct Hit {
  double t = 0;
  Vec3d point, normal;
  const Material* material = nullptr;
  bool ground = false;
};

// The fixed demo world. World z is up; the ground is the plane z = 0.
class DemoWorld {
 public:
  DemoWorld();

  // Nearest hit with t in (epsilon, t_max), or nothing.
  std::optional<Hit> intersect(const Ray& ray, double t_max = 1e30) const;

  // Radiance (linear RGB) seen along a ray. The sun is an area light sampled by kLightSamples
  // fixed directions: light_sample picks one (a renderer's sub-pixel samples take turns, so a
  // pixel averages them), or -1 averages all of them in this call.
  Vec3d radiance(const Ray& ray, int light_sample) const;

  Vec3d sky(const Vec3d& dir) const;

  static constexpr int kLightSamples = 4;

 private:
  Vec3d surface_colour(const Hit& hit, const Vec3d& view_dir, int light_sample, int depth) const;
  double sun_visibility(const Vec3d& point, const Vec3d& normal, int light_sample) const;
  Vec3d albedo_at(const Hit& hit) const;

  std::vector<Sphere> spheres_;
  std::vector<Box> boxes_;
  std::vector<double> box_cos_, box_sin_;  // of each box's yaw, computed once
  // A sphere around every object: most rays (sky, ground) miss it and skip the object tests.
  Vec3d bound_center_;
  double bound_radius_ = 0;
  Material ground_;
  Vec3d sun_dir_;  // towards the sun, unit
  Vec3d sun_samples_[kLightSamples];
};

// Linear radiance -> 8-bit sRGB-like value (gamma 2.2, clamped, rounded).
uint8_t to_display_byte(double linear);

// Renders one view (world-to-camera R, t; COLMAP axes) as the lens photographs it, with
// samples_per_axis^2 sub-pixel samples per pixel, on `threads` threads (0 = all cores). Rows are
// independent, so the result does not depend on the thread count. The lens must have the view's size.
ImageRGB8 render_view(const DemoWorld& world, const SceneView& view, const LensCamera& lens, int samples_per_axis,
                      int threads);

// The camera ray through photo position (x, y) in pixels (pixel centres at integer + 0.5) of the
// lens; a pinhole lens gives the view's pinhole ray. Throws std::domain_error for a position the
// lens does not image (beyond a fold, or past 90 degrees).
Ray camera_ray(const SceneView& view, const LensCamera& lens, double x, double y);

}  // namespace splat::demo
