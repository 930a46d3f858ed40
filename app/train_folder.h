#pragma once
// Where `splatlab train` writes, decided before anything is loaded so that a refusal costs no
// time: a new run folder (--out, else runs/<scene name>), refused when it already holds a run
// unless --overwrite; or, for --resume RUN, the folder RUN itself, whose config.json supplies the
// scene and every recorded option the command line leaves out (app/recorded_options.h).
#include <filesystem>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "core/run/run_folder.h"

namespace splat::app {

struct TrainFolderPlan {
  std::filesystem::path dir;
  bool continues = false;            // dir is the resumed run's own folder: opened, metrics appended
  std::filesystem::path checkpoint;  // the checkpoint --resume names (empty: a fresh run)
  std::vector<std::string> notes;    // recorded settings the command line overrides, for the caller to print
};

// `scene` is the scene argument, empty when it was left out (a bare --resume takes the run's);
// `recorded_options` are the options --resume restores. Throws UsageError for arguments that name no run or cannot go together, RunFolderError for a
// folder that is taken.
TrainFolderPlan plan_train_folder(CLI::App& train, std::string& scene, const std::string& resume, const std::string& out,
                                  bool overwrite, const std::vector<std::string>& recorded_options);

// The folder the plan names: opened when it continues the run, else created (RunFolder::create).
RunFolder open_train_folder(const TrainFolderPlan& plan, bool overwrite);

}  // namespace splat::app
