#include "core/scene/undistort.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace splat {

namespace {

using V2 = Vec2<double>;

constexpr double kPi = 3.14159265358979323846;
constexpr double kHalfPi = kPi / 2;

// How far (radians) the photo sees from the principal point towards one edge, along the image
// row (horizontal) or column through the principal point: the largest angle below 90 degrees up
// to which the rays land inside the photo, stopping early where the lens folds (past the fold
// the edge pixels show rays nearer the axis again).
double photo_half_angle(const LensCamera& lens, bool horizontal, int sign) {
  const double f = horizontal ? lens.fx : lens.fy;
  const double c = horizontal ? lens.cx : lens.cy;
  const double edge = sign > 0 ? (horizontal ? lens.width : lens.height) - c : c;
  // Pixels from the principal point towards the edge reached by the ray at angle alpha.
  auto reach = [&](double alpha) {
    const double t = sign * std::tan(alpha);
    const V2 d = distort_normalized(lens, horizontal ? V2{t, 0} : V2{0, t});
    return sign * f * (horizontal ? d.x : d.y);
  };
  // The angle in [lo, hi] where the reach, increasing there, crosses the edge.
  auto edge_crossing = [&](double lo, double hi) {
    for (int k = 0; k < 60; ++k) {
      const double mid = 0.5 * (lo + hi);
      (reach(mid) <= edge ? lo : hi) = mid;
    }
    return lo;
  };
  constexpr int kSteps = 4096;
  const double h = kHalfPi / kSteps;
  double prev = 0;
  for (int i = 1; i < kSteps; ++i) {
    const double a = i * h;
    const double u = reach(a);
    if (!std::isfinite(u)) return a - h;
    if (u <= prev) {
      // Folded: the reach peaks in [a - 2h, a]; golden-section search for the peak.
      const double start = std::max(0.0, a - 2 * h);
      double lo = start, hi = a;
      constexpr double kGolden = 0.6180339887498949;
      for (int k = 0; k < 80; ++k) {
        const double m1 = hi - kGolden * (hi - lo), m2 = lo + kGolden * (hi - lo);
        if (reach(m1) < reach(m2)) lo = m1;
        else hi = m2;
      }
      const double peak = 0.5 * (lo + hi);
      return reach(peak) > edge ? edge_crossing(start, peak) : peak;
    }
    if (u > edge) return edge_crossing(a - h, a);
    prev = u;
  }
  return kHalfPi;
}

// The focal length (pixels) at which a pinhole with its principal point at c on an image side
// of the given size sees fov radians across that side. The field of view falls as the focal
// length grows; bisection on its logarithm.
double focal_for_fov(double fov, double c, double size) {
  auto fov_of = [&](double f) { return std::atan(c / f) + std::atan((size - c) / f); };
  double lo = 1e-9 * size, hi = 1e9 * size;
  for (int k = 0; k < 100; ++k) {
    const double mid = std::sqrt(lo * hi);
    (fov_of(mid) > fov ? lo : hi) = mid;
  }
  return std::sqrt(lo * hi);
}

V2 to_normalized(const PinholeIntrinsics& p, V2 px) { return {(px.x - p.cx) / p.fx, (px.y - p.cy) / p.fy}; }

V2 to_photo_pixel(const LensCamera& lens, V2 d) { return {lens.fx * d.x + lens.cx, lens.fy * d.y + lens.cy}; }

// Where each pixel of a pinhole image comes from in the photo, and whether it comes from it at
// all. The lens's fold is found once per camera.
class PixelSource {
 public:
  PixelSource(const LensCamera& lens, const PinholeIntrinsics& pinhole)
      : lens_(lens), pinhole_(pinhole), region_(lens, corner_radius(pinhole)) {}

  // Source position in the photo of the centre of output pixel (x, y); false when the pixel is
  // invalid (outside the photo or past the fold).
  bool find(int x, int y, V2* src) const {
    const V2 n = to_normalized(pinhole_, {x + 0.5, y + 0.5});
    if (!region_.contains(n)) return false;
    *src = to_photo_pixel(lens_, distort_normalized(lens_, n));
    return src->x >= 0 && src->x <= lens_.width && src->y >= 0 && src->y <= lens_.height;
  }

 private:
  // The largest normalised radius over the pinhole image: at one of its corners.
  static double corner_radius(const PinholeIntrinsics& p) {
    double r = 0;
    for (double x : {0.0, static_cast<double>(p.width)})
      for (double y : {0.0, static_cast<double>(p.height)}) {
        const V2 n = to_normalized(p, {x, y});
        r = std::max(r, std::sqrt(n.x * n.x + n.y * n.y));
      }
    return r;
  }

  const LensCamera& lens_;
  const PinholeIntrinsics& pinhole_;
  UnfoldedRegion region_;
};

}  // namespace

PinholeIntrinsics undistorted_pinhole(const LensCamera& lens, double fisheye_fov_deg) {
  if (!(fisheye_fov_deg > 0 && fisheye_fov_deg < 180))
    throw std::invalid_argument("fisheye field of view must lie strictly between 0 and 180 degrees, got " +
                                std::to_string(fisheye_fov_deg));
  PinholeIntrinsics p{lens.width, lens.height, lens.fx, lens.fy, lens.cx, lens.cy};
  if (!is_fisheye(lens.model)) return p;
  const bool horizontal = lens.width >= lens.height;
  const double photo_fov = photo_half_angle(lens, horizontal, -1) + photo_half_angle(lens, horizontal, +1);
  const double fov = std::min(fisheye_fov_deg * kPi / 180, photo_fov);
  if (horizontal) {
    p.fx = focal_for_fov(fov, lens.cx, lens.width);
    p.fy = p.fx * lens.fy / lens.fx;
  } else {
    p.fy = focal_for_fov(fov, lens.cy, lens.height);
    p.fx = p.fy * lens.fx / lens.fy;
  }
  return p;
}

