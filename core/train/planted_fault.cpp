#include "core/train/planted_fault.h"

#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <unistd.h>
#include <vector>

#include "core/util/user_text.h"
#include "kernels/buffer.h"

namespace splat {
namespace {

constexpr const char* kVariable = "SPLATLAB_FAULT";
constexpr const char* kForm = "expected KIND:RANK:IMAGES with KIND oom or exit (e.g. oom:1:200)";

template <class T>
T whole_number(std::string_view s, T least, const char* what) {
  T v{};
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size() || v < least)
    throw std::invalid_argument(std::string(what) + " " + quote_user_text(s) + " is not a whole number >= " +
                                std::to_string(least) + "; " + kForm);
  return v;
}

}  // namespace

PlantedFault parse_fault(std::string_view text) {
  std::vector<std::string_view> parts;
  for (size_t at = 0;;) {
    const size_t colon = text.find(':', at);
    parts.push_back(text.substr(at, colon == std::string_view::npos ? std::string_view::npos : colon - at));
    if (colon == std::string_view::npos) break;
    at = colon + 1;
  }
  if (parts.size() != 3) throw std::invalid_argument(quote_user_text(text) + ": " + kForm);
  PlantedFault f;
  if (parts[0] == "oom") f.kind = FaultKind::OutOfMemory;
  else if (parts[0] == "exit") f.kind = FaultKind::Exit;
  else throw std::invalid_argument("unknown fault " + quote_user_text(parts[0]) + "; " + kForm);
  f.rank = whole_number<int>(parts[1], 0, "rank");
  f.images = whole_number<int64_t>(parts[2], 0, "images");
  return f;
}

std::optional<PlantedFault> planted_fault_from_env() {
  const char* v = std::getenv(kVariable);
  if (!v || !*v) return std::nullopt;
  try {
    return parse_fault(v);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(std::string(kVariable) + ": " + e.what());
  }
}

bool fault_due(const std::optional<PlantedFault>& fault, int rank, int64_t images_done) {
  return fault && fault->rank == rank && images_done >= fault->images;
}

void fire_fault(const PlantedFault& fault, const std::string& rank, const std::string& device) {
  const std::string at = " at " + std::to_string(fault.images) + " images (" + kVariable + ")";
  // With ranks, the error that stops them names the rank as well.
  if (fault.kind == FaultKind::OutOfMemory) throw kernels::OutOfMemory("out of memory on " + device + ", planted" + at);
  // What a killed process leaves: no unwinding, no buffers flushed, no files closed. The line goes
  // straight to the descriptor so that a rehearsal's log still says what happened.
  char host[256] = "?";
  gethostname(host, sizeof host - 1);
  const std::string line =
      "splatlab: " + rank + " (" + device + ") on host " + host + ": exiting now, planted" + at + "\n";
  std::fwrite(line.data(), 1, line.size(), stderr);
  std::_Exit(137);
}

}  // namespace splat
