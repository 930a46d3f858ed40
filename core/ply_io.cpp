#include "core/ply_io.h"

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

namespace splat {
namespace {

static_assert(std::endian::native == std::endian::little, "PLY I/O copies little-endian floats as they are in memory");

enum class Type { Int8, UInt8, Int16, UInt16, Int32, UInt32, Float32, Float64 };

std::optional<Type> parse_type(std::string_view s) {
  static const std::map<std::string_view, Type> names = {
      {"char", Type::Int8},     {"int8", Type::Int8},     {"uchar", Type::UInt8},   {"uint8", Type::UInt8},
      {"short", Type::Int16},   {"int16", Type::Int16},   {"ushort", Type::UInt16}, {"uint16", Type::UInt16},
      {"int", Type::Int32},     {"int32", Type::Int32},   {"uint", Type::UInt32},   {"uint32", Type::UInt32},
      {"float", Type::Float32}, {"float32", Type::Float32}, {"double", Type::Float64}, {"float64", Type::Float64}};
  auto it = names.find(s);
  if (it == names.end()) return std::nullopt;
  return it->second;
}

size_t type_size(Type t) {
  switch (t) {
    case Type::Int8: case Type::UInt8: return 1;
    case Type::Int16: case Type::UInt16: return 2;
    case Type::Int32: case Type::UInt32: case Type::Float32: return 4;
    case Type::Float64: return 8;
  }
  return 0;
}

struct Property {
  std::string name;
  Type type = Type::Float32;
  std::optional<Type> list_count;  // set for `property list <count type> <item type> <name>`
};

struct Element {
  std::string name;
  int64_t count = 0;
  std::vector<Property> props;
  // Bytes per row in binary files, or nullopt when a list makes rows variable.
  std::optional<size_t> fixed_row_size() const {
    size_t s = 0;
    for (const auto& p : props) {
      if (p.list_count) return std::nullopt;
      s += type_size(p.type);
    }
    return s;
  }
};

struct Header {
  bool ascii = false;
  std::vector<Element> elements;
  size_t data_offset = 0;  // first byte after the end_header line
};

std::vector<std::string_view> split_words(std::string_view line) {
  std::vector<std::string_view> w;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    size_t j = i;
    while (j < line.size() && line[j] != ' ' && line[j] != '\t') ++j;
    if (j > i) w.push_back(line.substr(i, j - i));
    i = j;
  }
  return w;
}

Header parse_header(const std::filesystem::path& file, std::string_view data) {
  Header h;
  size_t pos = 0;
  int line_no = 0;
  bool have_format = false;
  auto fail = [&](const std::string& what) -> PlyError {
    return PlyError(file, "PLY header line " + std::to_string(line_no) + ": " + what);
  };
  while (true) {
    const size_t eol = data.find('\n', pos);
    if (eol == std::string_view::npos) {
      if (line_no == 0) throw PlyError(file, "not a PLY file (empty or no 'ply' magic line)");
      throw PlyError(file, "PLY header has no end_header line");
    }
    std::string_view line = data.substr(pos, eol - pos);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    pos = eol + 1;
    ++line_no;
    if (line_no == 1) {
      if (line != "ply") throw PlyError(file, "not a PLY file (first line is not 'ply')");
      continue;
    }
    const auto w = split_words(line);
    if (w.empty() || w[0] == "comment" || w[0] == "obj_info") continue;
    if (w[0] == "end_header") break;
    if (w[0] == "format") {
      if (w.size() != 3) throw fail("malformed format line");
      if (w[1] == "ascii") h.ascii = true;
      else if (w[1] == "binary_little_endian") h.ascii = false;
      else if (w[1] == "binary_big_endian") throw fail("unsupported format binary_big_endian (only ascii and binary_little_endian are read)");
      else throw fail("unknown format '" + std::string(w[1]) + "'");
      if (w[2] != "1.0") throw fail("unsupported PLY version '" + std::string(w[2]) + "'");
      have_format = true;
    } else if (w[0] == "element") {
      if (w.size() != 3) throw fail("malformed element line");
      Element e;
      e.name = std::string(w[1]);
      const auto r = std::from_chars(w[2].data(), w[2].data() + w[2].size(), e.count);
      if (r.ec != std::errc() || r.ptr != w[2].data() + w[2].size() || e.count < 0)
        throw fail("bad element count '" + std::string(w[2]) + "'");
      h.elements.push_back(std::move(e));
    } else if (w[0] == "property") {
      if (h.elements.empty()) throw fail("property before any element");
      Property p;
      if (w.size() == 5 && w[1] == "list") {
        p.list_count = parse_type(w[2]);
        const auto item = parse_type(w[3]);
        if (!p.list_count || !item) throw fail("unknown property type in list");
        p.type = *item;
        p.name = std::string(w[4]);
      } else if (w.size() == 3) {
        const auto t = parse_type(w[1]);
        if (!t) throw fail("unknown property type '" + std::string(w[1]) + "'");
        p.type = *t;
        p.name = std::string(w[2]);
      } else {
        throw fail("malformed property line");
      }
      for (const auto& q : h.elements.back().props)
        if (q.name == p.name) throw fail("duplicate property '" + p.name + "'");
      h.elements.back().props.push_back(std::move(p));
    } else {
      throw fail("unknown header keyword '" + std::string(w[0]) + "'");
    }
  }
  if (!have_format) throw PlyError(file, "PLY header has no format line");
  h.data_offset = pos;
  return h;
}

// Reads the body value by value, the same way for both encodings, so the element walking below
// exists once. Every read is bounds-checked: truncated files fail with the element and row.
class BodyReader {
 public:
  BodyReader(const std::filesystem::path& file, std::string_view body, bool ascii)
      : file_(file), body_(body), ascii_(ascii) {}

