#pragma once
// Which way is up in a scene's model frame. COLMAP's axes are arbitrary, so up is estimated from the
// cameras; a user may choose a world axis instead. The estimate and the named choices live here once,
// for everything that needs up: the GUI's grid, orbit and home view, `render --path orbit`, the camera
// path export, `info`, and the run's config.json, which records the choice.
#include <optional>
#include <span>
#include <string_view>

#include "core/scene/scene.h"

namespace splat {

// How estimate_up found up.
enum class UpSource {
  CameraPlane,  // the normal of the plane the camera centres lie in (a ring or an arc about the object)
  CameraUp,     // the mean of the cameras' up vectors (the centres lie in no clear plane)
};

// In words, for messages: "the normal of the camera centres' plane", "the cameras' mean up".
const char* up_source_text(UpSource source);

struct UpEstimate {
  Vec3d up;  // unit length, in the model frame
  UpSource source = UpSource::CameraUp;
  // The camera centres' spread: the eigenvalues of their covariance, smallest first (all 0 for
  // fewer than 4 views). Planarity is measured by flatness = lambda[0] / lambda[1].
  double lambda[3] = {0, 0, 0};
};

// The thresholds of the plane test, named so that tests and messages can speak of them.
// Flat: the smallest spread is at most a third of the middle one (a hemisphere of cameras measures
// about 0.25, a full sphere 1).
inline constexpr double kMaxPlaneFlatness = 1.0 / 3.0;
// Two-dimensional: the middle spread is at least 1 % of the largest, so a line of cameras (whose two
// small spreads are only noise) has no plane; an arc of about 55 degrees or more does.
inline constexpr double kMinPlaneSpread = 0.01;
// Looking across the plane: the views' mean |forward . normal| is at most 0.9 (within about 64
// degrees of the plane). Forward-facing captures have their centres in a plane too, but look along
// its normal, which is then the horizon's direction, not up.
inline constexpr double kMaxPlaneFacing = 0.9;
// The cameras' up vectors decide the normal's sign when their mean dot product with it is at least
// this; below, they are sideways (a phone turned 90 degrees) and the viewing directions decide it.
inline constexpr double kMinUpAgreement = 0.25;

// The world's up direction as the capture shows it. Object-centred captures circle the object, so the
// camera centres lie near a plane across gravity whatever way each photo was held: when the centres
// are flat, two-dimensional and the views look across their plane (the constants above), up is that
// plane's normal (the smallest eigenvector of the centres' covariance). Its sign agrees with the
// cameras' up vectors (COLMAP cameras look along +z with +y down, so a view's up is minus its second
// row of R) when they agree clearly enough; when they are sideways, up is the side the cameras look
// away from (they look down at what they circle). Otherwise (a forward-facing capture, a line of
// cameras, fewer than 4 views) up is the mean of the cameras' up vectors: handheld captures keep the
// camera roughly upright. Throws std::invalid_argument for no views, or when that mean cancels out.
UpEstimate estimate_up(std::span<const SceneView> views);

// The up axis a user chooses: the estimate, its opposite (a capture held upside down), or a world axis.
enum class UpAxis { Auto, Flipped, PlusX, MinusX, PlusY, MinusY, PlusZ, MinusZ };
// Their names, in the enumeration's order: what config.json records and `render --up` takes.
inline constexpr const char* kUpAxisNames[] = {"auto", "flipped", "+x", "-x", "+y", "-y", "+z", "-z"};

const char* up_axis_name(UpAxis axis);
// nullopt for a name not in kUpAxisNames.
std::optional<UpAxis> parse_up_axis(std::string_view name);

// The unit direction `axis` stands for among `views` (Auto and Flipped: estimate_up's, which throws
// as it does).
Vec3d up_direction(UpAxis axis, std::span<const SceneView> views);

}  // namespace splat
