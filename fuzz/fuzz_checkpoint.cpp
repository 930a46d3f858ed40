// libFuzzer target: the checkpoint reader (core/train/checkpoint.h, read_checkpoint). Input: one flag
// byte, then the file. When the flag's low bit is set, the harness rewrites the file's last 8
// bytes with the FNV-1a 64 checksum of the rest, as write_checkpoint would: a mutated file then
// still passes the checksum, so the fuzzer reaches what the reader does with a file it accepts
// (and fields that only a re-checksummed edit could carry), not only the checksum refusal.
#include <cstring>
#include <vector>

#include "core/train/checkpoint.h"
#include "fuzz/fuzz_file.h"

namespace {

// FNV-1a 64 over bytes, the checksum checkpoint.h specifies for the file format.
uint64_t fnv1a64(const uint8_t* p, size_t n) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 0x100000001b3ull;
  return h;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  std::vector<uint8_t> bytes(data + 1, data + size);
  if ((data[0] & 1) && bytes.size() >= sizeof(uint64_t)) {
    const uint64_t sum = fnv1a64(bytes.data(), bytes.size() - sizeof sum);
    std::memcpy(bytes.data() + bytes.size() - sizeof sum, &sum, sizeof sum);
  }
  static const std::filesystem::path file = splat::fuzz::scratch_file("checkpoint.ckpt");
  splat::fuzz::write_file(file, bytes);
  splat::fuzz::expect_accept_or_refuse(file, [] { splat::read_checkpoint(file).gaussians.check_consistent(); });
  return 0;
}
