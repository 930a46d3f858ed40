#include "app/recorded_options.h"

#include <algorithm>
#include <stdexcept>

#include "core/util/user_text.h"

namespace splat::app {
namespace {

// A recorded value as the words a user would type for it (a list gives one word per element).
std::vector<std::string> as_words(const nlohmann::json& v) {
  if (v.is_array()) {
    std::vector<std::string> words;
    for (const nlohmann::json& e : v) words.push_back(as_words(e).at(0));
    return words;
  }
  return {v.is_string() ? v.get<std::string>() : v.dump()};
}

// Whether the option, as given, holds the recorded value: compared as numbers, truth values or
// text after CLI11's own conversion, so that "100" matches a recorded 100.0.
bool same_value(const CLI::Option& opt, const nlohmann::json& recorded) {
  try {
    if (recorded.is_boolean()) return opt.as<bool>() == recorded.get<bool>();
    if (recorded.is_number()) return opt.as<double>() == recorded.get<double>();
    if (recorded.is_string()) return opt.as<std::string>() == recorded.get<std::string>();
    if (recorded.is_array()) {
      std::vector<double> want;
      for (const nlohmann::json& e : recorded) {
        if (!e.is_number()) return false;
        want.push_back(e.get<double>());
      }
      return opt.as<std::vector<double>>() == want;
    }
  } catch (const CLI::Error&) {
  }
  return false;
}

std::string joined(const std::vector<std::string>& words) {
  std::string s;
  for (const std::string& w : words) s += (s.empty() ? "" : " ") + w;
  return s;
}

}  // namespace

std::string config_key(const std::string& option_name) {
  std::string key = option_name.substr(option_name.find_first_not_of('-'));
  std::replace(key.begin(), key.end(), '-', '_');
  return key;
}

std::vector<std::string> restore_recorded_options(CLI::App& sub, const std::vector<std::string>& names,
                                                  const RunConfig& run_config, const std::filesystem::path& config_file) {
  // The settings as config.json words them, which is how the command line words them too.
  const nlohmann::json config = to_json(run_config);
  std::vector<std::string> notes;
  for (const std::string& name : names) {
    CLI::Option* opt = sub.get_option(name);  // throws for a name the command does not have: a bug here
    const std::string key = config_key(name);
    if (!config.contains(key)) throw std::logic_error(name + " is not a setting a run records");
    const nlohmann::json& recorded = config[key];
    if (opt->count() > 0) {
      if (!same_value(*opt, recorded)) {
        const std::string given = opt->get_expected_min() == 0 ? name : name + " " + joined(opt->results());
        notes.push_back(given + " overrides the run's recorded " + joined(as_words(recorded)));
      }
      continue;
    }
    try {
      opt->add_result(as_words(recorded));
      opt->run_callback();
    } catch (const CLI::Error& e) {
      throw std::runtime_error(config_file.string() + ": run config field '" + key + "' is " +
                               quote_user_text(recorded.dump()) + ", which " + name + " refuses: " + e.what());
    }
    // Counted as not given again, so that later checks of what the user typed see only that.
    opt->clear();
  }
  return notes;
}

}  // namespace splat::app
