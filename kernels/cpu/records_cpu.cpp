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

void select_rows_reference(const int32_t* flags, int64_t n, int32_t* row_of, int64_t* count) {
  int64_t k = 0;
  for (int64_t r = 0; r < n; ++r)
    if (flags[r] > 0) row_of[k++] = int32_t(r);
  *count = k;
  for (int64_t i = k; i < n; ++i) row_of[i] = -1;
}

void pack_indexed_records_reference(const RecordSources& from, const int32_t* row_of, int64_t n, uint32_t* records) {
  const int W = 1 + from.record_words;
  for (int64_t i = 0; i < n; ++i) {
    uint32_t* rec = records + i * W;
    rec[0] = uint32_t(row_of[i]);
    if (row_of[i] < 0) continue;
    for (int w = 0; w < from.record_words; ++w) {
      int f = 0, v = 0;
      indexed_record_field(from, w, f, v);
      rec[1 + w] = from.columns[f][int64_t(row_of[i]) * from.words[f] + v];
    }
  }
}

void unpack_indexed_records_reference(const uint32_t* records, int64_t n, const RecordTargets& to, int32_t* row_of) {
  const int W = 1 + to.record_words;
  for (int64_t i = 0; i < n; ++i) {
    const uint32_t* rec = records + i * W;
    const int32_t row = int32_t(rec[0]);
    if (row_of) row_of[i] = row;
    if (row < 0) continue;
    for (int w = 0; w < to.record_words; ++w) {
      int f = 0, v = 0;
      indexed_record_field(to, w, f, v);
      to.columns[f][int64_t(row) * to.words[f] + v] = rec[1 + w];
    }
  }
}

}  // namespace splat::kernels
