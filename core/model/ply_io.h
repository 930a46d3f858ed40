#pragma once
// Gaussians as PLY files in the layout the reference 3DGS code and the common viewers use:
//   x y z nx ny nz f_dc_0..2 f_rest_0..f_rest_(3(K-1)-1) opacity scale_0..2 rot_0..3   (all float)
// with f_rest channel-major (f_rest_{c*(K-1)+k}: every red coefficient, then green, then blue),
// opacity as a logit, scales as logs and rot as (w, x, y, z); the normals are written as zero.
#include <filesystem>

#include "core/model/gaussian_model.h"
#include "core/scene/scene_errors.h"

namespace splat {

// Bad or unsupported PLY input; the message starts with the file ("<file>: <problem>").
class PlyError : public SceneError {
 public:
  using SceneError::SceneError;
};

// Writes binary little-endian PLY. Throws PlyError when the file cannot be written.
void write_ply(const std::filesystem::path& file, const GaussianModel& model);

// Reads binary little-endian or ascii PLY with the vertex properties above in any order (by name;
// nx ny nz may be absent); the 3DGS properties must be float or double, other properties (any
// type) and elements are skipped. The SH storage degree follows from the number of f_rest
// properties (0, 9, 24 or 45 for degree 0..3). The data must be exactly what the header
// describes: in binary files its byte count, in ascii files one line per row; anything else
// (a changed count or property line, bytes cut, appended or inserted) is refused before the
// model is allocated (binary) or at the first row that disagrees (ascii).
GaussianModel read_ply(const std::filesystem::path& file);

}  // namespace splat
