#include "app/train_folder.h"

#include <optional>
#include <stdexcept>
#include <system_error>

#include "app/path_args.h"
#include "app/recorded_options.h"
#include "app/usage_error.h"
#include "core/util/user_text.h"

namespace splat::app {
namespace {

namespace fs = std::filesystem;

bool same_path(const fs::path& a, const fs::path& b) {
  std::error_code ea, eb;
  const fs::path ca = fs::weakly_canonical(a, ea), cb = fs::weakly_canonical(b, eb);
  return !ea && !eb && ca == cb;
}

// The last component of a folder argument, also when it ends in a separator ("data/cup/").
fs::path folder_name(const std::string& folder) {
  const fs::path p = fs::absolute(folder).lexically_normal();
  return p.has_filename() ? p.filename() : p.parent_path().filename();
}

// The run a --resume argument belongs to: the folder itself, or a checkpoint file's folder when
// that holds a run config (a lone checkpoint file carries no settings).
std::optional<fs::path> resumed_run(const fs::path& resume) {
  if (fs::is_directory(resume)) return resume;
  const fs::path parent = resume.has_parent_path() ? resume.parent_path() : fs::path(".");
  if (fs::exists(parent / run_files::kConfig)) return parent;
  return std::nullopt;
}

}  // namespace

TrainFolderPlan plan_train_folder(CLI::App& train, std::string& scene, const std::string& resume, const std::string& out,
                                  bool overwrite, const std::vector<std::string>& recorded_options) {
  if (!resume.empty()) {
    check_path_argument("--resume", resume);
    std::error_code ec;
    if (!fs::exists(resume, ec))
      throw UsageError("--resume " + quote_user_text(resume, 400) + ": no such run folder (or checkpoint file)");
  }
  if (!out.empty()) check_path_argument("--out", out);
  TrainFolderPlan plan;
  std::optional<fs::path> run;
  if (!resume.empty()) {
    plan.checkpoint = fs::is_directory(resume) ? fs::path(resume) / run_files::kCheckpoint : fs::path(resume);
    run = resumed_run(resume);
  }
  if (run) {
    const RunConfig config = read_run_config(*run);
    plan.notes = restore_recorded_options(train, recorded_options, config, *run / run_files::kConfig);
    const std::string recorded = config.scene == "demo" ? "demo" : config.scene_folder;
    if (scene.empty()) scene = recorded;
    else if (scene != recorded && !same_path(scene, recorded))
      plan.notes.push_back("scene " + quote_user_text(scene, 400) + " overrides the run's recorded " +
                           quote_user_text(recorded, 400));
  }
  if (scene.empty())
    throw UsageError("no scene: name a COLMAP scene folder (or 'demo'), or --resume a run folder");
  if (run && (out.empty() || same_path(out, *run))) {
    if (overwrite)
      throw UsageError("--overwrite: --resume " + quote_user_text(run->string(), 400) +
                                  " continues that run in place; give --out a new folder to continue a copy elsewhere");
    plan.dir = *run;
    plan.continues = true;
    return plan;
  }
  plan.dir = !out.empty() ? fs::path(out) : fs::path("runs") / (scene == "demo" ? fs::path("demo") : folder_name(scene));
  RunFolder::check_new(plan.dir, overwrite);
  return plan;
}

RunFolder open_train_folder(const TrainFolderPlan& plan, bool overwrite) {
  return plan.continues ? RunFolder::open(plan.dir) : RunFolder::create(plan.dir, overwrite);
}

}  // namespace splat::app
