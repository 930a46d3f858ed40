// CPU reference of packing and unpacking records: a loop over the records' words, the same
// per-word function as the CUDA kernels (kernels/records_math.h).
#include "kernels/records.h"

namespace splat::kernels {

void pack_records_reference(const RecordSources& from, int64_t rows, uint32_t* records) {
  const int64_t words = rows * from.record_words;
  for (int64_t e = 0; e < words; ++e) records[e] = *column_word(from, e);
}

void unpack_records_reference(const uint32_t* records, int64_t rows, const RecordTargets& to) {
  const int64_t words = rows * to.record_words;
  for (int64_t e = 0; e < words; ++e) *column_word(to, e) = records[e];
}

}  // namespace splat::kernels
