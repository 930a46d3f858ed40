// Packing columns into records and back (kernels/records.h): the layout on the CPU reference, the
// round trip, and the CUDA kernels against the reference.
#include <catch2/catch.hpp>

#include <cstring>
#include <random>
#include <vector>

#include "kernels/buffer.h"
#include "kernels/records.h"
#include "tests/support/test_support.h"

using namespace splat::kernels;

namespace {

// Three columns of mixed types: 2 floats, one int64 and 3 int32 per row.
struct Columns {
  std::vector<float> a;
  std::vector<int64_t> b;
  std::vector<int32_t> c;
  explicit Columns(int64_t rows) : a(size_t(2 * rows)), b(size_t(rows)), c(size_t(3 * rows)) {}
};

template <class Word, class A, class B, class C>
BasicRecordFields<Word> fields(A* a, B* b, C* c) {
  BasicRecordFields<Word> f;
  add_record_field(f, a, 2);
  add_record_field(f, b, 1);
  add_record_field(f, c, 3);
  return f;
}

Columns random_columns(int64_t rows, unsigned seed) {
  std::mt19937_64 gen(seed);
  Columns c(rows);
  std::normal_distribution<float> normal;
  for (float& x : c.a) x = normal(gen);
  for (int64_t& x : c.b) x = int64_t(gen());
  for (int32_t& x : c.c) x = int32_t(gen());
  return c;
}

}  // namespace

TEST_CASE("records hold each row's fields in field order, and unpacking restores the columns", "[records]") {
  Columns in(2);
  in.a = {1.5f, -2.f, 3.f, 4.25f};
  in.b = {int64_t(1) << 40 | 7, -3};
  in.c = {10, 11, 12, 20, 21, 22};
  const RecordSources from = fields<const uint32_t>(in.a.data(), in.b.data(), in.c.data());
  CHECK(from.record_words == 2 + 2 + 3);
  std::vector<uint32_t> records(2 * 7, 0xDEADBEEF);
  pack_records(Device::CPU, from, 2, records.data());
  // Row 1's record: a[2..3], b[1], c[3..5].
  float a1[2];
  int64_t b1;
  int32_t c1[3];
  std::memcpy(a1, &records[7], 8);
  std::memcpy(&b1, &records[9], 8);
  std::memcpy(c1, &records[11], 12);
  CHECK(a1[0] == 3.f);
  CHECK(a1[1] == 4.25f);
  CHECK(b1 == -3);
  CHECK(c1[2] == 22);
  int64_t b0;
  std::memcpy(&b0, &records[2], 8);
  CHECK(b0 == (int64_t(1) << 40 | 7));

  Columns out(2);
  unpack_records(Device::CPU, records.data(), 2, fields<uint32_t>(out.a.data(), out.b.data(), out.c.data()));
  CHECK(out.a == in.a);
  CHECK(out.b == in.b);
  CHECK(out.c == in.c);
}

TEST_CASE("a run of rows packs like its slice of the whole, and columns copy without records", "[records]") {
  const int64_t rows = 9;
  const Columns in = random_columns(rows, 3);
  const RecordSources from = fields<const uint32_t>(in.a.data(), in.b.data(), in.c.data());
  std::vector<uint32_t> whole(size_t(rows * from.record_words));
  pack_records(Device::CPU, from, rows, whole.data());
  // Rows [3, 7) alone: the records of those rows, in order.
  std::vector<uint32_t> part(size_t(4 * from.record_words));
  pack_records(Device::CPU, rows_from(from, 3), 4, part.data());
  CHECK(part == std::vector<uint32_t>(whole.begin() + 3 * from.record_words, whole.begin() + 7 * from.record_words));
  // Unpacking them into rows [2, 6) of cleared columns touches those rows only.
  Columns out(rows);
  const RecordTargets to = fields<uint32_t>(out.a.data(), out.b.data(), out.c.data());
  unpack_records(Device::CPU, part.data(), 4, rows_from(to, 2));
  CHECK(out.b[2] == in.b[3]);
  CHECK(out.b[5] == in.b[6]);
  CHECK(out.b[1] == 0);
  CHECK(out.b[6] == 0);
  CHECK(out.c[3 * 2 + 2] == in.c[3 * 3 + 2]);
  // A column copy of rows [1, 3) to rows [7, 9).
  copy_record_columns(Device::CPU, rows_from(from, 1), 2, rows_from(to, 7));
  CHECK(out.a[2 * 7] == in.a[2 * 1]);
  CHECK(out.a[2 * 8 + 1] == in.a[2 * 2 + 1]);
  CHECK(out.b[8] == in.b[2]);
  CHECK(out.c[3 * 8 + 2] == in.c[3 * 2 + 2]);
  // Fields that do not match are refused.
  RecordTargets other;
  add_record_field(other, out.a.data(), 1);
  CHECK_THROWS_WITH(copy_record_columns(Device::CPU, from, 2, other), Catch::Contains("do not match"));
}

