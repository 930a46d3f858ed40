#pragma once
// A training run's folder, for `splatlab train` and for a GUI training session alike:
//   config.json       what the run was started with (core/run/run_config.h)
//   metrics.jsonl     core/train/metrics_log.h, appended to when the run is continued
//   checkpoint.ckpt   core/train/checkpoint.h (on a signal, on request, periodically, at the end)
//   point_cloud.ply   the Gaussians (at the end and on request)
//   renders/          test renders written by `eval --renders`
//
// No run is overwritten by accident and no failed start leaves anything behind: create() refuses
// a folder that already holds a run unless asked to overwrite it, and a run started by create()
// that never saved a checkpoint or a PLY is removed again when its RunFolder goes away.
#include <filesystem>

#include <nlohmann/json.hpp>

#include "core/model/gaussian_model.h"
#include "core/run/run_config.h"
#include "core/train/training_run.h"

namespace splat {

class Trainer;

class RunFolder {
 public:
  // Throws RunFolderError when `dir` cannot take a new run: it is not a folder, or it already holds
  // a run (any of the run files) and `overwrite` is false. Looks only; changes nothing, so that a
  // command can refuse before it spends time loading a scene.
  static void check_new(const std::filesystem::path& dir, bool overwrite);
  // A folder for a new run: check_new, then the old run's files removed when overwriting and the
  // missing folders created.
  static RunFolder create(const std::filesystem::path& dir, bool overwrite);
  // An existing run's folder, to continue or read it: its config.json must pass read_run_config.
  static RunFolder open(const std::filesystem::path& dir);
  // The folder of a run that another process writes (rank 0 of an MPI job), for its file names alone:
  // nothing is looked at, made or removed.
  static RunFolder written_elsewhere(const std::filesystem::path& dir);

  RunFolder(RunFolder&& other) noexcept;
  RunFolder& operator=(RunFolder&&) = delete;
  RunFolder(const RunFolder&) = delete;
  // A run create() started that holds no checkpoint and no PLY is removed: the files it wrote, then
  // the folders create() made, as far as they are empty. An opened run is never touched.
  ~RunFolder();

  const std::filesystem::path& dir() const { return dir_; }
  std::filesystem::path config_file() const { return dir_ / run_files::kConfig; }
  std::filesystem::path metrics_file() const { return dir_ / run_files::kMetrics; }
  std::filesystem::path checkpoint_file() const { return dir_ / run_files::kCheckpoint; }
  std::filesystem::path ply_file() const { return dir_ / run_files::kPly; }

  RunConfig read_config() const { return read_run_config(dir_); }
  void write_config(const nlohmann::json& config) const { write_run_config(dir_, config); }

  // Points a TrainingRun's metrics log and periodic checkpoints at this folder; the metrics are
  // appended to for an opened (continued) run and started afresh for a new one.
  void attach(RunOptions& options) const;

  void save_checkpoint(const Trainer& trainer) const;
  void save_ply(const GaussianModel& model) const;
  // Whether the run has saved something worth keeping: a checkpoint or a PLY.
  bool has_results() const;

 private:
  RunFolder(std::filesystem::path dir, bool started_here, std::filesystem::path created_root);

  std::filesystem::path dir_;
  bool started_here_;                   // create(): cleaned up unless it has results
  std::filesystem::path created_root_;  // the topmost folder create() made (empty: none)
};

}  // namespace splat