Vec2<double> distorted_pixel(const LensCamera& lens, const PinholeIntrinsics& pinhole, Vec2<double> undistorted_px) {
  return to_photo_pixel(lens, distort_normalized(lens, to_normalized(pinhole, undistorted_px)));
}

std::vector<uint8_t> valid_pixels(const LensCamera& lens, const PinholeIntrinsics& pinhole) {
  const PixelSource source(lens, pinhole);
  std::vector<uint8_t> valid(static_cast<size_t>(pinhole.width) * pinhole.height);
  V2 src;
  for (int y = 0; y < pinhole.height; ++y)
    for (int x = 0; x < pinhole.width; ++x) valid[static_cast<size_t>(y) * pinhole.width + x] = source.find(x, y, &src);
  return valid;
}

PixelRect largest_valid_rectangle(const std::vector<uint8_t>& valid, int width, int height) {
  if (width < 0 || height < 0 || valid.size() != static_cast<size_t>(width) * height)
    throw std::invalid_argument("mask of " + std::to_string(valid.size()) + " pixels does not match " +
                                std::to_string(width) + "x" + std::to_string(height));
  // Row by row, the run of valid pixels ending at the row in each column is a histogram; the
  // largest rectangle under a histogram comes from one pass with a stack of rising bars.
  PixelRect best;
  int64_t best_area = 0;
  std::vector<int> run(width, 0);
  std::vector<int> rising;
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) run[x] = valid[static_cast<size_t>(y) * width + x] ? run[x] + 1 : 0;
    rising.clear();
    for (int x = 0; x <= width; ++x) {
      const int bar = x < width ? run[x] : 0;
      while (!rising.empty() && run[rising.back()] >= bar) {
        const int h = run[rising.back()];
        rising.pop_back();
        const int left = rising.empty() ? 0 : rising.back() + 1;
        const int64_t area = static_cast<int64_t>(h) * (x - left);
        if (area > best_area) {
          best_area = area;
          best = {left, y - h + 1, x - left, h};
        }
      }
      rising.push_back(x);
    }
  }
  return best;
}

std::array<double, 3> sample_bilinear(const ImageRGB8& img, Vec2<double> pos) {
  if (!(pos.x >= 0 && pos.y >= 0 && pos.x <= img.width && pos.y <= img.height)) return {0, 0, 0};
  // Pixel centres sit at +0.5; within half a pixel of the border the edge pixel is repeated.
  const double fx = pos.x - 0.5, fy = pos.y - 0.5;
  const int x0 = static_cast<int>(std::floor(fx)), y0 = static_cast<int>(std::floor(fy));
  const double ax = fx - x0, ay = fy - y0;
  auto clampi = [](int v, int hi) { return v < 0 ? 0 : (v > hi ? hi : v); };
  const int xa = clampi(x0, img.width - 1), xb = clampi(x0 + 1, img.width - 1);
  const int ya = clampi(y0, img.height - 1), yb = clampi(y0 + 1, img.height - 1);
  auto px = [&](int x, int y, int ch) { return static_cast<double>(img.pixels[(static_cast<size_t>(y) * img.width + x) * 3 + ch]); };
  std::array<double, 3> out{};
  for (int ch = 0; ch < 3; ++ch) {
    const double top = (1 - ax) * px(xa, ya, ch) + ax * px(xb, ya, ch);
    const double bottom = (1 - ax) * px(xa, yb, ch) + ax * px(xb, yb, ch);
    out[ch] = (1 - ay) * top + ay * bottom;
  }
  return out;
}

UndistortedImage undistort_image(const ImageRGB8& src, const LensCamera& lens, const PinholeIntrinsics& pinhole) {
  if (src.width != lens.width || src.height != lens.height)
    throw std::invalid_argument("image is " + std::to_string(src.width) + "x" + std::to_string(src.height) +
                                " but its camera is " + std::to_string(lens.width) + "x" + std::to_string(lens.height));
  const PixelSource source(lens, pinhole);
  UndistortedImage out;
  out.image.width = pinhole.width;
  out.image.height = pinhole.height;
  out.image.pixels.assign(static_cast<size_t>(pinhole.width) * pinhole.height * 3, 0);
  out.valid.assign(static_cast<size_t>(pinhole.width) * pinhole.height, 0);
  V2 pos;
  for (int y = 0; y < pinhole.height; ++y)
    for (int x = 0; x < pinhole.width; ++x) {
      const size_t i = static_cast<size_t>(y) * pinhole.width + x;
      if (!source.find(x, y, &pos)) continue;
      out.valid[i] = 1;
      const auto rgb = sample_bilinear(src, pos);
      for (int ch = 0; ch < 3; ++ch) out.image.pixels[i * 3 + ch] = static_cast<uint8_t>(rgb[ch] + 0.5);  // rgb in [0, 255]
    }
  return out;
}

}  // namespace splat
