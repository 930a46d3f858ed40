#pragma once
// How the photos of one camera become training images: which pinhole camera training sees,
// which of its pixels the photo really shows, and the remapping itself (photo and user mask).
//
// Two ways to keep pixels from outside the photo out of training (the README says which one is the
// default and the measurement behind it):
// - Mask: undistort to a pinhole of the photo's size and mark the pixels whose source lies
//   outside the photo as ignored; the loss and the metrics leave them out. Keeps every pixel the
//   photo has.
// - Crop: undistort, then crop to the largest rectangle of valid pixels (COLMAP's
//   image_undistorter does the same in spirit): no ignored pixels, but the border is lost.
#include <string>

#include "core/scene/lens_model.h"
#include "core/scene/scene.h"
#include "core/scene/undistort.h"

namespace splat {

enum class UndistortMode { Mask, Crop };
const char* undistort_mode_name(UndistortMode m);
// "mask" or "crop"; throws std::invalid_argument naming the accepted values.
UndistortMode parse_undistort_mode(const std::string& name);

struct UndistortOptions {
  UndistortMode mode = UndistortMode::Mask;
  double fisheye_fov_deg = kDefaultFisheyeFovDeg;  // pinhole field of view for fisheye lenses
};

struct CameraUndistortion {
  LensCamera lens;                // the photo's lens at the size photos are loaded at
  bool remap = false;             // the photo must be remapped (a distorted lens)
  PinholeIntrinsics undistorted;  // the pinhole the photo is remapped to, before any crop
  PixelRect crop;                 // the part of `undistorted` that training sees
  PinholeIntrinsics pinhole;      // the camera training sees: `undistorted` cropped to `crop`
  PixelMask valid;                // pinhole-sized; empty when every pixel shows the photo
  double kept_fraction = 1;       // share of the photo's area that training sees
};

// Throws std::invalid_argument when no pixel of the undistorted image shows the photo.
CameraUndistortion plan_undistortion(const LensCamera& lens, const UndistortOptions& options);

struct TrainingImage {
  ImageRGB8 image;
  PixelMask mask;  // valid pixels AND the user's mask; empty when every pixel is valid
};

// photo: of plan.lens's size. user_mask: null or photo-sized (nonzero = keep).
TrainingImage to_training_image(const CameraUndistortion& plan, const ImageRGB8& photo, const PixelMask* user_mask);

}  // namespace splat
