#pragma once
// The viewer's camera controller: an orientation, a pivot and a distance. Every gesture is a
// rigid motion of that frame, which is what makes the guarantees below easy to state and test:
// orbit keeps the distance to the pivot, pan moves pivot and eye together, zoom changes only the
// distance, and snapping to a training camera reproduces its pose exactly.
// Conventions are COLMAP's (world-to-camera R, camera x right, y down, z forward).
#include <span>

#include "core/scene/scene.h"
#include "kernels/hd_math.h"
#include "kernels/rasterizer.h"

namespace splat::ui {

class OrbitCamera {
 public:
  OrbitCamera();

  // Gestures. dx, dy are mouse motions in pixels (x right, y down).
  // Orbit about the pivot: horizontal motion turns about the world up axis, vertical motion about
  // the camera's right axis; the scene follows the mouse.
  void orbit(double dx, double dy);
  // Slide pivot and eye in the image plane so the point under the pivot follows the mouse.
  void pan(double dx, double dy, int viewport_height);
  // Wheel steps; positive moves towards the pivot. Only the distance changes.
  void zoom(double steps);
  // Translates eye and pivot by `move` given in camera axes (right, down, forward), world units.
  void fly(const Vec3d& move);

  // Puts the pivot at `center` and backs off until a sphere of `radius` fits the vertical field of
  // view; keeps the orientation.
  void frame(const Vec3d& center, double radius);
  // Takes the pose, pinhole and field of view of a training camera. The pivot lands on the
  // camera's axis at `pivot_distance`.
  void snap_to(const SceneView& view, double pivot_distance);
  // An upright view from `eye` of `pivot`: the image's rows level across the world up, its down
  // against it; keeps the field of view. `eye - pivot` must not be parallel to the world up.
  void look_at(const Vec3d& eye, const Vec3d& pivot);
  // Rolls the camera about its forward axis until the image's rows are level across the world up
  // (eye, pivot and forward stay); nothing changes while it looks straight along up, which has no horizon.
  void level();
  // Remembers the current state, or `other`'s, as "home"; reset() returns to it.
  void set_home() { home_ = state_; }
  void set_home(const OrbitCamera& other) { home_ = other.state_; }
  void reset() { state_ = home_; }

  // The up direction orbiting turns about (unit length). Scenes have no fixed up, so the viewer
  // derives it from the training cameras (core/scene/up_axis.h) or takes the user's choice.
  void set_world_up(const Vec3d& up);
  const Vec3d& world_up() const { return up_; }

  double fov_y() const { return state_.fov_y; }  // radians
  void set_fov_y(double radians);
  const Mat3d& rotation() const { return state_.R; }  // world-to-camera
  const Vec3d& pivot() const { return state_.pivot; }
  double distance() const { return state_.distance; }
  Vec3d eye() const;
  Vec3d forward() const;  // camera +z in world coordinates
  Vec3d right() const;    // camera +x
  Vec3d down() const;     // camera +y

  // The pinhole camera for an image of width x height with this field of view (square pixels,
  // principal point at the centre).
  kernels::Camera camera(int width, int height) const;

 private:
  struct State {
    Mat3d R = Mat3d::identity();
    Vec3d pivot{};
    double distance = 1.0;
    double fov_y = 0.8;
  };
  // Turns the camera frame about `axis` through the pivot by `angle` radians.
  void rotate_about_pivot(const Vec3d& axis, double angle);

  State state_;
  State home_;
  Vec3d up_{0, -1, 0};
};

// Rotation by `angle` radians about the unit `axis` (right-handed).
Mat3d axis_angle(const Vec3d& axis, double angle);
// Rows re-orthonormalised (Gram-Schmidt on rows 2, 0; row 1 from their cross product), so that
// many small rotations do not drift away from a rotation matrix.
Mat3d orthonormalized(const Mat3d& R);

// Index into `views` of the camera whose centre is nearest to `eye` among `candidates`
// (indices into views); -1 when there are none.
int nearest_view(std::span<const SceneView> views, std::span<const int> candidates, const Vec3d& eye);
// The candidate `delta` places after `current` in `candidates` (wrapping around); when `current`
// is not a candidate, the first (delta > 0) or the last one. -1 when there are none.
int step_view(std::span<const int> candidates, int current, int delta);

}  // namespace splat::ui
