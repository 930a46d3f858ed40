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

// Only the rows a peer needs (the pairs it sees): records led by a row number, gathered from the
// sender's columns and scattered into the receiver's. A negative row number marks an empty record
// (nothing else of it is written or read). Record i is [row_of[i] | fields of that row], so its size
// is 1 + from.record_words (to.record_words) words.
//
// select_rows: row_of[k] = the k-th row r < n with flags[r] > 0, in order; the rest of row_of[0, n)
// = -1; *count (device) = their number.
void select_rows(const ComputeContext& where, const int32_t* flags, int64_t n, int32_t* row_of, int64_t* count);
// records[i] = [row_of[i] | row row_of[i] of `from`] for i < n.
void pack_indexed_records(const ComputeContext& where, const RecordSources& from, const int32_t* row_of, int64_t n,
                          uint32_t* records);
// Row row(i) of `to` = record i's fields, for i < n with row(i) >= 0; row_of[i] = row(i) when given.
void unpack_indexed_records(const ComputeContext& where, const uint32_t* records, int64_t n, const RecordTargets& to,
                            int32_t* row_of);

// CPU references (the entry points above call these for Device::CPU).
void pack_records_reference(const RecordSources& from, int64_t rows, uint32_t* records);
void unpack_records_reference(const uint32_t* records, int64_t rows, const RecordTargets& to);
void copy_record_columns_reference(const RecordSources& from, int64_t rows, const RecordTargets& to);
void select_rows_reference(const int32_t* flags, int64_t n, int32_t* row_of, int64_t* count);
void pack_indexed_records_reference(const RecordSources& from, const int32_t* row_of, int64_t n, uint32_t* records);
void unpack_indexed_records_reference(const uint32_t* records, int64_t n, const RecordTargets& to, int32_t* row_of);

}  // namespace splat::kernels
