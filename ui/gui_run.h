#pragma once
// The GUI's side of run folders (core/run/run_folder.h): where a GUI run goes by default, and the
// plots of a run read back from its metrics.jsonl. No ImGui or GL.
#include <filesystem>
#include <string>

#include "core/scene/scene.h"
#include "ui/metric_history.h"

namespace splat::ui {

// Whether `path` is a run folder to open as a run (it has a config.json), not as a scene.
bool is_run_folder(const std::filesystem::path& path);

// Whether `dir` holds any of a run's files (config.json, metrics, checkpoint, PLY).
bool holds_run(const std::filesystem::path& dir);

// runs/<scene folder name> under `base`, absolute; when that folder already holds a run, the first
// of runs/<name>-2, -3, ... that does not, so that a new run never lands on an old one.
std::filesystem::path default_run_dir(const std::filesystem::path& base, const Scene& scene);

// A run's metrics.jsonl as plot history; lines that do not parse are skipped (a run stopped
// mid-write leaves at most one). A missing file is an empty history.
MetricHistory read_metric_history(const std::filesystem::path& metrics_file);

}  // namespace splat::ui
