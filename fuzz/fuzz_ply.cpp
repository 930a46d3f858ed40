// libFuzzer target: the PLY reader (core/model/ply_io.h). Input: the whole file. An accepted file must
// give a model whose columns agree with its row count (check_consistent throws std::logic_error,
// which the harness counts as a crash).
#include "core/model/ply_io.h"
#include "fuzz/fuzz_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::filesystem::path file = splat::fuzz::scratch_file("point_cloud.ply");
  splat::fuzz::write_file(file, {data, size});
  splat::fuzz::expect_accept_or_refuse(file, [] { splat::read_ply(file).check_consistent(); });
  return 0;
}
