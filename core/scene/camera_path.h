#pragma once
// Camera paths for rendering a trained scene as a sequence of frames (`splatlab render --path`, the
// GUI's export), and the scene orientation they need: which way is up, and what the capture looks at.
#include <optional>
#include <span>
#include <vector>

#include "core/scene/scene.h"
#include "kernels/rasterizer.h"

namespace splat {

// The world's up direction as the capture shows it: the mean of the views' up vectors (COLMAP
// cameras look along +z with +y pointing down, so a view's up is minus its second row of R),
// normalised. Handheld and turntable captures keep the camera roughly upright, so the mean is the
// gravity direction even when COLMAP's own axes are arbitrary. Throws std::invalid_argument for no
// views, or when the up vectors cancel out (no consistent up).
Vec3d estimate_up(std::span<const SceneView> views);

// The point the views look at: the least-squares nearest point to every view's optical axis (the
// object of an object-centred capture). Falls back to the mean camera centre plus the mean viewing
// direction times the mean centre distance to it when the axes are (nearly) parallel.
Vec3d focus_point(std::span<const SceneView> views);

// `frames` cameras on a circle about the up axis (`up`, unit length, or estimate_up's when not
// given) through the focus point, at the views' median horizontal distance and median height,
// starting at the first view's azimuth, looking at the focus. Images of width x height (0: the first
// view's size; one of them 0: the first view's aspect ratio), with the first view's field of view
// across the width.
std::vector<kernels::Camera> orbit_path(std::span<const SceneView> views, int frames, int width, int height,
                                        std::optional<Vec3d> up = std::nullopt);

// The views in order, as cameras of width x height: frames = 0 gives each view once; otherwise
// `frames` cameras evenly spaced along the sequence, positions interpolated linearly and rotations
// spherically between neighbouring views.
std::vector<kernels::Camera> views_path(std::span<const SceneView> views, int frames, int width, int height);

}  // namespace splat
