#include "core/scene/colmap_reader.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <initializer_list>
#include <new>
#include <set>
#include <string_view>
#include <system_error>

#include "core/scene/scene_errors.h"
#include "core/util/user_text.h"

namespace splat::colmap {
namespace fs = std::filesystem;

namespace {

// Every model COLMAP defines, so that an unsupported one can be named in the error. The first
// eleven (COLMAP ids 0..10) are the ones splatlab loads; splat::CameraModel uses the same ids.
struct ModelSpec {
  int id;
  const char* name;
  int param_count;
};
constexpr ModelSpec kModels[] = {
    {0, "SIMPLE_PINHOLE", 3},         {1, "PINHOLE", 4},
    {2, "SIMPLE_RADIAL", 4},          {3, "RADIAL", 5},
    {4, "OPENCV", 8},                 {5, "OPENCV_FISHEYE", 8},
    {6, "FULL_OPENCV", 12},           {7, "FOV", 5},
    {8, "SIMPLE_RADIAL_FISHEYE", 4},  {9, "RADIAL_FISHEYE", 5},
    {10, "THIN_PRISM_FISHEYE", 12},   {11, "RAD_TAN_THIN_PRISM_FISHEYE", 16},
};
constexpr int kSupportedModels = 11;
static_assert(static_cast<int>(CameraModel::ThinPrismFisheye) == kSupportedModels - 1);

// Bounds that no real capture reaches; beyond them the file is corrupt, not just large.
constexpr int kMaxImageSide = 1 << 16;

// Camera translations and point coordinates, in scene units. Georegistered models (COLMAP's
// model_aligner into ECEF) put the cameras about 6.4e6 m from the origin, so real files reach
// millions; at 1e8 float32, the precision training works in, spaces positions 8 units apart, so
// a larger value cannot be a scene splatlab could train and is a corrupt file.
constexpr double kMaxCoordinate = 1e8;

// Focal lengths relative to the longer image side. COLMAP's mapper flags ratios outside 0.1..10
// (fields of view of about 130 down to 5 degrees) as bogus; these bounds are 100 and 1000 times
// wider (a 1000-pixel photo: focal 1 px, an almost 180-degree view, up to 1e7 px, 0.006 degrees),
// so any lens a model can hold passes, while 0, negatives and values that would overflow float32
// once squared in the projection Jacobian do not.
constexpr double kMinFocalRatio = 1e-3, kMaxFocalRatio = 1e4;

// Rotation quaternions. COLMAP writes unit quaternions; another tool may not normalise, so any
// length a rotation could plausibly carry is normalised by the loader. Below 1e-6 the quaternion
// is zero plus rounding (no direction to trust); beyond 1e6 it is bytes that are not a rotation.
constexpr double kMinQuaternionNorm = 1e-6, kMaxQuaternionNorm = 1e6;

// Image names: relative paths under the images folder. No path on Linux is longer than PATH_MAX
// (4096 bytes), so a longer name cannot name a file.
constexpr size_t kMaxImageName = 4096;

std::string unsupported_model_message(int camera_id, const std::string& model) {
  std::string supported;
  for (int i = 0; i < kSupportedModels; ++i) supported += std::string(i ? ", " : "") + kModels[i].name;
  return "camera " + std::to_string(camera_id) + " uses camera model " + model +
         ", which splatlab does not support (supported: " + supported + ")";
}

// Resolves a model by id (binary files); throws naming the model when it is not supported.
CameraModel model_from_id(const fs::path& file, int camera_id, int id) {
  if (id >= 0 && id < kSupportedModels) return static_cast<CameraModel>(id);
  for (const ModelSpec& m : kModels)
    if (m.id == id) throw SceneError(file, unsupported_model_message(camera_id, std::string(m.name) + " (id " + std::to_string(id) + ")"));
  throw SceneError(file, "camera " + std::to_string(camera_id) + " has unknown camera model id " + std::to_string(id));
}

// Resolves a model by name (text files); `where` starts the message ("line N: ").
CameraModel model_from_name(const fs::path& file, const std::string& where, int camera_id, std::string_view name) {
  for (int i = 0; i < kSupportedModels; ++i)
    if (name == kModels[i].name) return static_cast<CameraModel>(i);
  for (const ModelSpec& m : kModels)
    if (name == m.name) throw SceneError(file, where + unsupported_model_message(camera_id, m.name));
  throw SceneError(file, where + "camera " + std::to_string(camera_id) + " has unknown camera model " + quote_user_text(name));
}

// A number for a message: short whatever its size ("1e+300", "nan"), unlike std::to_string.
std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

// A quaternion, translation or position for a message: "(1, 0, 0, 0)".
std::string num_tuple(std::initializer_list<double> values) {
  std::string s = "(";
  for (double v : values) {
    if (s.size() > 1) s += ", ";
    s += num(v);
  }
  return s + ")";
}

// Sizes, and every parameter by its role in the model (model_param_names): focal lengths positive
// and in kMinFocalRatio..kMaxFocalRatio of the longer side, the principal point inside a box of
// three times the image around it (COLMAP keeps it at the centre unless told to refine it, and a
// refined one stays near), everything finite.
void check_camera(const fs::path& file, const std::string& where, const Camera& c) {
  const std::string who = where + "camera " + std::to_string(c.id) + " (" + camera_model_name(c.model) + ")";
  if (c.width <= 0 || c.height <= 0 || c.width > kMaxImageSide || c.height > kMaxImageSide)
    throw SceneError(file, who + " has an impossible size " + std::to_string(c.width) + "x" + std::to_string(c.height));
  const std::vector<std::string> names = model_param_names(c.model);
  const double w = c.width, h = c.height, longer = std::max(w, h);
  const std::string image = " for its " + std::to_string(c.width) + "x" + std::to_string(c.height) + " image";
  for (size_t i = 0; i < names.size() && i < c.params.size(); ++i) {
    const std::string& name = names[i];
    const double p = c.params[i];
    const std::string value = name + " = " + num(p);
    if (!std::isfinite(p)) throw SceneError(file, who + " has a non-finite parameter " + value);
    if (name == "f" || name == "fx" || name == "fy") {
      if (p <= 0) throw SceneError(file, who + " has focal length " + value + ", which is not positive");
      if (p < kMinFocalRatio * longer || p > kMaxFocalRatio * longer)
        throw SceneError(file, who + " has focal length " + value + image + "; splatlab accepts " + num(kMinFocalRatio) +
                                   " to " + num(kMaxFocalRatio) + " times the longer side");
    } else if ((name == "cx" && (p < -w || p > 2 * w)) || (name == "cy" && (p < -h || p > 2 * h))) {
      throw SceneError(file, who + " has its principal point " + value + " far outside" + image +
                                 " (splatlab accepts -W..2W, -H..2H)");
    }
  }
}

// Names are paths relative to the images folder, as COLMAP stores them. One that is absolute or
// climbs out with '..' would read a file outside the scene; control characters never occur in a
// photo's name, and every message that names the photo's path would carry them to the terminal.
void check_image_name(const fs::path& file, const std::string& who, const std::string& name) {
  if (name.empty()) throw SceneError(file, who + " has an empty name");
  if (name.size() > kMaxImageName)
    throw SceneError(file, who + " has a name longer than any path (" + std::to_string(kMaxImageName) + " bytes)");
  if (std::any_of(name.begin(), name.end(), [](char ch) { return static_cast<unsigned char>(ch) < 0x20 || ch == 0x7F; }))
    throw SceneError(file, who + " has control characters in its name");
  const fs::path rel(name);
  if (rel.is_absolute() || std::any_of(rel.begin(), rel.end(), [](const fs::path& part) { return part == ".."; }))
    throw SceneError(file, who + " has a name that leaves the images folder (absolute or with '..')");
}

void check_image(const fs::path& file, const std::string& where, const Image& im) {
  const std::string who = where + "image " + std::to_string(im.id) + " " + quote_user_text(im.name);
  check_image_name(file, who, im.name);
  const auto& q = im.qvec;
  const std::string qtext = num_tuple({q[0], q[1], q[2], q[3]});
  for (double c : q)
    if (!std::isfinite(c)) throw SceneError(file, who + " has a non-finite rotation quaternion " + qtext);
  double qnorm = 0;
  for (double c : q) qnorm = std::hypot(qnorm, c);  // no overflow on the way, unlike a sum of squares
  if (qnorm < kMinQuaternionNorm || qnorm > kMaxQuaternionNorm)
    throw SceneError(file, who + " has a rotation quaternion " + qtext + " of length " + num(qnorm) +
                               ", which is not a rotation (COLMAP writes length 1)");
  const Vec3d& t = im.tvec;
  const std::string ttext = num_tuple({t.x, t.y, t.z});
  if (!std::isfinite(t.x) || !std::isfinite(t.y) || !std::isfinite(t.z))
    throw SceneError(file, who + " has a non-finite translation " + ttext);
  if (std::max({std::abs(t.x), std::abs(t.y), std::abs(t.z)}) > kMaxCoordinate)
    throw SceneError(file, who + " has a translation " + ttext + " beyond " + num(kMaxCoordinate) + " scene units");
}

// Positions only: the reprojection error is not used, so any value passes (COLMAP writes -1 for a
// point whose error it never computed).
void check_point(const fs::path& file, const std::string& where, const Point& p) {
  const std::string who = where + "point " + std::to_string(p.id);
  const std::string xyz = num_tuple({p.xyz.x, p.xyz.y, p.xyz.z});
  if (!std::isfinite(p.xyz.x) || !std::isfinite(p.xyz.y) || !std::isfinite(p.xyz.z))
    throw SceneError(file, who + " has a non-finite position " + xyz);
  if (std::max({std::abs(p.xyz.x), std::abs(p.xyz.y), std::abs(p.xyz.z)}) > kMaxCoordinate)
    throw SceneError(file, who + " has a position " + xyz + " beyond " + num(kMaxCoordinate) + " scene units");
}

void check_unique_camera_ids(const fs::path& file, const std::vector<Camera>& cams) {
  std::set<int> seen;
  for (const Camera& c : cams)
    if (!seen.insert(c.id).second) throw SceneError(file, "camera id " + std::to_string(c.id) + " is defined twice");
}

// ---- binary -------------------------------------------------------------------------------

// The whole file in memory with a read cursor. Every read and every count is checked against
// the bytes left, so a corrupt file yields an error instead of a huge allocation or a hang.
class BinaryFile {
 public:
  explicit BinaryFile(const fs::path& path) : path_(path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw SceneError(path, "cannot open file");
    try {
      bytes_.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    } catch (const std::bad_alloc&) {
      throw SceneError(path, "too large to read into memory");
    }
    if (in.bad()) throw SceneError(path, "read error");
  }

