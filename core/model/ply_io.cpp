#include "core/model/ply_io.h"

#include <bit>
#include <cctype>
#include <charconv>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "core/model/ply_header.h"
#include "core/util/user_text.h"

namespace splat {
namespace {

static_assert(std::endian::native == std::endian::little, "PLY I/O copies little-endian floats as they are in memory");

// The header's description is shared with the compressed layout's reader (ply_header.h).
using ply::Element;
using ply::Header;
using ply::Property;
using ply::Type;
using ply::element_label;
using ply::parse_header;
using ply::type_size;

bool inline_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

// Reads the body value by value, the same way for both encodings, so the element walking below
// exists once. Every read is bounds-checked, and errors name the element, row and property being
// read. Ascii rows are lines: a row whose line ends early or holds more values than the header
// declares is refused there, not read on into the next row.
class BodyReader {
 public:
  BodyReader(const std::filesystem::path& file, std::string_view body, bool ascii)
      : file_(file), body_(body), ascii_(ascii) {}

  size_t remaining() const { return body_.size() - pos_; }
  bool ascii() const { return ascii_; }

  void begin_row(const Element& e, int64_t row) {
    element_ = &e;
    row_ = row;
    property_ = nullptr;
    if (ascii_)  // blank lines between rows are harmless
      while (pos_ < body_.size() && std::isspace(static_cast<unsigned char>(body_[pos_]))) ++pos_;
  }
  void at_property(const Property& p) { property_ = &p; }
  void end_row() {
    property_ = nullptr;
    if (!ascii_) return;
    while (pos_ < body_.size() && inline_space(body_[pos_])) ++pos_;
    if (pos_ < body_.size() && body_[pos_++] != '\n')
      throw error("the row's line holds more values than the header declares (a property line missing from the header?)");
  }
  // After the last element: nothing may be left but (in ascii files) white space.
  void expect_end() {
    element_ = nullptr;
    if (ascii_)
      while (pos_ < body_.size() && std::isspace(static_cast<unsigned char>(body_[pos_]))) ++pos_;
    if (remaining() > 0)
      throw error(std::to_string(remaining()) + " bytes of data after the last element (more rows than the header's counts, or appended bytes)");
  }

  // Binary files only: passes over n bytes of rows this reader does not need.
  void skip_bytes(uint64_t n) {
    if (remaining() < n) throw error("truncated PLY data: the file ends inside this element");
    pos_ += n;
  }

  float read_float(Type t) {
    if (ascii_) return static_cast<float>(read_ascii());
    if (t == Type::Float32) {  // copied bit for bit, NaN payloads included
      float f;
      std::memcpy(&f, take(4), 4);
      return f;
    }
    return static_cast<float>(read_binary(t));
  }
  double read_value(Type t) { return ascii_ ? read_ascii() : read_binary(t); }

  PlyError error(const std::string& what) const {
    if (!element_) return PlyError(file_, what);
    std::string where = element_label(*element_) + ", row " + std::to_string(row_);
    if (property_) where += ", property " + quote_user_text(property_->name);
    return PlyError(file_, what + " (" + where + ")");
  }

 private:
  const char* take(size_t n) {
    if (remaining() < n) throw error("truncated PLY data: the file ends before this row is complete");
    const char* p = body_.data() + pos_;
    pos_ += n;
    return p;
  }
  template <class T>
  double load() {
    T v;
    std::memcpy(&v, take(sizeof(T)), sizeof(T));
    return static_cast<double>(v);
  }
  double read_binary(Type t) {
    switch (t) {
      case Type::Int8: return load<int8_t>();
      case Type::UInt8: return load<uint8_t>();
      case Type::Int16: return load<int16_t>();
      case Type::UInt16: return load<uint16_t>();
      case Type::Int32: return load<int32_t>();
      case Type::UInt32: return load<uint32_t>();
      case Type::Float32: return load<float>();
      case Type::Float64: return load<double>();
    }
    return 0;
  }
  double read_ascii() {
    while (pos_ < body_.size() && inline_space(body_[pos_])) ++pos_;
    if (pos_ == body_.size()) throw error("truncated PLY data: the file ends before this row is complete");
    if (body_[pos_] == '\n')
      throw error("the row's line ends before all its values (truncated data, or a property line too many in the header?)");
    size_t end = pos_;
    while (end < body_.size() && !std::isspace(static_cast<unsigned char>(body_[end]))) ++end;
    double v = 0;
    const auto r = std::from_chars(body_.data() + pos_, body_.data() + end, v);
    if (r.ec != std::errc() || r.ptr != body_.data() + end)
      throw error("bad ascii value " + quote_user_text(body_.substr(pos_, end - pos_)));
    pos_ = end;
    return v;
  }

