// The gated row copy of the multi-GPU exchange (kernels/gated_rows.h): kept rows arrive whole in
// every column, the others as zeros in the zero_gated columns and not at all in the rest; the run
// counts count the kept rows. CUDA against the CPU reference, on one GPU and, with two, reading a peer
// GPU's rows.
#include <catch2/catch.hpp>

#include <cstring>
#include <random>
#include <vector>

#include "kernels/buffer.h"
#include "kernels/device.h"
#include "kernels/gated_rows.h"
#include "tests/support/test_support.h"

using splat::kernels::Buffer;
using splat::kernels::ComputeContext;
using splat::kernels::Device;
using splat::kernels::RowColumn;
namespace k = splat::kernels;

namespace {

constexpr int64_t kWidths[] = {16, 4, 8, 16, 8};  // bytes a row, as a projected pair mixes them
constexpr size_t kZeroed = 1;                      // the zero_gated column (as a pair's tile counts)

// Random bytes for each column of `rows` rows, and a gate that keeps about `keep` of them.
struct Rows {
  std::vector<std::vector<uint8_t>> columns;
  std::vector<int32_t> gate;
};
Rows random_rows(int64_t rows, double keep, unsigned seed) {
  std::mt19937 rng(seed);
  Rows r;
  for (const int64_t w : kWidths) {
    std::vector<uint8_t> c(size_t(rows * w));
    for (uint8_t& b : c) b = uint8_t(1 + rng() % 255);  // never 0: a zeroed row is told apart
    r.columns.push_back(std::move(c));
  }
  std::bernoulli_distribution kept(keep);
  for (int64_t i = 0; i < rows; ++i) r.gate.push_back(kept(rng) ? int32_t(1 + rng() % 9) : 0);
  return r;
}

}  // namespace

TEST_CASE("a gated row copy moves the kept rows of every column, zeros for the rest where asked, else nothing",
          "[gated_rows]") {
  const int64_t rows = 333;
  const Rows in = random_rows(rows, 0.4, 1);
  std::vector<std::vector<uint8_t>> out;
  std::vector<RowColumn> columns;
  for (size_t c = 0; c < in.columns.size(); ++c) out.emplace_back(in.columns[c].size(), uint8_t(0x77));
  for (size_t c = 0; c < in.columns.size(); ++c)
    columns.push_back({in.columns[c].data(), out[c].data(), kWidths[c], c == kZeroed});
  k::copy_gated_rows(Device::CPU, columns, rows, in.gate.data());
  int64_t kept = 0;
  for (int64_t i = 0; i < rows; ++i) {
    kept += in.gate[i] != 0;
    for (size_t c = 0; c < in.columns.size(); ++c) {
      const size_t w = size_t(kWidths[c]), at = size_t(i) * w;
      INFO("row " << i << ", column " << c);
      if (in.gate[i] != 0) CHECK(std::memcmp(out[c].data() + at, in.columns[c].data() + at, w) == 0);
      else
        CHECK(std::vector<uint8_t>(out[c].begin() + at, out[c].begin() + at + w) ==
              std::vector<uint8_t>(w, c == kZeroed ? 0 : 0x77));
    }
  }
  CHECK(kept > rows / 5);
  CHECK(kept < rows * 3 / 5);

  // Counts over runs: each run's kept rows.
  const std::vector<int64_t> starts{0, 100, 250, 333}, lengths{100, 150, 83, 0};
  std::vector<int64_t> counts(4, -1);
  k::count_gated_runs(Device::CPU, in.gate.data(), starts, lengths, counts.data());
  for (size_t r = 0; r < starts.size(); ++r) {
    int64_t n = 0;
    for (int64_t i = starts[r]; i < starts[r] + lengths[r]; ++i) n += in.gate[i] != 0;
    CHECK(counts[r] == n);
  }
  CHECK(counts[0] + counts[1] + counts[2] == kept);
}

TEST_CASE("a gated row copy refuses row widths and column counts it does not move", "[gated_rows]") {
  std::vector<uint8_t> a(64), b(64);
  const int32_t gate[4] = {1, 1, 1, 1};
  const std::vector<RowColumn> odd{{a.data(), b.data(), 12}};
  CHECK_THROWS_WITH(k::copy_gated_rows(Device::CPU, odd, 4, gate), Catch::Contains("12-byte rows (4, 8 or 16)"));
  const std::vector<RowColumn> none;
  CHECK_THROWS_WITH(k::copy_gated_rows(Device::CPU, none, 4, gate), Catch::Contains("0 columns"));
  const std::vector<RowColumn> nine(9, RowColumn{a.data(), b.data(), 4});
  CHECK_THROWS_WITH(k::copy_gated_rows(Device::CPU, nine, 4, gate), Catch::Contains("9 columns"));
  const std::vector<int64_t> starts{0}, lengths{1, 2};
  int64_t counts[2];
  CHECK_THROWS_WITH(k::count_gated_runs(Device::CPU, gate, starts, lengths, counts), Catch::Contains("1 starts and 2 lengths"));
}

TEST_CASE("the CUDA gated row copy and its counts match the CPU reference, from a peer GPU too", "[gated_rows][gpu]") {
  if (!splat::test::gpu_or_skip("CUDA gated row copy")) return;
  const int64_t rows = 1'000'003;  // past one grid's worth of threads
  const Rows in = random_rows(rows, 0.55, 2);
  std::vector<std::vector<uint8_t>> want;
  std::vector<RowColumn> host_columns;
  for (size_t c = 0; c < in.columns.size(); ++c) want.emplace_back(in.columns[c].size(), uint8_t(0x77));
  for (size_t c = 0; c < in.columns.size(); ++c)
    host_columns.push_back({in.columns[c].data(), want[c].data(), kWidths[c], c == kZeroed});
  k::copy_gated_rows(Device::CPU, host_columns, rows, in.gate.data());
  const std::vector<int64_t> starts{0, 17, 500'000}, lengths{17, 400'000, 500'003};
  std::vector<int64_t> want_counts(3);
  k::count_gated_runs(Device::CPU, in.gate.data(), starts, lengths, want_counts.data());

  std::vector<int> sources{0};
  if (k::cuda_device_count() >= 2 && k::enable_peer_access(0, 1)) sources.push_back(1);
  for (const int from : sources) {
    INFO("rows on CUDA device " << from << ", copied by device 0");
    const ComputeContext there(Device::CUDA, from), here(Device::CUDA, 0);
    std::vector<Buffer<uint8_t>> src, dst;
    Buffer<int32_t> gate(there);
    gate.upload(in.gate);
    std::vector<RowColumn> columns;
    for (size_t c = 0; c < in.columns.size(); ++c) {
      src.emplace_back(there).upload(in.columns[c]);
      dst.emplace_back(here, in.columns[c].size());
      dst.back().upload(std::vector<uint8_t>(in.columns[c].size(), 0x77));
    }
    for (size_t c = 0; c < in.columns.size(); ++c)
      columns.push_back({src[c].data(), dst[c].data(), kWidths[c], c == kZeroed});
    k::copy_gated_rows(here, columns, rows, gate.data());
    for (size_t c = 0; c < in.columns.size(); ++c) CHECK(dst[c].download() == want[c]);
    Buffer<int64_t> counts(here, 3);
    k::count_gated_runs(here, gate.data(), starts, lengths, counts.data());
    CHECK(counts.download() == want_counts);
  }
  if (sources.size() == 1) std::printf("(one GPU: the peer read was not exercised)\n");
}
