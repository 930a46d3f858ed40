#include "core/scene/colmap_writer.h"

#include <fstream>

#include "core/scene/scene_errors.h"

namespace splat::colmap {
namespace fs = std::filesystem;

namespace {

// Creates `file`, lets `body` write into it, and makes sure every byte reached the file.
template <class Body>
void write_checked(const fs::path& file, std::ios::openmode mode, Body body) {
  std::ofstream out(file, mode);
  if (!out) throw SceneError(file, "cannot open for writing");
  // %.17g keeps doubles exact through the text round trip.
  out.precision(17);
  body(out);
  out.close();
  if (!out) throw SceneError(file, "write failed");
}

// A text file: the comment `header` (COLMAP's own, naming the fields), then one line (or lines)
// per record from write_record.
template <class T, class WriteRecord>
void write_text_records(const fs::path& file, const char* header, const std::vector<T>& records,
                        WriteRecord write_record) {
  write_checked(file, std::ios::out, [&](std::ofstream& out) {
    out << header;
    for (const T& r : records) write_record(out, r);
  });
}

template <class T>
void put(std::ofstream& out, T v) {
  out.write(reinterpret_cast<const char*>(&v), sizeof v);
}

// A binary file: the record count as uint64, then the records from write_record.
template <class T, class WriteRecord>
void write_bin_records(const fs::path& file, const std::vector<T>& records, WriteRecord write_record) {
  write_checked(file, std::ios::binary, [&](std::ofstream& out) {
    put<uint64_t>(out, records.size());
    for (const T& r : records) write_record(out, r);
  });
}

// A position or translation as three little-endian doubles, COLMAP's binary layout.
void put_vec3(std::ofstream& out, const Vec3d& v) {
  for (int i = 0; i < 3; ++i) put<double>(out, v[i]);
}

}  // namespace

void write_colmap_text(const fs::path& folder, const std::vector<Camera>& cameras, const std::vector<Image>& images,
                       const std::vector<Point>& points) {
  fs::create_directories(folder);
  write_text_records(folder / "cameras.txt",
                     "# Camera list with one line of data per camera:\n#   CAMERA_ID, MODEL, WIDTH, HEIGHT, PARAMS[]\n",
                     cameras, [](std::ofstream& out, const Camera& c) {
                       out << c.id << ' ' << camera_model_name(c.model) << ' ' << c.width << ' ' << c.height;
                       for (double p : c.params) out << ' ' << p;
                       out << '\n';
                     });
  write_text_records(folder / "images.txt",
                     "# Image list with two lines of data per image:\n"
                     "#   IMAGE_ID, QW, QX, QY, QZ, TX, TY, TZ, CAMERA_ID, NAME\n#   POINTS2D[] as (X, Y, POINT3D_ID)\n",
                     images, [](std::ofstream& out, const Image& im) {
                       out << im.id;
                       for (double q : im.qvec) out << ' ' << q;
                       out << ' ' << im.tvec.x << ' ' << im.tvec.y << ' ' << im.tvec.z << ' ' << im.camera_id << ' '
                           << im.name << "\n\n";  // an empty keypoint line
                     });
  write_text_records(folder / "points3D.txt",
                     "# 3D point list with one line of data per point:\n"
                     "#   POINT3D_ID, X, Y, Z, R, G, B, ERROR, TRACK[] as (IMAGE_ID, POINT2D_IDX)\n",
                     points, [](std::ofstream& out, const Point& p) {
                       out << p.id << ' ' << p.xyz.x << ' ' << p.xyz.y << ' ' << p.xyz.z << ' ' << int(p.rgb[0])
                           << ' ' << int(p.rgb[1]) << ' ' << int(p.rgb[2]) << ' ' << p.error << '\n';
                     });
}

void write_colmap_binary(const fs::path& folder, const std::vector<Camera>& cameras, const std::vector<Image>& images,
                         const std::vector<Point>& points) {
  fs::create_directories(folder);
  write_bin_records(folder / "cameras.bin", cameras, [](std::ofstream& out, const Camera& c) {
    put<int32_t>(out, c.id);
    put<int32_t>(out, model_id(c.model));
    put<uint64_t>(out, c.width);
    put<uint64_t>(out, c.height);
    for (double p : c.params) put<double>(out, p);
  });
  write_bin_records(folder / "images.bin", images, [](std::ofstream& out, const Image& im) {
    put<int32_t>(out, im.id);
    for (double q : im.qvec) put<double>(out, q);
    put_vec3(out, im.tvec);
    put<int32_t>(out, im.camera_id);
    out.write(im.name.c_str(), static_cast<std::streamsize>(im.name.size() + 1));
    put<uint64_t>(out, 0);  // no keypoints
  });
  write_bin_records(folder / "points3D.bin", points, [](std::ofstream& out, const Point& p) {
    put<uint64_t>(out, p.id);
    put_vec3(out, p.xyz);
    for (uint8_t c : p.rgb) put<uint8_t>(out, c);
    put<double>(out, p.error);
    put<uint64_t>(out, 0);  // no track
  });
}

}  // namespace splat::colmap
