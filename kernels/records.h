#pragma once
// Interleaving a few columns into one array of records and back, on the device that holds them.
// The multi-GPU exchange sends each projected pair (and in reverse its gradients) as one record,
// so that a step makes one all-to-all each way instead of one per column (core/train/sharded/sharded_step.h);
// record i is row i of every column, so rows that are grouped by destination stay grouped.
#include <cstdint>
#include <stdexcept>
#include <string>

#include "kernels/device_context.h"
#include "kernels/records_math.h"

namespace splat::kernels {

// Appends a column of `per_row` values of T per row as the next field of `f`. T must be made of
// 32-bit words (float, int32, int64); a const T only fits sources, a mutable one either.
template <class Word, class T>
void add_record_field(BasicRecordFields<Word>& f, T* column, int per_row) {
  static_assert(sizeof(T) % 4 == 0, "record fields are made of 32-bit words");
  if (f.count == kMaxRecordFields)
    throw std::invalid_argument("a record has at most " + std::to_string(kMaxRecordFields) + " fields");
  if (per_row < 1) throw std::invalid_argument("a record field needs at least one value per row");
  f.columns[f.count] = reinterpret_cast<Word*>(column);
  f.words[f.count] = per_row * int(sizeof(T) / 4);
  f.starts[f.count] = f.record_words;
  f.record_words += f.words[f.count++];
}

// The same fields from row `first` on (each column advanced by `first` rows): packs, unpacks and
// copies of a run of rows in the middle of the columns.
template <class Word>
BasicRecordFields<Word> rows_from(BasicRecordFields<Word> f, int64_t first) {
  for (int k = 0; k < f.count; ++k) f.columns[k] += first * f.words[k];
  return f;
}

// records[r * record_words ...] = row r of every source column, in field order, for r < rows.
// Everything lives in `where`; on CUDA enqueued on its stream, not waited for.
void pack_records(const ComputeContext& where, const RecordSources& from, int64_t rows, uint32_t* records);
// The inverse: row r of every target column from record r.
void unpack_records(const ComputeContext& where, const uint32_t* records, int64_t rows, const RecordTargets& to);

// Rows [0, rows) of every column of `from` into the matching column of `to`, without records (a
// rank's own pairs, which need not be exchanged): one column copy per field. The two must have the
// same fields (std::invalid_argument otherwise).
void copy_record_columns(const ComputeContext& where, const RecordSources& from, int64_t rows, const RecordTargets& to);

// CPU references (the entry points above call these for Device::CPU).
void pack_records_reference(const RecordSources& from, int64_t rows, uint32_t* records);
void unpack_records_reference(const uint32_t* records, int64_t rows, const RecordTargets& to);
void copy_record_columns_reference(const RecordSources& from, int64_t rows, const RecordTargets& to);

}  // namespace splat::kernels
