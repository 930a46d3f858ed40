#include "core/scene/demo_raytracer.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <stdexcept>
#include <thread>

namespace splat::demo {
namespace {

constexpr double kHitEpsilon = 1e-7;
// Shadow and reflection rays start this far off the surface so they do not hit it again.
constexpr double kSurfaceOffset = 1e-5;

Vec3d normalized(Vec3d v) { return v / norm(v); }
Vec3d mul(Vec3d a, Vec3d b) { return {a.x * b.x, a.y * b.y, a.z * b.z}; }
Vec3d mix(Vec3d a, Vec3d b, double t) { return a * (1 - t) + b * t; }
Vec3d rotate_z(Vec3d v, double c, double s) { return {c * v.x - s * v.y, s * v.x + c * v.y, v.z}; }

std::optional<double> intersect_sphere(const Vec3d& center, double radius, const Ray& r, double t_max) {
  const Vec3d oc = r.origin - center;
  const double b = dot(oc, r.dir);
  const double c = dot(oc, oc) - radius * radius;
  const double disc = b * b - c;
  if (disc < 0) return std::nullopt;
  const double sq = std::sqrt(disc);
  for (double t : {-b - sq, -b + sq})
    if (t > kHitEpsilon && t < t_max) return t;
  return std::nullopt;
}

// Slab test in the box's own frame; also returns the local normal of the face hit.
// cos_yaw and sin_yaw are those of b.yaw.
std::optional<std::pair<double, Vec3d>> intersect_box(const Box& b, double cos_yaw, double sin_yaw, const Ray& r,
                                                       double t_max) {
  const Vec3d o = rotate_z(r.origin - b.center, cos_yaw, -sin_yaw);
  const Vec3d d = rotate_z(r.dir, cos_yaw, -sin_yaw);
  double t_near = -1e30, t_far = 1e30;
  int near_axis = 0, far_axis = 0;
  for (int a = 0; a < 3; ++a) {
    if (std::abs(d[a]) < 1e-15) {
      if (std::abs(o[a]) > b.half[a]) return std::nullopt;
      continue;
    }
    double t0 = (-b.half[a] - o[a]) / d[a], t1 = (b.half[a] - o[a]) / d[a];
    if (t0 > t1) std::swap(t0, t1);
    if (t0 > t_near) t_near = t0, near_axis = a;
    if (t1 < t_far) t_far = t1, far_axis = a;
  }
  if (t_near > t_far) return std::nullopt;
  // From outside the near face is hit; from inside (never for camera rays) the far one.
  const bool outside = t_near > kHitEpsilon;
  const double t = outside ? t_near : t_far;
  if (t <= kHitEpsilon || t >= t_max) return std::nullopt;
  const int axis = outside ? near_axis : far_axis;
  Vec3d n{};
  n[axis] = (o[axis] + t * d[axis]) > 0 ? 1.0 : -1.0;
  return std::make_pair(t, rotate_z(n, cos_yaw, sin_yaw));
}

// Parity of a solid checker; the quarter-period phase keeps faces that sit exactly on a cell
// boundary (box tops, the ground) away from it, where rounding would flip the colour.
bool checker_parity(double a, double b, double c, double period) {
  const auto cell = [&](double v) { return static_cast<long long>(std::floor(v / period + 0.25)); };
  return ((cell(a) + cell(b) + cell(c)) & 1) != 0;
}

}  // namespace

DemoWorld::DemoWorld() {
  // Material fields not named keep Material's defaults (solid, matte, shininess 32).
  const Material red{.albedo = {0.75, 0.12, 0.10}, .specular = 0.15, .shininess = 20};
  // The glossy one: a sharp highlight and a mirror reflection.
  const Material gold{.albedo = {0.80, 0.62, 0.22}, .specular = 0.9, .shininess = 120, .reflectivity = 0.35};
  const Material striped{
      .albedo = {0.92, 0.90, 0.85}, .albedo2 = {0.38, 0.16, 0.62}, .texture = Texture::Stripes, .texture_period = 0.15};
  const Material teal{.albedo = {0.10, 0.60, 0.55}, .specular = 0.3};
  spheres_ = {{{-1.0, 0.2, 0.55}, 0.55, red},
              {{0.8, -0.7, 0.6}, 0.6, gold},
              {{0.3, 1.1, 0.45}, 0.45, striped},
              {{-0.3, -1.4, 0.25}, 0.25, teal}};

  const Material blue{.albedo = {0.15, 0.30, 0.80}};
  const Material checker{
      .albedo = {0.90, 0.50, 0.08}, .albedo2 = {0.95, 0.92, 0.75}, .texture = Texture::Checker, .texture_period = 0.2};
  const Material green{.albedo = {0.30, 0.68, 0.25}};
  boxes_ = {{{1.3, 0.7, 0.4}, {0.4, 0.3, 0.4}, 0.5, blue},
            {{-0.9, -0.9, 0.3}, {0.3, 0.3, 0.3}, -0.3, checker},
            {{0.1, -0.1, 0.7}, {0.15, 0.15, 0.7}, 0.25, green}};

  for (const Box& b : boxes_) {
    box_cos_.push_back(std::cos(b.yaw));
    box_sin_.push_back(std::sin(b.yaw));
  }
  bound_center_ = {0, 0, 0.5};
  for (const Sphere& s : spheres_)
    bound_radius_ = std::max(bound_radius_, norm(s.center - bound_center_) + s.radius);
  for (const Box& b : boxes_) bound_radius_ = std::max(bound_radius_, norm(b.center - bound_center_) + norm(b.half));

  ground_ = {.albedo = {0.80, 0.78, 0.72}, .albedo2 = {0.30, 0.32, 0.36}, .texture = Texture::Checker, .texture_period = 0.5};

  sun_dir_ = normalized({-0.45, -0.35, 0.82});
  // Four fixed directions on a ring of 0.04 rad around the sun: an area light with a penumbra.
  const Vec3d u = normalized(cross(sun_dir_, Vec3d{0, 0, 1}));
  const Vec3d v = cross(sun_dir_, u);
  const double r = 0.04;
  sun_samples_[0] = normalized(sun_dir_ + u * r);
  sun_samples_[1] = normalized(sun_dir_ - u * r);
  sun_samples_[2] = normalized(sun_dir_ + v * r);
  sun_samples_[3] = normalized(sun_dir_ - v * r);
}

std::optional<Hit> DemoWorld::intersect(const Ray& ray, double t_max) const {
  std::optional<Hit> best;
  auto take = [&](double t, Vec3d n, const Material* m, bool ground) {
    t_max = t;
    best = Hit{t, ray.origin + ray.dir * t, n, m, ground};
  };
  if (intersect_sphere(bound_center_, bound_radius_, ray, t_max) || norm(ray.origin - bound_center_) < bound_radius_) {
    for (const Sphere& s : spheres_)
      if (auto t = intersect_sphere(s.center, s.radius, ray, t_max))
        take(*t, normalized(ray.origin + ray.dir * *t - s.center), &s.material, false);
    for (size_t i = 0; i < boxes_.size(); ++i)
      if (auto h = intersect_box(boxes_[i], box_cos_[i], box_sin_[i], ray, t_max))
        take(h->first, h->second, &boxes_[i].material, false);
  }
  if (ray.dir.z < -1e-12) {
    const double t = -ray.origin.z / ray.dir.z;
    if (t > kHitEpsilon && t < t_max) take(t, {0, 0, 1}, &ground_, true);
  }
  return best;
}

Vec3d DemoWorld::sky(const Vec3d& dir) const {
  const Vec3d horizon{0.78, 0.84, 0.92}, zenith{0.22, 0.42, 0.82};
  return mix(horizon, zenith, std::sqrt(std::clamp(dir.z, 0.0, 1.0)));
}

Vec3d DemoWorld::albedo_at(const Hit& hit) const {
  const Material& m = *hit.material;
  const Vec3d& p = hit.point;
  switch (m.texture) {
    case Texture::Solid: return m.albedo;
    case Texture::Stripes: return checker_parity(p.z, 0, 0, m.texture_period) ? m.albedo2 : m.albedo;
    case Texture::Checker: {
      const Vec3d c = checker_parity(p.x, p.y, hit.ground ? 0.0 : p.z, m.texture_period) ? m.albedo2 : m.albedo;
      if (!hit.ground) return c;
      // Far away the squares shrink below a pixel: fade them to their mean to avoid aliasing.
      const double r = std::hypot(p.x, p.y);
      return mix(c, (m.albedo + m.albedo2) * 0.5, std::clamp((r - 4.0) / 3.0, 0.0, 1.0));
    }
  }
  return m.albedo;
}

double DemoWorld::sun_visibility(const Vec3d& point, const Vec3d& normal, int light_sample) const {
  if (light_sample < 0) {
    double sum = 0;
    for (int i = 0; i < kLightSamples; ++i) sum += sun_visibility(point, normal, i);
    return sum / kLightSamples;
  }
  const Vec3d& l = sun_samples_[light_sample % kLightSamples];
  if (dot(normal, l) <= 0) return 0;
  return intersect({point + normal * kSurfaceOffset, l}) ? 0.0 : 1.0;
}

Vec3d DemoWorld::surface_colour(const Hit& hit, const Vec3d& view_dir, int light_sample, int depth) const {
  const Material& m = *hit.material;
  const Vec3d sun_colour{1.10, 1.02, 0.90};
  // Soft ambient: brighter on faces that see more sky, never black in the shadows.
  const Vec3d ambient = Vec3d{0.26, 0.30, 0.38} * (0.6 + 0.4 * hit.normal.z);
  const double vis = sun_visibility(hit.point, hit.normal, light_sample);
  const double n_dot_l = std::max(0.0, dot(hit.normal, sun_dir_));
  Vec3d c = mul(albedo_at(hit), sun_colour * (n_dot_l * vis) + ambient);
  if (m.specular > 0) {
    const Vec3d h = normalized(sun_dir_ - view_dir);
    c += sun_colour * (m.specular * vis * std::pow(std::max(0.0, dot(hit.normal, h)), m.shininess));
  }
  if (m.reflectivity > 0 && depth == 0) {
    const Vec3d refl = view_dir - hit.normal * (2 * dot(view_dir, hit.normal));
    const Ray r{hit.point + hit.normal * kSurfaceOffset, normalized(refl)};
    const auto h2 = intersect(r);
    const Vec3d seen = h2 ? surface_colour(*h2, r.dir, light_sample, depth + 1) : sky(r.dir);
    c = mix(c, seen, m.reflectivity);
  }
  if (hit.ground) {
    // Haze towards the horizon hides where the ground plane meets the sky.
    const double r = std::hypot(hit.point.x, hit.point.y);
    c = mix(c, sky({1, 0, 0}), 1.0 - std::exp(-0.25 * std::max(0.0, r - 6.0)));
  }
  return c;
}

Vec3d DemoWorld::radiance(const Ray& ray, int light_sample) const {
  const auto hit = intersect(ray);
  return hit ? surface_colour(*hit, ray.dir, light_sample, 0) : sky(ray.dir);
}

uint8_t to_display_byte(double linear) {
  const double v = std::pow(std::clamp(linear, 0.0, 1.0), 1.0 / 2.2);
  return static_cast<uint8_t>(std::lround(v * 255.0));
}

Ray camera_ray(const SceneView& view, const LensCamera& lens, double x, double y) {
  Vec2<double> n{(x - lens.cx) / lens.fx, (y - lens.cy) / lens.fy};
  if (has_distortion(lens)) {
    const auto undistorted = undistort_normalized(lens, n);
    if (!undistorted) throw std::domain_error("demo: the lens does not image this pixel");
    n = *undistorted;
  }
  const Vec3d d_cam{n.x, n.y, 1.0};
  return {view.camera_center(), normalized(transpose(view.R) * d_cam)};
}

ImageRGB8 render_view(const DemoWorld& world, const SceneView& view, const LensCamera& lens, int samples_per_axis,
                      int threads) {
  const int w = view.intrinsics.width, h = view.intrinsics.height;
  ImageRGB8 img{w, h, std::vector<uint8_t>(static_cast<size_t>(w) * h * 3)};
  const int n = std::max(1, samples_per_axis);
  std::atomic<int> next_row{0};
  auto worker = [&] {
    for (int y; (y = next_row.fetch_add(1)) < h;) {
      for (int x = 0; x < w; ++x) {
        Vec3d sum{};
        for (int sy = 0; sy < n; ++sy)
          for (int sx = 0; sx < n; ++sx) {
            const Ray r = camera_ray(view, lens, x + (sx + 0.5) / n, y + (sy + 0.5) / n);
            sum += world.radiance(r, (sy * n + sx) % DemoWorld::kLightSamples);
          }
        const Vec3d c = sum / static_cast<double>(n * n);
        uint8_t* px = &img.pixels[(static_cast<size_t>(y) * w + x) * 3];
        for (int ch = 0; ch < 3; ++ch) px[ch] = to_display_byte(c[ch]);
      }
    }
  };
  const int t = threads > 0 ? threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  std::vector<std::thread> pool;
  for (int i = 1; i < std::min(t, h); ++i) pool.emplace_back(worker);
  worker();
  for (auto& th : pool) th.join();
  return img;
}

}  // namespace splat::demo