  size_t remaining() const { return body_.size() - pos_; }
  bool ascii() const { return ascii_; }

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

  // Identifies the value being read for error messages.
  void set_context(const std::string& element, int64_t row) { element_ = element; row_ = row; }
  PlyError error(const std::string& what) const {
    return PlyError(file_, what + " (element '" + element_ + "', row " + std::to_string(row_) + ")");
  }

 private:
  const char* take(size_t n) {
    if (remaining() < n) throw error("truncated PLY data");
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
    while (pos_ < body_.size() && std::isspace(static_cast<unsigned char>(body_[pos_]))) ++pos_;
    if (pos_ == body_.size()) throw error("truncated PLY data");
    size_t end = pos_;
    while (end < body_.size() && !std::isspace(static_cast<unsigned char>(body_[end]))) ++end;
    double v = 0;
    const auto r = std::from_chars(body_.data() + pos_, body_.data() + end, v);
    if (r.ec != std::errc() || r.ptr != body_.data() + end)
      throw error("bad ascii value '" + std::string(body_.substr(pos_, std::min<size_t>(end - pos_, 32))) + "'");
    pos_ = end;
    return v;
  }

  const std::filesystem::path& file_;
  std::string_view body_;
  bool ascii_;
  size_t pos_ = 0;
  std::string element_;
  int64_t row_ = 0;
};

// Rejects counts the file cannot possibly hold before anything is allocated for them.
void check_count_fits(const Element& e, const BodyReader& in) {
  // Smallest encoding of one row: its fixed binary size, or one digit + separator per ascii value.
  const size_t min_row = in.ascii() ? 2 * e.props.size() : e.fixed_row_size().value_or(e.props.size());
  if (min_row == 0) return;
  if (static_cast<uint64_t>(e.count) > in.remaining() / min_row)
    throw in.error("element '" + e.name + "' declares " + std::to_string(e.count) + " rows but only " +
                   std::to_string(in.remaining()) + " bytes of data follow (truncated file or bad count)");
}

void skip_element(const Element& e, BodyReader& in) {
  if (e.props.empty()) return;  // rows of nothing: any count is harmless, don't loop over it
  for (int64_t r = 0; r < e.count; ++r) {
    in.set_context(e.name, r);
    for (const auto& p : e.props) {
      if (!p.list_count) {
        in.read_value(p.type);
        continue;
      }
      const double n = in.read_value(*p.list_count);
      if (n < 0 || n > static_cast<double>(in.remaining())) throw in.error("bad list length in property '" + p.name + "'");
      for (int64_t i = 0; i < static_cast<int64_t>(n); ++i) in.read_value(p.type);
    }
  }
}

// Where a vertex property's value goes: column[row * width + offset], or nowhere.
struct Slot {
  std::vector<float>* column = nullptr;
  int width = 0, offset = 0;
};

int sh_degree_for_rest_count(const std::filesystem::path& file, int rest_count) {
  for (int d = 0; d <= 3; ++d)
    if (3 * (kernels::sh_coeffs_for_degree(d) - 1) == rest_count) return d;
  throw PlyError(file, "unsupported number of f_rest properties: " + std::to_string(rest_count) +
                           " (expected 0, 9, 24 or 45 for SH degree 0..3)");
}

// Maps the vertex properties onto the columns of `model` (already sized) and checks that every
// required one is present.
std::vector<Slot> vertex_slots(const std::filesystem::path& file, const Element& v, GaussianModel& m) {
  const int rest = m.sh_rest_coeffs();
  std::map<std::string, Slot> wanted = {
      {"x", {&m.means, 3, 0}},           {"y", {&m.means, 3, 1}},           {"z", {&m.means, 3, 2}},
      {"f_dc_0", {&m.sh_dc, 3, 0}},      {"f_dc_1", {&m.sh_dc, 3, 1}},      {"f_dc_2", {&m.sh_dc, 3, 2}},
      {"opacity", {&m.opacity_logits, 1, 0}},
      {"scale_0", {&m.log_scales, 3, 0}}, {"scale_1", {&m.log_scales, 3, 1}}, {"scale_2", {&m.log_scales, 3, 2}},
      {"rot_0", {&m.quats, 4, 0}},       {"rot_1", {&m.quats, 4, 1}},       {"rot_2", {&m.quats, 4, 2}},
      {"rot_3", {&m.quats, 4, 3}}};
  // File order is channel-major (f_rest_{c*rest+k}); memory interleaves channels per coefficient.
  for (int c = 0; c < 3; ++c)
    for (int k = 0; k < rest; ++k) wanted["f_rest_" + std::to_string(c * rest + k)] = {&m.sh_rest, 3 * rest, k * 3 + c};
  std::vector<Slot> slots(v.props.size());
  for (size_t i = 0; i < v.props.size(); ++i) {
    auto it = wanted.find(v.props[i].name);
    if (it == wanted.end()) continue;
    if (v.props[i].list_count) throw PlyError(file, "vertex property '" + it->first + "' is a list, expected a number");
    slots[i] = it->second;
    wanted.erase(it);
  }
  if (!wanted.empty()) throw PlyError(file, "missing required vertex property '" + wanted.begin()->first + "'");
  return slots;
}

int count_rest_properties(const std::filesystem::path& file, const Element& v) {
  int n = 0;
  for (const auto& p : v.props) {
    if (!p.name.starts_with("f_rest_")) continue;
    const std::string_view idx = std::string_view(p.name).substr(7);
    int value = -1;
    const auto r = std::from_chars(idx.data(), idx.data() + idx.size(), value);
    if (r.ec != std::errc() || r.ptr != idx.data() + idx.size() || value < 0)
      throw PlyError(file, "bad SH property name '" + p.name + "'");
    ++n;
  }
  return n;  // that they are exactly f_rest_0..n-1 is checked when they are mapped to slots
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
  BodyReader in(file, std::string_view(data).substr(h.data_offset), h.ascii);
  for (const Element& e : h.elements) {
    check_count_fits(e, in);
    if (e.name != "vertex") {
      skip_element(e, in);
      continue;
    }
    GaussianModel m(sh_degree_for_rest_count(file, count_rest_properties(file, e)), e.count);
    const std::vector<Slot> slots = vertex_slots(file, e, m);
    const bool has_list = !e.fixed_row_size().has_value();
    for (int64_t r = 0; r < e.count; ++r) {
      in.set_context(e.name, r);
      for (size_t j = 0; j < e.props.size(); ++j) {
        const Slot& s = slots[j];
        if (s.column) {
          (*s.column)[static_cast<size_t>(r * s.width + s.offset)] = in.read_float(e.props[j].type);
        } else if (has_list) {
          // Lists are rare in vertex elements; let the generic skipper walk this one property.
          Element one{e.name, 1, {e.props[j]}};
          skip_element(one, in);
        } else {
          in.read_value(e.props[j].type);
        }
      }
    }
    return m;  // elements after the vertices (faces, ...) are not needed
  }
  throw PlyError(file, "PLY file has no 'vertex' element");
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
