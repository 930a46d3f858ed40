#pragma once
// Camera paths for rendering a trained scene as a sequence of frames (`splatlab render --path`, the
// GUI's export), and the scene orientation they need: what the capture looks at, and upright cameras
// about the up axis (core/scene/up_axis.h).
#include <optional>
#include <span>
#include <vector>

#include "core/scene/scene.h"
#include "core/scene/up_axis.h"
#include "kernels/rasterizer.h"

namespace splat {

// The point the views look at: the least-squares nearest point to every view's optical axis (the
// object of an object-centred capture). Falls back to the mean camera centre plus the mean viewing
// direction times the mean centre distance to it when the axes are (nearly) parallel.
Vec3d focus_point(std::span<const SceneView> views);

// Rotation rows (right, down, forward) of an upright camera at `eye` looking at `target`: its image
// rows level across `up` (unit length), the image's down against it. `eye - target` must not be
// parallel to up.
Mat3d look_at(Vec3d eye, Vec3d target, Vec3d up);

// A camera's place: rotation rows (right, down, forward, world to camera) and centre.
struct CameraPose {
  Mat3d R;
  Vec3d centre;
};

// `frames` upright poses on a circle about the up axis (`up`, any length, or estimate_up's when not
// given) through the focus point, at the views' median horizontal distance and median height,
// starting at the first view's azimuth, looking at the focus. The first is the scene's upright
// overview (the GUI's home view).
std::vector<CameraPose> orbit_poses(std::span<const SceneView> views, int frames, std::optional<Vec3d> up = std::nullopt);

// orbit_poses' cameras, for images of width x height (0: the first view's size; one of them 0: the
// first view's aspect ratio), with the first view's field of view across the width.
std::vector<kernels::Camera> orbit_path(std::span<const SceneView> views, int frames, int width, int height,
                                        std::optional<Vec3d> up = std::nullopt);

// The views in order, as cameras of width x height: frames = 0 gives each view once; otherwise
// `frames` cameras evenly spaced along the sequence, positions interpolated linearly and rotations
// spherically between neighbouring views.
std::vector<kernels::Camera> views_path(std::span<const SceneView> views, int frames, int width, int height);

}  // namespace splat
