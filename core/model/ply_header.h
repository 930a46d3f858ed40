#pragma once
// The header of a PLY file (ascii or binary little-endian, version 1.0): its elements and their
// properties in file order, and where the data starts. Shared by the readers of the standard 3DGS
// layout (ply_io.h) and of the compressed layout (compressed_ply.h), so that both accept and refuse
// headers alike.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace splat::ply {

enum class Type { Int8, UInt8, Int16, UInt16, Int32, UInt32, Float32, Float64 };

// Bytes of one value of a type.
size_t type_size(Type t);

struct Property {
  std::string name;
  std::string type_word;  // the type as the header spells it, for messages
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

// "element 'vertex'" and the like, for messages: names come from the file, so they are quoted.
std::string element_label(const Element& e);

// Parses the header at the start of `data`. Throws PlyError naming `file` and the header line at
// fault for anything malformed, unknown or unsupported (big-endian data, another version).
Header parse_header(const std::filesystem::path& file, std::string_view data);

}  // namespace splat::ply