TEST_CASE("a record refuses a ninth field and an empty one", "[records]") {
  std::vector<float> column(4);
  RecordSources f;
  for (int k = 0; k < kMaxRecordFields; ++k) add_record_field(f, column.data(), 1);
  CHECK_THROWS_WITH(add_record_field(f, column.data(), 1), Catch::Contains("at most 8 fields"));
  RecordSources g;
  CHECK_THROWS_WITH(add_record_field(g, column.data(), 0), Catch::Contains("at least one value"));
}

TEST_CASE("CUDA packing and unpacking of records equal the CPU reference", "[records][gpu]") {
  if (!splat::test::gpu_or_skip("CUDA records")) return;
  const int64_t rows = 100003;  // not a multiple of a block
  const Columns in = random_columns(rows, 5);
  const RecordSources host_from = fields<const uint32_t>(in.a.data(), in.b.data(), in.c.data());
  std::vector<uint32_t> want(size_t(rows * host_from.record_words));
  pack_records(Device::CPU, host_from, rows, want.data());

  Buffer<float> a(Device::CUDA);
  Buffer<int64_t> b(Device::CUDA);
  Buffer<int32_t> c(Device::CUDA);
  a.upload(in.a), b.upload(in.b), c.upload(in.c);
  Buffer<uint32_t> records(Device::CUDA, want.size());
  pack_records(Device::CUDA, fields<const uint32_t>(a.data(), b.data(), c.data()), rows, records.data());
  CHECK(records.download() == want);

  // Unpack the reference's records on the device into cleared columns.
  records.upload(want);
  a.zero(), b.zero(), c.zero();
  unpack_records(Device::CUDA, records.data(), rows, fields<uint32_t>(a.data(), b.data(), c.data()));
  Columns back(rows);
  unpack_records(Device::CPU, want.data(), rows, fields<uint32_t>(back.a.data(), back.b.data(), back.c.data()));
  CHECK(a.download() == back.a);
  CHECK(b.download() == back.b);
  CHECK(c.download() == back.c);
  CHECK(back.a == in.a);

  // A run of rows from the middle (records of rows [7, rows - 5)) and a column copy on the device.
  const int64_t part = rows - 12;
  Buffer<uint32_t> some(Device::CUDA, size_t(part * host_from.record_words));
  pack_records(Device::CUDA, rows_from(fields<const uint32_t>(a.data(), b.data(), c.data()), 7), part, some.data());
  CHECK(some.download() ==
        std::vector<uint32_t>(want.begin() + 7 * host_from.record_words, want.end() - 5 * host_from.record_words));
  Buffer<float> a2(Device::CUDA, in.a.size());
  Buffer<int64_t> b2(Device::CUDA, in.b.size());
  Buffer<int32_t> c2(Device::CUDA, in.c.size());
  copy_record_columns(Device::CUDA, fields<const uint32_t>(a.data(), b.data(), c.data()), rows,
                      fields<uint32_t>(a2.data(), b2.data(), c2.data()));
  CHECK(a2.download() == in.a);
  CHECK(b2.download() == in.b);
  CHECK(c2.download() == in.c);
}