  template <class T>
  T read(const char* what) {
    need(sizeof(T), what);
    T v;
    std::memcpy(&v, bytes_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return v;
  }

  std::string read_cstring(const char* what) {
    const void* end = std::memchr(bytes_.data() + pos_, '\0', bytes_.size() - pos_);
    if (!end) fail_truncated(what);
    const char* begin = bytes_.data() + pos_;
    std::string s(begin, static_cast<const char*>(end));
    pos_ += s.size() + 1;
    return s;
  }

  // A record count whose records take at least min_record_bytes each.
  uint64_t read_count(const char* what, uint64_t min_record_bytes) {
    const uint64_t n = read<uint64_t>(what);
    if (n > remaining() / min_record_bytes)
      throw SceneError(path_, std::string(what) + " is " + std::to_string(n) + " at byte " + std::to_string(pos_ - 8) +
                                  ", but only " + std::to_string(remaining()) + " bytes follow (corrupt or not a COLMAP file)");
    return n;
  }

  void skip(uint64_t n, const char* what) {
    need(n, what);
    pos_ += n;
  }

  void expect_end() const {
    if (pos_ != bytes_.size())
      throw SceneError(path_, std::to_string(bytes_.size() - pos_) + " unexpected bytes after the last record at byte " +
                                  std::to_string(pos_));
  }

  uint64_t remaining() const { return bytes_.size() - pos_; }
  const fs::path& path() const { return path_; }

 private:
  void need(uint64_t n, const char* what) {
    if (n > remaining()) fail_truncated(what);
  }
  [[noreturn]] void fail_truncated(const char* what) const {
    throw SceneError(path_, std::string("truncated: file ends at byte ") + std::to_string(bytes_.size()) +
                                " while reading " + what);
  }

  fs::path path_;
  std::vector<char> bytes_;
  uint64_t pos_ = 0;
};

// ---- text ---------------------------------------------------------------------------------

// Lines of a text file with their 1-based numbers, for error messages that point at the line.
class TextFile {
 public:
  explicit TextFile(const fs::path& path) : path_(path), in_(path) {
    if (!in_) throw SceneError(path, "cannot open file");
  }

