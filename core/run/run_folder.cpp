#include "core/run/run_folder.h"

#include <system_error>
#include <utility>

#include "core/model/ply_io.h"
#include "core/train/checkpoint.h"

namespace splat {

namespace fs = std::filesystem;

namespace {

// The files that make a folder a run's, and those a run writes before it has any result.
constexpr const char* kRunFiles[] = {run_files::kConfig, run_files::kMetrics, run_files::kCheckpoint, run_files::kPly};
constexpr const char* kStartFiles[] = {run_files::kConfig, run_files::kMetrics};

bool exists_quietly(const fs::path& p) {
  std::error_code ec;
  return fs::exists(p, ec);
}

// Absolute, normal, and without a trailing separator, so that parent_path() steps up one folder.
fs::path folder_path(const fs::path& dir) {
  fs::path p = fs::absolute(dir).lexically_normal();
  return p.has_filename() ? p : p.parent_path();
}

}  // namespace

void RunFolder::check_new(const fs::path& dir, bool overwrite) {
  std::error_code ec;
  const fs::file_status st = fs::status(dir, ec);
  if (st.type() == fs::file_type::not_found) return;
  if (ec) throw RunFolderError(dir, "cannot look at the run folder: " + ec.message());
  if (!fs::is_directory(st)) throw RunFolderError(dir, "exists and is not a folder; choose another run folder");
  if (overwrite) return;
  for (const char* name : kRunFiles)
    if (exists_quietly(dir / name))
      throw RunFolderError(dir, "already holds a run (" + std::string(name) +
                                    "); pass --overwrite to replace it, --resume to continue it, or choose another folder");
}

RunFolder RunFolder::create(const fs::path& dir, bool overwrite) {
  check_new(dir, overwrite);
  std::error_code ec;
  if (overwrite && fs::is_directory(dir, ec)) {
    for (const char* name : kRunFiles) fs::remove(dir / name, ec);
    fs::remove_all(dir / run_files::kRenders, ec);
    if (ec) throw RunFolderError(dir, "cannot remove the old run: " + ec.message());
  }
  // The topmost missing folder on the way: what a failed start removes again.
  fs::path created_root;
  for (fs::path p = folder_path(dir); !p.empty() && !exists_quietly(p); p = p.parent_path()) {
    created_root = p;
    if (p == p.parent_path()) break;
  }
  fs::create_directories(dir, ec);
  if (ec) throw RunFolderError(dir, "cannot create the run folder: " + ec.message());
  return RunFolder(dir, true, created_root);
}

RunFolder RunFolder::open(const fs::path& dir) {
  read_run_config(dir);  // throws naming the file when it is not a run's
  return RunFolder(dir, false, {});
}

RunFolder RunFolder::written_elsewhere(const fs::path& dir) { return RunFolder(dir, false, {}); }

RunFolder::RunFolder(fs::path dir, bool started_here, fs::path created_root)
    : dir_(std::move(dir)), started_here_(started_here), created_root_(std::move(created_root)) {}

RunFolder::RunFolder(RunFolder&& other) noexcept
    : dir_(std::move(other.dir_)), started_here_(other.started_here_), created_root_(std::move(other.created_root_)) {
  other.started_here_ = false;
}

RunFolder::~RunFolder() {
  if (!started_here_ || has_results()) return;
  std::error_code ec;  // best effort: a destructor reports nothing
  for (const char* name : kStartFiles) fs::remove(dir_ / name, ec);
  fs::remove(config_file().concat(".tmp"), ec);
  if (created_root_.empty()) return;
  // fs::remove leaves a folder that is not empty (something else was put there) in place.
  for (fs::path p = folder_path(dir_);; p = p.parent_path()) {
    if (!fs::remove(p, ec) || p == created_root_ || p == p.parent_path()) break;
  }
}

void RunFolder::attach(RunOptions& options) const {
  options.metrics_file = metrics_file();
  options.append_metrics = !started_here_;
  options.checkpoint_file = checkpoint_file();
}

void RunFolder::save_checkpoint(const Trainer& trainer) const { save_trainer_checkpoint(trainer, checkpoint_file()); }

void RunFolder::save_ply(const GaussianModel& model) const { write_ply(ply_file(), model); }

bool RunFolder::has_results() const { return exists_quietly(checkpoint_file()) || exists_quietly(ply_file()); }

}  // namespace splat
