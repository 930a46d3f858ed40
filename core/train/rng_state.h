#pragma once
// The training RNG and its exact state as text, so checkpoints restore it bit for bit
// (std::mt19937_64's stream operators print and read its full state).
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>

namespace splat {

using Rng = std::mt19937_64;

inline std::string rng_to_string(const Rng& rng) {
  std::ostringstream os;
  os << rng;
  return os.str();
}

// Throws std::runtime_error naming `what` when the text is not a saved engine state.
inline Rng rng_from_string(const std::string& text, const std::string& what) {
  Rng rng;
  std::istringstream is(text);
  is >> rng;
  if (is.fail()) throw std::runtime_error(what + ": invalid random generator state");
  return rng;
}

}  // namespace splat