  // Next line that is neither blank nor a '#' comment; false at the end of the file.
  bool next_record(std::string& line) {
    while (next_raw(line)) {
      const size_t first = line.find_first_not_of(" \t\r");
      if (first != std::string::npos && line[first] != '#') return true;
    }
    return false;
  }

  // The very next line, whatever it holds (images.txt's keypoint line may be empty).
  bool next_raw(std::string& line) {
    if (!std::getline(in_, line)) return false;
    ++line_no_;
    return true;
  }

  const fs::path& path() const { return path_; }

  // "line N: ", the start of every message about the current line.
  std::string where() const { return "line " + std::to_string(line_no_) + ": "; }

  [[noreturn]] void fail(const std::string& problem) const { throw SceneError(path_, where() + problem); }

 private:
  fs::path path_;
  std::ifstream in_;
  int line_no_ = 0;
};

using Tokens = std::vector<std::string_view>;

Tokens split_ws(std::string_view s) {
  Tokens out;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    const size_t start = i;
    while (i < s.size() && !std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    if (i > start) out.push_back(s.substr(start, i - start));
  }
  return out;
}

// Any value the type holds ("nan" and "inf" included): the check_* functions judge values with
// their context, the same way for both formats.
template <class T>
T parse_number(const TextFile& f, std::string_view tok, const char* what) {
  T v{};
  const auto [end, ec] = std::from_chars(tok.data(), tok.data() + tok.size(), v);
  if (ec != std::errc() || end != tok.data() + tok.size())
    f.fail(std::string("expected ") + what + ", found " + quote_user_text(tok));
  return v;
}

// What `p` is, following symlinks; a path that cannot be examined (a symlink loop, a folder
// without permission) is refused naming it, instead of escaping as std::filesystem_error.
fs::file_type file_type_of(const fs::path& p) {
  std::error_code ec;
  const fs::file_status st = fs::status(p, ec);
  if (st.type() == fs::file_type::not_found) return st.type();
  if (ec) throw SceneError(p, "cannot access: " + ec.message());
  return st.type();
}

void expect_tokens(const TextFile& f, const Tokens& toks, size_t n, const char* layout) {
  if (toks.size() < n)
    f.fail("expected " + std::to_string(n) + " fields (" + layout + "), found " + std::to_string(toks.size()));
}

// ---- records ------------------------------------------------------------------------------
// Each of the six readers is the loop below around the reading of one record.

// A binary file: the record count (checked against the bytes left, as records of at least
// min_record_bytes), the records, each filled in by read_record(f, record), and nothing after.
template <class T, class ReadRecord>
std::vector<T> read_bin_records(const fs::path& file, const char* count_what, uint64_t min_record_bytes,
                                ReadRecord read_record) {
  BinaryFile f(file);
  std::vector<T> records(f.read_count(count_what, min_record_bytes));
  for (T& r : records) read_record(f, r);
  f.expect_end();
  return records;
}

// A text file: one record a line that is neither blank nor a comment, split at whitespace into at
// least min_fields fields (`layout` names them for the error), made into a T by
// parse_record(f, line, fields); it may read further lines (images.txt's keypoint lines).
template <class T, class ParseRecord>
std::vector<T> read_text_records(const fs::path& file, size_t min_fields, const char* layout, ParseRecord parse_record) {
  TextFile f(file);
  std::vector<T> records;
  std::string line;
  while (f.next_record(line)) {
    const Tokens toks = split_ws(line);
    expect_tokens(f, toks, min_fields, layout);
    records.push_back(parse_record(f, line, toks));
  }
  return records;
}

// Three doubles in x, y, z order, COLMAP's binary layout of positions and translations.
Vec3d read_vec3(BinaryFile& f, const char* what) {
  Vec3d v;
  for (int i = 0; i < 3; ++i) v[i] = f.read<double>(what);
  return v;
}

}  // namespace

int model_id(CameraModel m) { return kModels[static_cast<int>(m)].id; }
int model_param_count(CameraModel m) { return kModels[static_cast<int>(m)].param_count; }

std::vector<std::string> model_param_names(CameraModel m) {
  switch (m) {
    case CameraModel::SimplePinhole: return {"f", "cx", "cy"};
    case CameraModel::Pinhole: return {"fx", "fy", "cx", "cy"};
    case CameraModel::SimpleRadial: return {"f", "cx", "cy", "k"};
    case CameraModel::Radial: return {"f", "cx", "cy", "k1", "k2"};
    case CameraModel::OpenCV: return {"fx", "fy", "cx", "cy", "k1", "k2", "p1", "p2"};
    case CameraModel::OpenCVFisheye: return {"fx", "fy", "cx", "cy", "k1", "k2", "k3", "k4"};
    case CameraModel::FullOpenCV: return {"fx", "fy", "cx", "cy", "k1", "k2", "p1", "p2", "k3", "k4", "k5", "k6"};
    case CameraModel::FOV: return {"fx", "fy", "cx", "cy", "omega"};
    case CameraModel::SimpleRadialFisheye: return {"f", "cx", "cy", "k"};
    case CameraModel::RadialFisheye: return {"f", "cx", "cy", "k1", "k2"};
    case CameraModel::ThinPrismFisheye: return {"fx", "fy", "cx", "cy", "k1", "k2", "p1", "p2", "k3", "k4", "sx1", "sy1"};
  }
  return {};
}

fs::path find_sparse_dir(const fs::path& scene_folder) {
  const fs::file_type kind = file_type_of(scene_folder);
  if (kind == fs::file_type::not_found) throw SceneError(scene_folder, "scene folder does not exist");
  if (kind != fs::file_type::directory)
    throw SceneError(scene_folder, "is not a folder (expected a COLMAP scene folder)");
  const auto present = [](const fs::path& p) { return file_type_of(p) != fs::file_type::not_found; };
  for (const fs::path& d : {scene_folder / "sparse" / "0", scene_folder / "sparse"})
    if (present(d / "cameras.bin") || present(d / "cameras.txt")) return d;
  throw SceneError(scene_folder, "no COLMAP model: expected sparse/0/ or sparse/ with cameras, images and points3D (.bin or .txt)");
}

Reconstruction read_reconstruction(const fs::path& sparse_dir) {
  Reconstruction r;
  r.sparse_dir = sparse_dir;
  // One file of each kind: the binary one when both exist (it is what COLMAP writes by default).
  auto pick = [&](const char* stem) {
    const fs::path bin = sparse_dir / (std::string(stem) + ".bin");
    const fs::path txt = sparse_dir / (std::string(stem) + ".txt");
    for (const fs::path& p : {bin, txt}) {
      const fs::file_type kind = file_type_of(p);
      if (kind == fs::file_type::regular) return p;
      // A folder, device or FIFO would read as empty or never end.
      if (kind != fs::file_type::not_found) throw SceneError(p, "is not a regular file");
    }
    throw SceneError(bin, std::string("missing: neither ") + stem + ".bin nor " + stem + ".txt is in the sparse folder");
  };
  r.cameras_file = pick("cameras");
  r.images_file = pick("images");
  r.points_file = pick("points3D");
  const auto is_bin = [](const fs::path& p) { return p.extension() == ".bin"; };
  r.cameras = is_bin(r.cameras_file) ? read_cameras_bin(r.cameras_file) : read_cameras_txt(r.cameras_file);
  r.images = is_bin(r.images_file) ? read_images_bin(r.images_file) : read_images_txt(r.images_file);
  r.points = is_bin(r.points_file) ? read_points_bin(r.points_file) : read_points_txt(r.points_file);
  return r;
}

std::vector<Camera> read_cameras_bin(const fs::path& file) {
  const auto read_camera = [&](BinaryFile& f, Camera& c) {
    c.id = f.read<int32_t>("a camera id");
    const int32_t model = f.read<int32_t>("a camera model id");
    c.model = model_from_id(file, c.id, model);
    const uint64_t w = f.read<uint64_t>("a camera width");
    const uint64_t h = f.read<uint64_t>("a camera height");
    if (w == 0 || h == 0 || w > kMaxImageSide || h > kMaxImageSide)
      throw SceneError(file, "camera " + std::to_string(c.id) + " has an impossible size " + std::to_string(w) + "x" +
                                 std::to_string(h));
    c.width = static_cast<int>(w);
    c.height = static_cast<int>(h);
    c.params.resize(model_param_count(c.model));
    for (double& p : c.params) p = f.read<double>("camera parameters");
    check_camera(file, "", c);
  };
  std::vector<Camera> cams = read_bin_records<Camera>(file, "the camera count", 4 + 4 + 8 + 8, read_camera);
  check_unique_camera_ids(file, cams);
  return cams;
}

std::vector<Image> read_images_bin(const fs::path& file) {
  const auto read_image = [&](BinaryFile& f, Image& im) {
    im.id = f.read<int32_t>("an image id");
    for (double& q : im.qvec) q = f.read<double>("an image rotation");
    im.tvec = read_vec3(f, "an image translation");
    im.camera_id = f.read<int32_t>("an image camera id");
    im.name = f.read_cstring("an image name");
    check_image(file, "", im);
    // Keypoints (x, y as doubles, point3D id as int64) are not used: skip them.
    const uint64_t num_points2d = f.read_count("a keypoint count", 8 + 8 + 8);
    f.skip(num_points2d * 24, "image keypoints");
  };
  return read_bin_records<Image>(file, "the image count", 4 + 4 * 8 + 3 * 8 + 4 + 1 + 8, read_image);
}

std::vector<Point> read_points_bin(const fs::path& file) {
  const auto read_point = [&](BinaryFile& f, Point& p) {
    p.id = f.read<uint64_t>("a point id");
    p.xyz = read_vec3(f, "a point position");
    for (uint8_t& c : p.rgb) c = f.read<uint8_t>("a point colour");
    p.error = f.read<double>("a point error");
    check_point(file, "", p);
    // Track entries (image id, keypoint index as int32) are not used: skip them.
    const uint64_t track = f.read_count("a track length", 4 + 4);
    f.skip(track * 8, "a point track");
  };
  return read_bin_records<Point>(file, "the point count", 8 + 3 * 8 + 3 + 8 + 8, read_point);
}

std::vector<Camera> read_cameras_txt(const fs::path& file) {
  const auto parse_camera = [&](const TextFile& f, const std::string&, const Tokens& toks) {
    Camera c;
    c.id = parse_number<int>(f, toks[0], "a camera id");
    c.model = model_from_name(file, f.where(), c.id, toks[1]);
    c.width = parse_number<int>(f, toks[2], "a width");
    c.height = parse_number<int>(f, toks[3], "a height");
    const size_t want = model_param_count(c.model);
    if (toks.size() != 4 + want)
      f.fail(std::string(camera_model_name(c.model)) + " takes " + std::to_string(want) + " parameters, found " +
             std::to_string(toks.size() - 4));
    for (size_t i = 0; i < want; ++i) c.params.push_back(parse_number<double>(f, toks[4 + i], "a camera parameter"));
    check_camera(file, f.where(), c);
    return c;
  };
  std::vector<Camera> cams = read_text_records<Camera>(file, 4, "CAMERA_ID MODEL WIDTH HEIGHT PARAMS...", parse_camera);
  check_unique_camera_ids(file, cams);
  return cams;
}

std::vector<Image> read_images_txt(const fs::path& file) {
  const auto parse_image = [&](TextFile& f, const std::string& line, const Tokens& toks) {
    Image im;
    im.id = parse_number<int>(f, toks[0], "an image id");
    for (int i = 0; i < 4; ++i) im.qvec[i] = parse_number<double>(f, toks[1 + i], "a quaternion component");
    for (int i = 0; i < 3; ++i) im.tvec[i] = parse_number<double>(f, toks[5 + i], "a translation component");
    im.camera_id = parse_number<int>(f, toks[8], "a camera id");
    // The name runs to the end of the line, so names with spaces survive.
    std::string_view rest(line);
    rest.remove_prefix(toks[9].data() - line.data());
    while (!rest.empty() && std::isspace(static_cast<unsigned char>(rest.back()))) rest.remove_suffix(1);
    im.name = std::string(rest);
    check_image(file, f.where(), im);
    // The keypoint line always follows its image line (possibly empty); we only check its shape.
    std::string keypoints;
    if (f.next_raw(keypoints)) {
      const auto pts = split_ws(keypoints);
      if (pts.size() % 3 != 0) f.fail("keypoint line must hold triples X Y POINT3D_ID, found " + std::to_string(pts.size()) + " fields");
      for (size_t i = 0; i < pts.size(); ++i)
        if (i % 3 == 2) parse_number<int64_t>(f, pts[i], "a point3D id");
        else if (!std::isfinite(parse_number<double>(f, pts[i], "a keypoint coordinate")))
          f.fail("keypoint coordinate " + quote_user_text(pts[i]) + " is not finite");
    }
    return im;
  };
  return read_text_records<Image>(file, 10, "IMAGE_ID QW QX QY QZ TX TY TZ CAMERA_ID NAME", parse_image);
}

std::vector<Point> read_points_txt(const fs::path& file) {
  const auto parse_point = [&](const TextFile& f, const std::string&, const Tokens& toks) {
    Point p;
    p.id = parse_number<uint64_t>(f, toks[0], "a point id");
    for (int i = 0; i < 3; ++i) p.xyz[i] = parse_number<double>(f, toks[1 + i], "a coordinate");
    for (int i = 0; i < 3; ++i) {
      const int c = parse_number<int>(f, toks[4 + i], "a colour component");
      if (c < 0 || c > 255) f.fail("colour component " + std::to_string(c) + " is outside 0..255");
      p.rgb[i] = static_cast<uint8_t>(c);
    }
    p.error = parse_number<double>(f, toks[7], "a reprojection error");
    check_point(file, f.where(), p);
    if ((toks.size() - 8) % 2 != 0) f.fail("track must hold pairs IMAGE_ID POINT2D_IDX");
    for (size_t i = 8; i < toks.size(); ++i) parse_number<int64_t>(f, toks[i], "a track entry");
    return p;
  };
  return read_text_records<Point>(file, 8, "POINT3D_ID X Y Z R G B ERROR TRACK...", parse_point);
}

}  // namespace splat::colmap
