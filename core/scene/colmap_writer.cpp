#include "core/scene/colmap_writer.h"

#include <fstream>

#include "core/scene/scene_errors.h"

namespace splat::colmap {
namespace fs = std::filesystem;

namespace {

std::ofstream open_for_writing(const fs::path& file, std::ios::openmode mode) {
  std::ofstream out(file, mode);
  if (!out) throw SceneError(file, "cannot open for writing");
  // %.17g keeps doubles exact through the text round trip.
  out.precision(17);
  return out;
}

void close_checked(std::ofstream& out, const fs::path& file) {
  out.close();
  if (!out) throw SceneError(file, "write failed");
}

template <class T>
void put(std::ofstream& out, T v) {
  out.write(reinterpret_cast<const char*>(&v), sizeof v);
}

// A position or translation as three little-endian doubles, COLMAP's binary layout.
void put_vec3(std::ofstream& out, const Vec3d& v) {
  put<double>(out, v.x);
  put<double>(out, v.y);
  put<double>(out, v.z);
}

}  // namespace

void write_colmap_text(const fs::path& folder, const std::vector<Camera>& cameras, const std::vector<Image>& images,
                       const std::vector<Point>& points) {
  fs::create_directories(folder);
  {
    const fs::path file = folder / "cameras.txt";
    auto out = open_for_writing(file, std::ios::out);
    out << "# Camera list with one line of data per camera:\n#   CAMERA_ID, MODEL, WIDTH, HEIGHT, PARAMS[]\n";
    for (const Camera& c : cameras) {
      out << c.id << ' ' << camera_model_name(c.model) << ' ' << c.width << ' ' << c.height;
      for (double p : c.params) out << ' ' << p;
      out << '\n';
    }
    close_checked(out, file);
  }
  {
    const fs::path file = folder / "images.txt";
    auto out = open_for_writing(file, std::ios::out);
    out << "# Image list with two lines of data per image:\n"
           "#   IMAGE_ID, QW, QX, QY, QZ, TX, TY, TZ, CAMERA_ID, NAME\n#   POINTS2D[] as (X, Y, POINT3D_ID)\n";
    for (const Image& im : images) {
      out << im.id;
      for (double q : im.qvec) out << ' ' << q;
      out << ' ' << im.tvec.x << ' ' << im.tvec.y << ' ' << im.tvec.z << ' ' << im.camera_id << ' ' << im.name << "\n\n";
    }
    close_checked(out, file);
  }
  {
    const fs::path file = folder / "points3D.txt";
    auto out = open_for_writing(file, std::ios::out);
    out << "# 3D point list with one line of data per point:\n"
           "#   POINT3D_ID, X, Y, Z, R, G, B, ERROR, TRACK[] as (IMAGE_ID, POINT2D_IDX)\n";
    for (const Point& p : points)
      out << p.id << ' ' << p.xyz.x << ' ' << p.xyz.y << ' ' << p.xyz.z << ' ' << int(p.rgb[0]) << ' ' << int(p.rgb[1])
          << ' ' << int(p.rgb[2]) << ' ' << p.error << '\n';
    close_checked(out, file);
  }
}

void write_colmap_binary(const fs::path& folder, const std::vector<Camera>& cameras, const std::vector<Image>& images,
                         const std::vector<Point>& points) {
  fs::create_directories(folder);
  {
    const fs::path file = folder / "cameras.bin";
    auto out = open_for_writing(file, std::ios::binary);
    put<uint64_t>(out, cameras.size());
    for (const Camera& c : cameras) {
      put<int32_t>(out, c.id);
      put<int32_t>(out, model_id(c.model));
      put<uint64_t>(out, c.width);
      put<uint64_t>(out, c.height);
      for (double p : c.params) put<double>(out, p);
    }
    close_checked(out, file);
  }
  {
    const fs::path file = folder / "images.bin";
    auto out = open_for_writing(file, std::ios::binary);
    put<uint64_t>(out, images.size());
    for (const Image& im : images) {
      put<int32_t>(out, im.id);
      for (double q : im.qvec) put<double>(out, q);
      put_vec3(out, im.tvec);
      put<int32_t>(out, im.camera_id);
      out.write(im.name.c_str(), static_cast<std::streamsize>(im.name.size() + 1));
      put<uint64_t>(out, 0);  // no keypoints
    }
    close_checked(out, file);
  }
  {
    const fs::path file = folder / "points3D.bin";
    auto out = open_for_writing(file, std::ios::binary);
    put<uint64_t>(out, points.size());
    for (const Point& p : points) {
      put<uint64_t>(out, p.id);
      put_vec3(out, p.xyz);
      for (uint8_t c : p.rgb) put<uint8_t>(out, c);
      put<double>(out, p.error);
      put<uint64_t>(out, 0);  // no track
    }
    close_checked(out, file);
  }
}

}  // namespace splat::colmap
