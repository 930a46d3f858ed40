#pragma once
// Undistortion of a photo taken through any supported lens (core/scene/lens_model.h) to a pinhole
// camera of the same size: which pinhole, where each of its pixels lies in the photo, which of
// its pixels the photo actually shows, and the remapped image. Pixel coordinates follow COLMAP:
// continuous, with the centre of pixel (i, j) at (i + 0.5, j + 0.5).
#include <array>
#include <cstdint>
#include <vector>

#include "core/scene/lens_model.h"
#include "core/scene/scene.h"

namespace splat {

// Default field of view (degrees, across the image's longer side) of the pinhole a fisheye photo
// is undistorted to. A pinhole stretches the periphery as tan(theta): the pixels near 90 degrees
// cover ever more of the image plane, so a wider pinhole spends its resolution on a stretched,
// blurred rim and shrinks the well-sampled centre into a few pixels. 100 degrees keeps the
// stretch at the edge under 1 / cos^2(50 deg) ~ 2.4x.
inline constexpr double kDefaultFisheyeFovDeg = 100.0;

// The pinhole camera a photo is undistorted to. Non-fisheye models: same size, focal lengths and
// principal point. Fisheye models: same size and principal point; the focal length is chosen so
// that the pinhole's field of view across the image's longer side equals
// min(fisheye_fov_deg, the photo's own field of view across that side), with fy / fx kept.
// Throws std::invalid_argument unless 0 < fisheye_fov_deg < 180.
PinholeIntrinsics undistorted_pinhole(const LensCamera& lens, double fisheye_fov_deg = kDefaultFisheyeFovDeg);

// For a position in the undistorted (pinhole) image, the position in the photo that shows the
// same ray.
Vec2<double> distorted_pixel(const LensCamera& lens, const PinholeIntrinsics& pinhole, Vec2<double> undistorted_px);

// Per pixel of the pinhole image (row-major, 1 = valid): its source position lies inside the
// photo, [0, W] x [0, H], and inside the lens's first fold (past a fold a polynomial lens maps
// other rays onto the same photo pixels, so those pixels would show the wrong part of the scene).
std::vector<uint8_t> valid_pixels(const LensCamera& lens, const PinholeIntrinsics& pinhole);

struct PixelRect {
  int x0 = 0, y0 = 0, width = 0, height = 0;
};

// The largest-area axis-aligned rectangle of valid pixels (all zero when none is valid); among
// rectangles of equal area the one whose bottom row comes first, then the leftmost. Throws
// std::invalid_argument when valid.size() != width * height.
PixelRect largest_valid_rectangle(const std::vector<uint8_t>& valid, int width, int height);

// Bilinear sample at a continuous pixel position; black outside the image.
std::array<double, 3> sample_bilinear(const ImageRGB8& img, Vec2<double> pos);

struct UndistortedImage {
  ImageRGB8 image;             // the pinhole's size; invalid pixels black
  std::vector<uint8_t> valid;  // valid_pixels(lens, pinhole)
};

// Remaps a photo (of the lens's size) to the pinhole camera: each valid output pixel samples the
// photo bilinearly where distorted_pixel puts it. Throws std::invalid_argument when src is not
// the lens's size.
UndistortedImage undistort_image(const ImageRGB8& src, const LensCamera& lens, const PinholeIntrinsics& pinhole);

}  // namespace splat
