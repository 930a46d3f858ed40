// libFuzzer target: the compressed PLY reader (core/model/compressed_ply.h), which `export` can
// read (`export RUN.compressed.ply --out FILE`), and which any user may point at a file another tool
// wrote. Input: the whole file.
// An accepted file must give a model whose columns agree with its row count (check_consistent throws
// std::logic_error, which the harness counts as a crash).
#include "core/model/compressed_ply.h"
#include "fuzz/fuzz_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::filesystem::path file = splat::fuzz::scratch_file("point_cloud.compressed.ply");
  splat::fuzz::write_file(file, {data, size});
  splat::fuzz::expect_accept_or_refuse(file, [] { splat::read_compressed_ply(file).check_consistent(); });
  return 0;
}
