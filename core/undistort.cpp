#include "core/undistort.h"

#include <cmath>

namespace splat {

LensCamera lens_camera(CameraModel model, int width, int height, const std::vector<double>& p) {
  LensCamera c;
  c.model = model;
  c.width = width;
  c.height = height;
  switch (model) {
    case CameraModel::SimplePinhole: c.fx = c.fy = p[0]; c.cx = p[1]; c.cy = p[2]; break;
    case CameraModel::Pinhole: c.fx = p[0]; c.fy = p[1]; c.cx = p[2]; c.cy = p[3]; break;
    case CameraModel::SimpleRadial: c.fx = c.fy = p[0]; c.cx = p[1]; c.cy = p[2]; c.k1 = p[3]; break;
    case CameraModel::Radial: c.fx = c.fy = p[0]; c.cx = p[1]; c.cy = p[2]; c.k1 = p[3]; c.k2 = p[4]; break;
    case CameraModel::OpenCV:
      c.fx = p[0]; c.fy = p[1]; c.cx = p[2]; c.cy = p[3];
      c.k1 = p[4]; c.k2 = p[5]; c.p1 = p[6]; c.p2 = p[7];
      break;
  }
  return c;
}

bool has_distortion(const LensCamera& c) { return c.k1 != 0 || c.k2 != 0 || c.p1 != 0 || c.p2 != 0; }

LensCamera resized(const LensCamera& cam, int width, int height) {
  LensCamera c = cam;
  const double sx = static_cast<double>(width) / cam.width;
  const double sy = static_cast<double>(height) / cam.height;
  c.width = width;
  c.height = height;
  c.fx *= sx;
  c.cx *= sx;
  c.fy *= sy;
  c.cy *= sy;
  return c;
}

PinholeIntrinsics pinhole_of(const LensCamera& c) { return {c.width, c.height, c.fx, c.fy, c.cx, c.cy}; }

Vec2<double> distort_normalized(const LensCamera& c, Vec2<double> n) {
  const double xx = n.x * n.x, yy = n.y * n.y, xy = n.x * n.y;
  const double r2 = xx + yy;
  const double radial = c.k1 * r2 + c.k2 * r2 * r2;
  const double dx = n.x * radial + 2 * c.p1 * xy + c.p2 * (r2 + 2 * xx);
  const double dy = n.y * radial + 2 * c.p2 * xy + c.p1 * (r2 + 2 * yy);
  return {n.x + dx, n.y + dy};
}

Vec2<double> distorted_pixel(const LensCamera& c, Vec2<double> u) {
  const Vec2<double> n{(u.x - c.cx) / c.fx, (u.y - c.cy) / c.fy};
  const Vec2<double> d = distort_normalized(c, n);
  return {c.fx * d.x + c.cx, c.fy * d.y + c.cy};
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

ImageRGB8 undistort_image(const ImageRGB8& src, const LensCamera& cam) {
  ImageRGB8 out;
  out.width = cam.width;
  out.height = cam.height;
  out.pixels.resize(static_cast<size_t>(out.width) * out.height * 3);
  for (int y = 0; y < out.height; ++y)
    for (int x = 0; x < out.width; ++x) {
      const auto rgb = sample_bilinear(src, distorted_pixel(cam, {x + 0.5, y + 0.5}));
      uint8_t* o = &out.pixels[(static_cast<size_t>(y) * out.width + x) * 3];
      for (int ch = 0; ch < 3; ++ch) o[ch] = static_cast<uint8_t>(std::lround(rgb[ch]));
    }
  return out;
}

}  // namespace splat
