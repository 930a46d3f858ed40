#include "app/cli_checks.h"

#include <charconv>
#include <string>

#include "core/util/user_text.h"

namespace splat::app {

CLI::Validator at_least(long long min) {
  const std::string wanted = "a whole number of at least " + std::to_string(min);
  return CLI::Validator(
      [min, wanted](std::string& text) -> std::string {
        long long v = 0;
        const auto r = std::from_chars(text.data(), text.data() + text.size(), v);
        if (text.empty() || r.ec != std::errc() || r.ptr != text.data() + text.size() || v < min)
          return "expected " + wanted + ", got " + quote_user_text(text);
        return {};
      },
      "INT>=" + std::to_string(min));
}

}  // namespace splat::app