  const std::filesystem::path& file_;
  std::string_view body_;
  bool ascii_;
  size_t pos_ = 0;
  const Element* element_ = nullptr;  // where the value being read sits (for messages)
  int64_t row_ = 0;
  const Property* property_ = nullptr;
};

// Rejects counts the file cannot possibly hold before anything is sized by them.
void check_count_fits(const std::filesystem::path& file, const Element& e, size_t body_bytes, bool ascii) {
  // Smallest encoding of one row: its fixed binary size (a list counts its length field only),
  // or one digit + separator per ascii value.
  size_t min_row = 0;
  for (const auto& p : e.props) min_row += ascii ? 2 : type_size(p.list_count.value_or(p.type));
  if (min_row == 0) return;
  if (static_cast<uint64_t>(e.count) > body_bytes / min_row)
    throw PlyError(file, element_label(e) + " declares " + std::to_string(e.count) + " rows but only " +
                             std::to_string(body_bytes) + " bytes of data follow the header (truncated file or bad count)");
}

// Binary rows without lists have a fixed size, so the header says exactly how many bytes follow
// it. Any other length means a damaged header (a lowered count, a property line missing or
// retyped) or damaged data (bytes cut, appended or inserted); reading on would shift every later
// value into the wrong column, so it is refused before anything is allocated. Files with list
// properties are checked when their end is reached (BodyReader::expect_end).
void check_binary_size(const std::filesystem::path& file, const Header& h, size_t body_bytes) {
  uint64_t need = 0;  // no overflow: check_count_fits bounded each count * row by body_bytes
  for (const Element& e : h.elements) {
    const auto row = e.fixed_row_size();
    if (!row) return;
    need += static_cast<uint64_t>(e.count) * *row;
  }
  if (need == body_bytes) return;
  std::string msg = "data length does not match the header: its elements take " + std::to_string(need) +
                    " bytes after end_header, the file has " + std::to_string(body_bytes);
  if (body_bytes < need)
    throw PlyError(file, msg + " (truncated data, or a property declared larger than its data)");
  const uint64_t extra = body_bytes - need;
  msg += " (" + std::to_string(extra) + " bytes too many";
  for (const Element& e : h.elements) {
    if (e.name != "vertex" || e.count == 0) continue;
    const size_t row = *e.fixed_row_size();
    if (extra % row == 0)
      msg += ": " + std::to_string(extra / row) + " more vertex rows than the declared count of " + std::to_string(e.count) + "?";
    else if (extra % static_cast<uint64_t>(e.count) == 0)
      msg += ": " + std::to_string(extra / e.count) + " more bytes per vertex row than its " + std::to_string(row) +
             "-byte properties (a property line missing from the header, or one declared smaller than its data?)";
    break;
  }
  throw PlyError(file, msg + ")");
}

void skip_property(const Property& p, BodyReader& in) {
  if (!p.list_count) {
    in.read_value(p.type);
    return;
  }
  const double n = in.read_value(*p.list_count);
  if (n < 0 || n > static_cast<double>(in.remaining())) throw in.error("bad list length " + std::to_string(n));
  for (int64_t i = 0; i < static_cast<int64_t>(n); ++i) in.read_value(p.type);
}

void skip_element(const Element& e, BodyReader& in) {
  if (e.props.empty()) return;  // rows of nothing: any count is harmless, don't loop over it
  if (const auto row = e.fixed_row_size(); row && !in.ascii()) {  // fixed rows: one jump
    in.begin_row(e, 0);
    in.skip_bytes(static_cast<uint64_t>(e.count) * *row);
    return;
  }
  for (int64_t r = 0; r < e.count; ++r) {
    in.begin_row(e, r);
    for (const auto& p : e.props) {
      in.at_property(p);
      skip_property(p, in);
    }
    in.end_row();
  }
}

// Where a vertex property's value goes: (model.*column)[row * width + offset], or nowhere.
struct Slot {
  std::vector<float> GaussianModel::*column = nullptr;
  int width = 0, offset = 0;
};

// How the vertex element maps onto a model, worked out from the header alone (nothing allocated).
struct VertexPlan {
  int sh_degree = 0;
  std::vector<Slot> slots;  // one per vertex property, in file order
};

int sh_degree_for_rest_count(const std::filesystem::path& file, int rest_count) {
  for (int d = 0; d <= 3; ++d)
    if (3 * (kernels::sh_coeffs_for_degree(d) - 1) == rest_count) return d;
  throw PlyError(file, "unsupported number of f_rest properties: " + std::to_string(rest_count) +
                           " (expected 0, 9, 24 or 45 for SH degree 0..3)");
}

int count_rest_properties(const std::filesystem::path& file, const Element& v) {
  int n = 0;
  for (const auto& p : v.props) {
    if (!p.name.starts_with("f_rest_")) continue;
    const std::string_view idx = std::string_view(p.name).substr(7);
    int value = -1;
    const auto r = std::from_chars(idx.data(), idx.data() + idx.size(), value);
    if (r.ec != std::errc() || r.ptr != idx.data() + idx.size() || value < 0)
      throw PlyError(file, "bad SH property name " + quote_user_text(p.name));
    ++n;
  }
  return n;  // that they are exactly f_rest_0..n-1 is checked when they are mapped to slots
}

// Maps the vertex properties onto the model's columns by name (never by position: files from
// other tools order them differently and may leave out nx ny nz), and checks that every 3DGS
// column is present and stored as a floating-point number.
VertexPlan plan_vertex_columns(const std::filesystem::path& file, const Element& v) {
  VertexPlan plan;
  plan.sh_degree = sh_degree_for_rest_count(file, count_rest_properties(file, v));
  const int rest = kernels::sh_coeffs_for_degree(plan.sh_degree) - 1;
  using M = GaussianModel;
  std::map<std::string, Slot> wanted = {
      {"x", {&M::means, 3, 0}},           {"y", {&M::means, 3, 1}},           {"z", {&M::means, 3, 2}},
      {"f_dc_0", {&M::sh_dc, 3, 0}},      {"f_dc_1", {&M::sh_dc, 3, 1}},      {"f_dc_2", {&M::sh_dc, 3, 2}},
      {"opacity", {&M::opacity_logits, 1, 0}},
      {"scale_0", {&M::log_scales, 3, 0}}, {"scale_1", {&M::log_scales, 3, 1}}, {"scale_2", {&M::log_scales, 3, 2}},
      {"rot_0", {&M::quats, 4, 0}},       {"rot_1", {&M::quats, 4, 1}},       {"rot_2", {&M::quats, 4, 2}},
      {"rot_3", {&M::quats, 4, 3}}};
  // File order is channel-major (f_rest_{c*rest+k}); memory interleaves channels per coefficient.
  for (int c = 0; c < 3; ++c)
    for (int k = 0; k < rest; ++k) wanted["f_rest_" + std::to_string(c * rest + k)] = {&M::sh_rest, 3 * rest, k * 3 + c};
  plan.slots.resize(v.props.size());
  for (size_t i = 0; i < v.props.size(); ++i) {
    const Property& p = v.props[i];
    auto it = wanted.find(p.name);
    if (it == wanted.end()) continue;
    // These columns are logits, log-scales and raw coefficients: an integer type here is a retyped
    // header line or a quantised encoding whose scale this reader does not know; either way its
    // numbers would be read as the wrong values. double is exact and accepted.
    if (p.list_count || (p.type != Type::Float32 && p.type != Type::Float64))
      throw PlyError(file, "vertex property " + quote_user_text(p.name) + " has type " + quote_user_text(p.type_word) +
                               "; the 3DGS layout stores it as float");
    plan.slots[i] = it->second;
    wanted.erase(it);
  }
  if (!wanted.empty()) throw PlyError(file, "missing required vertex property " + quote_user_text(wanted.begin()->first));
  return plan;
}

GaussianModel read_vertices(const Element& e, const VertexPlan& plan, BodyReader& in) {
  GaussianModel m(plan.sh_degree, e.count);
  for (int64_t r = 0; r < e.count; ++r) {
    in.begin_row(e, r);
    for (size_t j = 0; j < e.props.size(); ++j) {
      const Slot& s = plan.slots[j];
      in.at_property(e.props[j]);
      if (s.column) (m.*s.column)[static_cast<size_t>(r * s.width + s.offset)] = in.read_float(e.props[j].type);
      else skip_property(e.props[j], in);
    }
    in.end_row();
  }
  return m;
}

std::string read_file(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw PlyError(file, "cannot open file");
  std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw PlyError(file, "read error");
  return data;
}

}  // namespace

GaussianModel read_ply(const std::filesystem::path& file) {
  const std::string data = read_file(file);
  const Header h = parse_header(file, data);
  const std::string_view body = std::string_view(data).substr(h.data_offset);
  // Everything the header claims is checked against the file before it sizes anything.
  const Element* vertex = nullptr;
  for (const Element& e : h.elements) {
    check_count_fits(file, e, body.size(), h.ascii);
    if (!vertex && e.name == "vertex") vertex = &e;
  }
  if (!vertex) throw PlyError(file, "PLY file has no 'vertex' element");
  const VertexPlan plan = plan_vertex_columns(file, *vertex);
  if (!h.ascii) check_binary_size(file, h, body.size());

  BodyReader in(file, body, h.ascii);
  std::optional<GaussianModel> model;
  for (const Element& e : h.elements) {
    if (&e == vertex) model = read_vertices(e, plan, in);
    else skip_element(e, in);
  }
  in.expect_end();
  return std::move(*model);
}

void write_ply(const std::filesystem::path& file, const GaussianModel& model) {
  model.check_consistent();
  const int rest = model.sh_rest_coeffs();
  std::ostringstream header;
  header << "ply\nformat binary_little_endian 1.0\nelement vertex " << model.size() << "\n";
  for (const char* name : {"x", "y", "z", "nx", "ny", "nz", "f_dc_0", "f_dc_1", "f_dc_2"})
    header << "property float " << name << "\n";
  for (int j = 0; j < 3 * rest; ++j) header << "property float f_rest_" << j << "\n";
  for (const char* name : {"opacity", "scale_0", "scale_1", "scale_2", "rot_0", "rot_1", "rot_2", "rot_3"})
    header << "property float " << name << "\n";
  header << "end_header\n";

  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  if (!out) throw PlyError(file, "cannot open for writing");
  const std::string h = header.str();
  out.write(h.data(), static_cast<std::streamsize>(h.size()));

  const size_t row_floats = 17 + 3 * static_cast<size_t>(rest);
  std::vector<float> row(row_floats);
  std::vector<float> chunk;
  constexpr size_t kRowsPerWrite = 4096;
  chunk.reserve(row_floats * kRowsPerWrite);
  const size_t n = static_cast<size_t>(model.size());
  for (size_t i = 0; i < n; ++i) {
    float* r = row.data();
    for (int a = 0; a < 3; ++a) *r++ = model.means[i * 3 + a];
    for (int a = 0; a < 3; ++a) *r++ = 0.0f;  // normals: unused, kept for viewers that expect them
    for (int c = 0; c < 3; ++c) *r++ = model.sh_dc[i * 3 + c];
    for (int c = 0; c < 3; ++c)
      for (int k = 0; k < rest; ++k) *r++ = model.sh_rest[(i * rest + k) * 3 + c];
    *r++ = model.opacity_logits[i];
    for (int a = 0; a < 3; ++a) *r++ = model.log_scales[i * 3 + a];
    for (int a = 0; a < 4; ++a) *r++ = model.quats[i * 4 + a];
    chunk.insert(chunk.end(), row.begin(), row.end());
    if (chunk.size() >= row_floats * kRowsPerWrite || i + 1 == n) {
      out.write(reinterpret_cast<const char*>(chunk.data()), static_cast<std::streamsize>(chunk.size() * sizeof(float)));
      chunk.clear();
    }
  }
  out.close();
  if (!out) throw PlyError(file, "write failed (disk full or permission denied?)");
}

}  // namespace splat
