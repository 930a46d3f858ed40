// CPU reference of packing and unpacking records: a loop over each field's column words, placed by
// the same function as the CUDA kernels (kernels/records_math.h).
#include <cstring>

#include "kernels/records.h"

namespace splat::kernels {

void pack_records_reference(const RecordSources& from, int64_t rows, uint32_t* records) {
  for (int k = 0; k < from.count; ++k)
    for (int64_t i = 0; i < rows * from.words[k]; ++i)
      records[record_word(i, from.words[k], from.starts[k], from.record_words)] = from.columns[k][i];
}

void unpack_records_reference(const uint32_t* records, int64_t rows, const RecordTargets& to) {
  for (int k = 0; k < to.count; ++k)
    for (int64_t i = 0; i < rows * to.words[k]; ++i)
      to.columns[k][i] = records[record_word(i, to.words[k], to.starts[k], to.record_words)];
}

void copy_record_columns_reference(const RecordSources& from, int64_t rows, const RecordTargets& to) {
  for (int k = 0; k < from.count; ++k)
    if (rows > 0) std::memcpy(to.columns[k], from.columns[k], size_t(rows * from.words[k]) * 4);
}

}  // namespace splat::kernels
