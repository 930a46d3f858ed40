#include "app/up_arg.h"

#include <iterator>
#include <stdexcept>
#include <vector>

#include "core/util/user_text.h"

namespace splat::app {
namespace {
// The world axes' names, as a list for the help: "+x, -x, ...".
std::string axis_names() {
  std::string s;
  for (int i = int(UpAxis::PlusX); i < int(std::size(kUpAxisNames)); ++i)
    s += std::string(i == int(UpAxis::PlusX) ? "" : ", ") + kUpAxisNames[i];
  return s;
}
}  // namespace

CLI::Option* add_up_option(CLI::App* sub, std::string& up, const std::string& auto_means) {
  const std::vector<std::string> names(std::begin(kUpAxisNames), std::end(kUpAxisNames));
  return sub
      ->add_option("--up", up,
                   "Which way is up: " + std::string(up_axis_name(UpAxis::Auto)) + " (" + auto_means + "), " +
                       up_axis_name(UpAxis::Flipped) +
                       " (the opposite of the estimate, for a capture held upside down), or a model axis: " + axis_names())
      ->check(CLI::IsMember(names))
      ->capture_default_str();
}

UpAxis up_axis_arg(const std::string& up) {
  if (const auto axis = parse_up_axis(up)) return *axis;
  throw std::invalid_argument("--up " + quote_user_text(up) + ": expected " + up_axis_name(UpAxis::Auto) + ", " +
                              up_axis_name(UpAxis::Flipped) + " or " + axis_names());
}

}  // namespace splat::app
