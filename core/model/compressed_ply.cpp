#include "core/model/compressed_ply.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <span>
#include <sstream>
#include <string>

#include "core/model/ply_header.h"
#include "core/model/ply_io.h"
#include "core/model/shard_layout.h"
#include "core/util/user_text.h"

namespace splat {
namespace {

static_assert(std::endian::native == std::endian::little, "the packed words are copied as they are in memory");

// Scales beyond e^±20 are not sizes a viewer can show; clamping the range keeps one stray value from
// widening a chunk's range until every other scale in it rounds to the same step.
constexpr float kScaleClamp = 20.f;
const double kSqrt2 = std::sqrt(2.0);

// Chunk properties in file order; the colour ranges are the last six (older files have none).
constexpr std::array<const char*, 18> kChunkProps = {
    "min_x",       "min_y",       "min_z",       "max_x",       "max_y",       "max_z",
    "min_scale_x", "min_scale_y", "min_scale_z", "max_scale_x", "max_scale_y", "max_scale_z",
    "min_r",       "min_g",       "min_b",       "max_r",       "max_g",       "max_b"};
constexpr size_t kChunkPropsWithoutColour = 12;
constexpr std::array<const char*, 4> kVertexProps = {"packed_position", "packed_rotation", "packed_scale", "packed_color"};

// A value's fraction of [lo, hi] as a b-bit integer, rounded to nearest; an empty range stores 0.
uint32_t pack_unorm(double fraction, int bits) {
  const double top = double((1u << bits) - 1);
  if (!(fraction > 0)) return 0;  // NaN too
  return uint32_t(std::min(top, std::floor(fraction * top + 0.5)));
}
double fraction_of(double v, double lo, double hi) { return hi > lo ? (v - lo) / (hi - lo) : 0.0; }
double unpack_unorm(uint32_t word, int shift, int bits) {
  const uint32_t top = (1u << bits) - 1;
  return double((word >> shift) & top) / double(top);
}
float lerp(float lo, float hi, double t) { return float(double(lo) * (1 - t) + double(hi) * t); }

uint32_t pack_11_10_11(const double f[3]) {
  return pack_unorm(f[0], 11) << 21 | pack_unorm(f[1], 10) << 11 | pack_unorm(f[2], 11);
}

// Smallest three: the largest component is implied by the unit length, so its index (2 bits) and
// the other three (10 bits each, within ±1/sqrt 2, since none exceeds the largest) describe it.
uint32_t pack_rotation(const float* wxyz) {
  double q[4] = {wxyz[0], wxyz[1], wxyz[2], wxyz[3]};
  double len = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  if (!(len > 0) || !std::isfinite(len)) q[0] = 1, q[1] = q[2] = q[3] = 0, len = 1;  // as the rasterizer's identity
  int largest = 0;
  for (int i = 1; i < 4; ++i)
    if (std::abs(q[i]) > std::abs(q[largest])) largest = i;
  const double sign = q[largest] < 0 ? -1.0 : 1.0;  // q and -q are one rotation
  uint32_t word = uint32_t(largest);
  for (int i = 0; i < 4; ++i)
    if (i != largest) word = word << 10 | pack_unorm(sign * q[i] / len / kSqrt2 + 0.5, 10);
  return word;
}

void unpack_rotation(uint32_t word, float* wxyz) {
  double c[3];
  for (int k = 0; k < 3; ++k) c[k] = (unpack_unorm(word, 20 - 10 * k, 10) - 0.5) * kSqrt2;
  const double m = std::sqrt(std::max(0.0, 1.0 - (c[0] * c[0] + c[1] * c[1] + c[2] * c[2])));
  const int largest = int(word >> 30);
  for (int i = 0, k = 0; i < 4; ++i) wxyz[i] = float(i == largest ? m : c[k++]);
}

uint8_t pack_sh(float v) {
  const double q = std::trunc((double(v) / 8 + 0.5) * 256);
  if (!(q > 0)) return 0;
  return uint8_t(std::min(255.0, q));
}
float unpack_sh(uint8_t q) {
  const double n = q == 0 ? 0.0 : q == 255 ? 1.0 : (q + 0.5) / 256;
  return float((n - 0.5) * 8);
}

float sigmoid(float logit) { return float(1 / (1 + std::exp(-double(logit)))); }
// An 8-bit opacity as a logit: 0 and 255 (opacities below 0.5/255 or above 1 - 0.5/255) read as the
// middle of their step, so that no logit is infinite.
float opacity_logit(uint32_t q) {
  const double p = std::clamp(double(q) / 255, 0.25 / 255, 1 - 0.25 / 255);
  return float(std::log(p / (1 - p)));
}

struct Range {
  float lo = INFINITY, hi = -INFINITY;
  void add(float v) { lo = std::min(lo, v), hi = std::max(hi, v); }
};

void check_finite(const std::filesystem::path& file, const std::vector<float>& column, int width, const char* what,
                  bool allow_infinite) {
  for (size_t j = 0; j < column.size(); ++j)
    if (std::isnan(column[j]) || (!allow_infinite && std::isinf(column[j])))
      throw PlyError(file, "cannot write the compressed PLY: Gaussian " + std::to_string(j / width) + " has a non-finite " + what);
}

std::string read_whole(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw PlyError(file, "cannot open file");
  std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw PlyError(file, "read error");
  return data;
}

// The one type each element's properties have in this layout, as headers spell it.
const char* type_name(ply::Type t) { return t == ply::Type::Float32 ? "float" : t == ply::Type::UInt32 ? "uint" : "uchar"; }

// Where each wanted property of an element sits in its fixed-size binary rows.
struct ElementLayout {
  const ply::Element* element = nullptr;
  size_t row_bytes = 0, first_byte = 0;  // first_byte: where its rows start after end_header
  std::map<std::string, size_t> offset;   // property name -> byte offset in a row
};

ElementLayout layout_of(const std::filesystem::path& file, const ply::Element& e, ply::Type type,
                        const std::vector<std::string>& required, const std::vector<std::string>& optional) {
  ElementLayout l;
  l.element = &e;
  for (const ply::Property& p : e.props) {
    const bool known = std::find(required.begin(), required.end(), p.name) != required.end() ||
                       std::find(optional.begin(), optional.end(), p.name) != optional.end();
    if (!known)
      throw PlyError(file, "not a compressed PLY: " + ply::element_label(e) + " has the unexpected property " + quote_user_text(p.name));
    if (p.list_count || p.type != type)
      throw PlyError(file, "not a compressed PLY: property " + quote_user_text(p.name) + " of " + ply::element_label(e) +
                               " has type " + quote_user_text(p.type_word) + " (expected " + type_name(type) + ")");
    l.offset[p.name] = l.row_bytes;
    l.row_bytes += ply::type_size(p.type);
  }
  for (const std::string& name : required)
    if (!l.offset.count(name))
      throw PlyError(file, "not a compressed PLY: " + ply::element_label(e) + " has no property " + quote_user_text(name));
  return l;
}

// The byte offsets of the named properties in a row, looked up once rather than per value.
std::vector<size_t> offsets_of(const ElementLayout& l, std::span<const std::string> names) {
  std::vector<size_t> out;
  for (const std::string& name : names) out.push_back(l.offset.at(name));
  return out;
}

template <class T>
T value_at(std::string_view body, const ElementLayout& l, int64_t row, size_t offset_in_row) {
  T v;
  std::memcpy(&v, body.data() + l.first_byte + size_t(row) * l.row_bytes + offset_in_row, sizeof(T));
  return v;
}

}  // namespace

std::vector<int64_t> compressed_ply_order(const GaussianModel& model) { return sharded::morton_order(model.means); }

void write_compressed_ply(const std::filesystem::path& file, const GaussianModel& model) {
  model.check_consistent();
  check_finite(file, model.means, 3, "position", false);
  check_finite(file, model.sh_dc, 3, "colour", false);
  check_finite(file, model.log_scales, 3, "scale", true);
  const int64_t n = model.size();
  const int64_t chunks = (n + kCompressedChunkSize - 1) / kCompressedChunkSize;
  const int rest = model.sh_rest_coeffs();
  const std::vector<int64_t> order = compressed_ply_order(model);

  std::vector<float> chunk_data(size_t(chunks) * kChunkProps.size());
  std::vector<uint32_t> words(size_t(n) * 4);
  std::vector<uint8_t> sh(size_t(n) * 3 * rest);
  auto colour = [&](int64_t row, int c) { return float(sh_dc_to_rgb(model.sh_dc[size_t(row) * 3 + c])); };
  auto scale = [&](int64_t row, int a) { return std::clamp(model.log_scales[size_t(row) * 3 + a], -kScaleClamp, kScaleClamp); };
  for (int64_t c = 0; c < chunks; ++c) {
    const int64_t begin = c * kCompressedChunkSize, end = std::min(n, begin + kCompressedChunkSize);
    Range pos[3], scl[3], col[3];
    for (int64_t k = begin; k < end; ++k) {
      const int64_t r = order[size_t(k)];
      for (int a = 0; a < 3; ++a) {
        pos[a].add(model.means[size_t(r) * 3 + a]);
        scl[a].add(scale(r, a));
        col[a].add(colour(r, a));
      }
    }
    float* cd = chunk_data.data() + size_t(c) * kChunkProps.size();
    for (int a = 0; a < 3; ++a) {
      cd[a] = pos[a].lo, cd[3 + a] = pos[a].hi;
      cd[6 + a] = scl[a].lo, cd[9 + a] = scl[a].hi;
      cd[12 + a] = col[a].lo, cd[15 + a] = col[a].hi;
    }
    for (int64_t k = begin; k < end; ++k) {
      const int64_t r = order[size_t(k)];
      double fp[3], fs[3], fc[3];
      for (int a = 0; a < 3; ++a) {
        fp[a] = fraction_of(model.means[size_t(r) * 3 + a], pos[a].lo, pos[a].hi);
        fs[a] = fraction_of(scale(r, a), scl[a].lo, scl[a].hi);
        fc[a] = fraction_of(colour(r, a), col[a].lo, col[a].hi);
      }
      uint32_t* w = words.data() + size_t(k) * 4;
      w[0] = pack_11_10_11(fp);
      w[1] = pack_rotation(model.quats.data() + size_t(r) * 4);
      w[2] = pack_11_10_11(fs);
      w[3] = pack_unorm(fc[0], 8) << 24 | pack_unorm(fc[1], 8) << 16 | pack_unorm(fc[2], 8) << 8 |
             pack_unorm(sigmoid(model.opacity_logits[size_t(r)]), 8);
      uint8_t* s = sh.data() + size_t(k) * 3 * rest;
      for (int ch = 0; ch < 3; ++ch)  // channel-major, as the 3DGS PLY's f_rest
        for (int j = 0; j < rest; ++j) *s++ = pack_sh(model.sh_rest[(size_t(r) * rest + j) * 3 + ch]);
    }
  }

  std::ostringstream header;
  header << "ply\nformat binary_little_endian 1.0\ncomment written by splatlab\nelement chunk " << chunks << "\n";
  for (const char* p : kChunkProps) header << "property float " << p << "\n";
  header << "element vertex " << n << "\n";
  for (const char* p : kVertexProps) header << "property uint " << p << "\n";
  if (rest > 0) {
    header << "element sh " << n << "\n";
    for (int j = 0; j < 3 * rest; ++j) header << "property uchar f_rest_" << j << "\n";
  }
  header << "end_header\n";

  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  if (!out) throw PlyError(file, "cannot open for writing");
  const std::string h = header.str();
  out.write(h.data(), std::streamsize(h.size()));
  out.write(reinterpret_cast<const char*>(chunk_data.data()), std::streamsize(chunk_data.size() * sizeof(float)));
  out.write(reinterpret_cast<const char*>(words.data()), std::streamsize(words.size() * sizeof(uint32_t)));
  out.write(reinterpret_cast<const char*>(sh.data()), std::streamsize(sh.size()));
  out.close();
  if (!out) throw PlyError(file, "write failed (disk full or permission denied?)");
}

GaussianModel read_compressed_ply(const std::filesystem::path& file) {
  const std::string data = read_whole(file);
  const ply::Header h = ply::parse_header(file, data);
  if (h.ascii) throw PlyError(file, "not a compressed PLY: the data is ascii (the layout is binary_little_endian)");
  const std::string_view body = std::string_view(data).substr(h.data_offset);

  const std::vector<std::string> chunk_required(kChunkProps.begin(), kChunkProps.begin() + kChunkPropsWithoutColour);
  const std::vector<std::string> chunk_colour(kChunkProps.begin() + kChunkPropsWithoutColour, kChunkProps.end());
  const std::vector<std::string> vertex_required(kVertexProps.begin(), kVertexProps.end());
  std::optional<ElementLayout> chunk, vertex, sh;
  size_t offset = 0;
  for (const ply::Element& e : h.elements) {
    ElementLayout l;
    if (e.name == "chunk" && !chunk) {
      l = layout_of(file, e, ply::Type::Float32, chunk_required, chunk_colour);
      if (l.offset.size() != kChunkPropsWithoutColour && l.offset.size() != kChunkProps.size())
        throw PlyError(file, "not a compressed PLY: element 'chunk' has some of min_r..max_b but not all six");
    } else if (e.name == "vertex" && !vertex) {
      l = layout_of(file, e, ply::Type::UInt32, vertex_required, {});
    } else if (e.name == "sh" && !sh) {
      std::vector<std::string> names;
      for (size_t j = 0; j < e.props.size(); ++j) names.push_back("f_rest_" + std::to_string(j));
      l = layout_of(file, e, ply::Type::UInt8, names, {});
    } else {
      throw PlyError(file, "not a compressed PLY: unexpected " + ply::element_label(e) + " (expected chunk, vertex and sh)");
    }
    // Bounded by the file's length before it is multiplied: no overflow, nothing sized by a lie.
    if (l.row_bytes > 0 && uint64_t(e.count) > (body.size() - std::min(offset, body.size())) / l.row_bytes)
      throw PlyError(file, ply::element_label(e) + " declares " + std::to_string(e.count) +
                               " rows but the file ends before them (truncated file or bad count)");
    l.first_byte = offset;
    offset += size_t(e.count) * l.row_bytes;
    (e.name == "chunk" ? chunk : e.name == "vertex" ? vertex : sh) = l;
  }
  if (!chunk || !vertex) throw PlyError(file, std::string("not a compressed PLY: no '") + (chunk ? "vertex" : "chunk") + "' element");
  const int64_t n = vertex->element->count;
  if (chunk->element->count != (n + kCompressedChunkSize - 1) / kCompressedChunkSize)
    throw PlyError(file, "element 'chunk' has " + std::to_string(chunk->element->count) + " rows; " + std::to_string(n) +
                             " vertices need " + std::to_string((n + kCompressedChunkSize - 1) / kCompressedChunkSize));
  int degree = 0;
  if (sh) {
    const int values = int(sh->element->props.size());
    degree = -1;
    for (int d = 1; d <= 3; ++d)
      if (values == 3 * (kernels::sh_coeffs_for_degree(d) - 1)) degree = d;
    if (degree < 0)
      throw PlyError(file, "element 'sh' has " + std::to_string(values) + " properties (expected 9, 24 or 45 for SH degree 1..3)");
    if (sh->element->count != n)
      throw PlyError(file, "element 'sh' has " + std::to_string(sh->element->count) + " rows for " + std::to_string(n) + " vertices");
  }
  // After the counts, whose disagreement says more than the length it leads to.
  if (offset != body.size())
    throw PlyError(file, "data length does not match the header: its elements take " + std::to_string(offset) +
                             " bytes after end_header, the file has " + std::to_string(body.size()));
  const bool colour_ranges = chunk->offset.size() == kChunkProps.size();

  GaussianModel m(degree, n);
  const int rest = m.sh_rest_coeffs();
  std::vector<std::string> chunk_names = chunk_required;
  if (colour_ranges) chunk_names.insert(chunk_names.end(), chunk_colour.begin(), chunk_colour.end());
  std::vector<std::string> sh_names;
  for (int j = 0; j < 3 * rest; ++j) sh_names.push_back("f_rest_" + std::to_string(j));
  const std::vector<size_t> chunk_at = offsets_of(*chunk, chunk_names), vertex_at = offsets_of(*vertex, vertex_required);
  const std::vector<size_t> sh_at = sh ? offsets_of(*sh, sh_names) : std::vector<size_t>{};
  for (int64_t i = 0; i < n; ++i) {
    const int64_t c = i / kCompressedChunkSize;
    float cd[kChunkProps.size()];
    for (size_t p = 0; p < chunk_at.size(); ++p) cd[p] = value_at<float>(body, *chunk, c, chunk_at[p]);
    uint32_t w[4];
    for (int p = 0; p < 4; ++p) w[p] = value_at<uint32_t>(body, *vertex, i, vertex_at[size_t(p)]);
    const int shifts[3] = {21, 11, 0}, bits[3] = {11, 10, 11};
    for (int a = 0; a < 3; ++a) {
      m.means[size_t(i) * 3 + a] = lerp(cd[a], cd[3 + a], unpack_unorm(w[0], shifts[a], bits[a]));
      m.log_scales[size_t(i) * 3 + a] = lerp(cd[6 + a], cd[9 + a], unpack_unorm(w[2], shifts[a], bits[a]));
      const double t = unpack_unorm(w[3], 24 - 8 * a, 8);
      const double rgb = colour_ranges ? lerp(cd[12 + a], cd[15 + a], t) : t;
      m.sh_dc[size_t(i) * 3 + a] = rgb_to_sh_dc(rgb);
    }
    unpack_rotation(w[1], m.quats.data() + size_t(i) * 4);
    m.opacity_logits[size_t(i)] = opacity_logit(w[3] & 0xff);
    for (int ch = 0; ch < 3; ++ch)
      for (int j = 0; j < rest; ++j)
        m.sh_rest[(size_t(i) * rest + j) * 3 + ch] =
            unpack_sh(value_at<uint8_t>(body, *sh, i, sh_at[size_t(ch * rest + j)]));
  }
  return m;
}

}  // namespace splat
