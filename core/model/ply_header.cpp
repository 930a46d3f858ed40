#include "core/model/ply_header.h"

#include <charconv>
#include <map>

#include "core/model/ply_io.h"
#include "core/util/user_text.h"

namespace splat::ply {
namespace {

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

}  // namespace

size_t type_size(Type t) {
  switch (t) {
    case Type::Int8: case Type::UInt8: return 1;
    case Type::Int16: case Type::UInt16: return 2;
    case Type::Int32: case Type::UInt32: case Type::Float32: return 4;
    case Type::Float64: return 8;
  }
  return 0;
}

std::string element_label(const Element& e) { return "element " + quote_user_text(e.name); }

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
      else throw fail("unknown format " + quote_user_text(w[1]));
      if (w[2] != "1.0") throw fail("unsupported PLY version " + quote_user_text(w[2]));
      have_format = true;
    } else if (w[0] == "element") {
      if (w.size() != 3) throw fail("malformed element line");
      Element e;
      e.name = std::string(w[1]);
      const auto r = std::from_chars(w[2].data(), w[2].data() + w[2].size(), e.count);
      if (r.ec != std::errc() || r.ptr != w[2].data() + w[2].size() || e.count < 0)
        throw fail("bad count " + quote_user_text(w[2]) + " for " + element_label(e));
      h.elements.push_back(std::move(e));
    } else if (w[0] == "property") {
      if (h.elements.empty()) throw fail("property before any element");
      Property p;
      if (w.size() == 5 && w[1] == "list") {
        p.list_count = parse_type(w[2]);
        const auto item = parse_type(w[3]);
        if (!p.list_count || !item) throw fail("unknown property type in list " + quote_user_text(w[4]));
        p.type = *item;
        p.type_word = "list " + std::string(w[2]) + " " + std::string(w[3]);
        p.name = std::string(w[4]);
      } else if (w.size() == 3) {
        const auto t = parse_type(w[1]);
        if (!t) throw fail("unknown type " + quote_user_text(w[1]) + " of property " + quote_user_text(w[2]));
        p.type = *t;
        p.type_word = std::string(w[1]);
        p.name = std::string(w[2]);
      } else {
        throw fail("malformed property line");
      }
      for (const auto& q : h.elements.back().props)
        if (q.name == p.name) throw fail("duplicate property " + quote_user_text(p.name));
      h.elements.back().props.push_back(std::move(p));
    } else {
      throw fail("unknown header keyword " + quote_user_text(w[0]));
    }
  }
  if (!have_format) throw PlyError(file, "PLY header has no format line");
  h.data_offset = pos;
  return h;
}

}  // namespace splat::ply
