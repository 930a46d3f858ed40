#pragma once
// Camera paths as JSON files, in the layout of nerfstudio's camera_path.json, so that a path made here
// renders there and the other way round (`splatlab render --path FILE.json`, the GUI's camera path
// export, which saves the path it renders as camera_path.json beside its frames):
//
//   {
//     "camera_type": "perspective",
//     "render_width": 1280, "render_height": 720,         every frame's image size in pixels
//     "fps": 30, "seconds": 4,                             frames / fps
//     "camera_path": [                                     one entry per frame, in order
//       {"camera_to_world": [16 numbers],                  4x4, row-major: [R | C; 0 0 0 1]
//        "fov": 50.0,                                      vertical field of view in degrees
//        "aspect": 1.7778},                                render_width / render_height
//       ...
//     ]
//   }
//
// camera_to_world follows nerfstudio's (OpenGL's) camera axes: x right, y up, looking along -z; the
// columns of R are those axes in world coordinates and C is the camera centre, in the coordinates of
// the run's scene (its COLMAP frame). The principal point is the image centre and pixels are square.
// Other keys (nerfstudio's "keyframes", "smoothness_value", "is_cycle", "crop") are written by it for
// its editor and ignored here; a "camera_type" other than perspective is refused.
#include <filesystem>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/rasterizer.h"

namespace splat {

// A bad camera path file; the message starts with the file and names the entry and key at fault.
class CameraPathError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

inline constexpr double kCameraPathFps = 30;  // the frame rate of the videos made from frames here

// Whether a --path value names a file rather than a path kind: it ends in ".json" (any case).
bool is_camera_path_file(const std::string& value);

// Writes the cameras (all of the first's size; fx = fy, principal point at the centre, as the paths
// made here are) as above. Throws CameraPathError naming the file when it cannot be written or the
// cameras are not of one size.
void write_camera_path(const std::filesystem::path& file, std::span<const kernels::Camera> cameras, double fps = kCameraPathFps);

// Reads the cameras of a camera path file. Throws CameraPathError naming the file and the problem:
// not JSON, a missing or mistyped key, an image size outside 1..16384, a fov outside (0, 180), a
// camera_to_world that is not 16 finite numbers of a rotation and a translation, no frames.
std::vector<kernels::Camera> read_camera_path(const std::filesystem::path& file);

}  // namespace splat
