#include "core/render/camera_path_file.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <numbers>

#include <nlohmann/json.hpp>

#include "core/util/user_text.h"

namespace splat {
namespace {

using nlohmann::json;
constexpr double kDegrees = 180.0 / std::numbers::pi;
constexpr int kMaxSide = 16384;  // as render's --width and --height

CameraPathError error(const std::filesystem::path& file, const std::string& problem) {
  return CameraPathError(file.string() + ": " + problem);
}

// A key of an object that must be there with a number in [lo, hi] (exclusive where asked).
double number_at(const std::filesystem::path& file, const json& obj, const char* key, const std::string& where, double lo,
                 double hi, bool open = false) {
  const auto it = obj.find(key);
  if (it == obj.end()) throw error(file, where + "'" + key + "' is missing");
  if (!it->is_number()) throw error(file, where + "'" + key + "' is " + quote_user_text(it->dump()) + ", expected a number");
  const double v = it->get<double>();
  if (!std::isfinite(v) || v < lo || v > hi || (open && (v == lo || v == hi))) {
    char range[80];  // a number's JSON text is safe to show as it is
    std::snprintf(range, sizeof range, open ? "between %g and %g" : "in %g..%g", lo, hi);
    throw error(file, where + "'" + key + "' is " + it->dump() + ", expected a number " + range);
  }
  return v;
}

int side_at(const std::filesystem::path& file, const json& obj, const char* key) {
  const double v = number_at(file, obj, key, "", 1, kMaxSide);
  if (v != std::floor(v)) throw error(file, std::string("'") + key + "' is " + json(v).dump() + ", expected a whole number of pixels");
  return int(v);
}

// One camera_path entry's pose and field of view as a camera of the given size.
kernels::Camera camera_of(const std::filesystem::path& file, const json& entry, size_t k, int width, int height) {
  const std::string where = "camera_path[" + std::to_string(k) + "]: ";
  if (!entry.is_object()) throw error(file, where + "expected an object, got " + quote_user_text(entry.dump()));
  const auto m = entry.find("camera_to_world");
  if (m == entry.end()) throw error(file, where + "'camera_to_world' is missing");
  if (!m->is_array() || m->size() != 16 ||
      !std::all_of(m->begin(), m->end(), [](const json& v) { return v.is_number() && std::isfinite(v.get<double>()); }))
    throw error(file, where + "'camera_to_world' must be 16 finite numbers (a 4x4 matrix, row by row)");
  double M[4][4];
  for (int i = 0; i < 16; ++i) M[i / 4][i % 4] = (*m)[size_t(i)].get<double>();
  // Our cameras map world to camera with x right, y down, looking along +z: nerfstudio's y and z flipped.
  double R[3][3], C[3];
  for (int i = 0; i < 3; ++i) {
    R[0][i] = M[i][0], R[1][i] = -M[i][1], R[2][i] = -M[i][2];
    C[i] = M[i][3];
  }
  double worst = std::abs(M[3][0]) + std::abs(M[3][1]) + std::abs(M[3][2]) + std::abs(M[3][3] - 1);
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b) {
      double dot = 0;
      for (int i = 0; i < 3; ++i) dot += R[a][i] * R[b][i];
      worst = std::max(worst, std::abs(dot - (a == b ? 1 : 0)));
    }
  const double det = R[0][0] * (R[1][1] * R[2][2] - R[1][2] * R[2][1]) - R[0][1] * (R[1][0] * R[2][2] - R[1][2] * R[2][0]) +
                     R[0][2] * (R[1][0] * R[2][1] - R[1][1] * R[2][0]);
  if (worst > 1e-3 || det < 0)
    throw error(file, where + "'camera_to_world' is not a rotation and a translation (its 3x3 part must be orthonormal, "
                              "determinant 1, its last row 0 0 0 1)");
  const double fov = number_at(file, entry, "fov", where, 0, 180, true);
  kernels::Camera cam;
  for (int a = 0; a < 3; ++a) {
    double t = 0;
    for (int i = 0; i < 3; ++i) cam.R[a * 3 + i] = float(R[a][i]), t -= R[a][i] * C[i];
    cam.t[a] = float(t);
  }
  cam.width = width, cam.height = height;
  cam.fy = cam.fx = float(0.5 * height / std::tan(0.5 * fov / kDegrees));
  cam.cx = 0.5f * float(width), cam.cy = 0.5f * float(height);
  return cam;
}

}  // namespace

bool is_camera_path_file(const std::string& value) {
  if (value.size() < 5) return false;
  std::string end = value.substr(value.size() - 5);
  std::transform(end.begin(), end.end(), end.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return end == ".json";
}

void write_camera_path(const std::filesystem::path& file, std::span<const kernels::Camera> cameras, double fps) {
  if (cameras.empty()) throw error(file, "a camera path needs at least one camera");
  const int w = cameras[0].width, h = cameras[0].height;
  json path = json::array();
  for (const kernels::Camera& c : cameras) {
    if (c.width != w || c.height != h) throw error(file, "the cameras of a path file share one image size");
    json m = json::array();
    double C[3];
    for (int i = 0; i < 3; ++i) C[i] = -(double(c.R[i]) * c.t[0] + double(c.R[3 + i]) * c.t[1] + double(c.R[6 + i]) * c.t[2]);
    for (int i = 0; i < 3; ++i)  // row i: the world's axis i seen along the camera's x, y up, z back, and the centre
      m.insert(m.end(), {double(c.R[i]), -double(c.R[3 + i]), -double(c.R[6 + i]), C[i]});
    m.insert(m.end(), {0.0, 0.0, 0.0, 1.0});
    path.push_back({{"camera_to_world", m}, {"fov", 2 * std::atan(0.5 * h / double(c.fy)) * kDegrees}, {"aspect", double(w) / h}});
  }
  const json doc = {{"camera_type", "perspective"}, {"render_width", w},  {"render_height", h},
                    {"fps", fps},                   {"seconds", double(cameras.size()) / fps}, {"camera_path", path}};
  std::ofstream out(file);
  out << doc.dump(2) << "\n";
  out.close();
  if (!out) throw error(file, "cannot write the camera path (no such folder, disk full or permission denied?)");
}

std::vector<kernels::Camera> read_camera_path(const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in) throw error(file, "cannot open the camera path file");
  json doc;
  try {
    doc = json::parse(in);
  } catch (const json::parse_error& e) {
    throw error(file, std::string("not valid JSON: ") + e.what());
  }
  if (!doc.is_object()) throw error(file, "expected a JSON object with 'camera_path', 'render_width' and 'render_height'");
  if (const auto t = doc.find("camera_type"); t != doc.end() && *t != "perspective")
    throw error(file, "'camera_type' is " + quote_user_text(t->dump()) + "; only \"perspective\" paths are rendered");
  const int width = side_at(file, doc, "render_width"), height = side_at(file, doc, "render_height");
  const auto path = doc.find("camera_path");
  if (path == doc.end()) throw error(file, "'camera_path' is missing");
  if (!path->is_array() || path->empty()) throw error(file, "'camera_path' must be a list of at least one camera");
  std::vector<kernels::Camera> cameras;
  for (size_t k = 0; k < path->size(); ++k) cameras.push_back(camera_of(file, (*path)[k], k, width, height));
  return cameras;
}

}  // namespace splat
