// `splatlab export <run|file> --out FILE [--overwrite]`: a run's Gaussians (or those of a PLY or
// checkpoint file) written in the format FILE's ending names (core/model/splat_files.h), for other tools.
#include <cstdio>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>
#include <system_error>

#include "app/commands.h"
#include "app/path_args.h"
#include "app/usage_error.h"
#include "core/model/splat_files.h"
#include "core/run/run_config.h"
#include "core/train/checkpoint.h"
#include "core/util/user_text.h"

namespace splat::app {
namespace {

namespace fs = std::filesystem;

struct ExportArgs {
  std::string source;
  std::string out;
  bool overwrite = false;
};

// A run folder's latest Gaussians: the newer of its checkpoint and its PLY (a run stopped by a signal
// or saved from the GUI may hold a checkpoint newer than its last PLY, or the other way round).
fs::path latest_in_run(const fs::path& run) {
  const fs::path ckpt = run / run_files::kCheckpoint, ply = run / run_files::kPly;
  const bool has_ckpt = fs::is_regular_file(ckpt), has_ply = fs::is_regular_file(ply);
  if (!has_ckpt && !has_ply)
    throw std::invalid_argument("run folder " + quote_user_text(run.string(), 400) + " holds neither " + run_files::kCheckpoint +
                                " nor " + run_files::kPly + " (a run that has saved nothing yet?)");
  if (!has_ply) return ckpt;
  if (!has_ckpt) return ply;
  return fs::last_write_time(ckpt) > fs::last_write_time(ply) ? ckpt : ply;
}

GaussianModel load_source(const fs::path& source, fs::path& read_from) {
  if (!fs::exists(source))
    throw UsageError(quote_user_text(source.string(), 400) + ": no such run folder or file");
  read_from = fs::is_directory(source) ? latest_in_run(source) : source;
  if (read_from.extension() == ".ckpt") return read_checkpoint(read_from).gaussians.to_model();
  return read_splats(read_from);
}

int run_export(const ExportArgs& a) {
  check_path_argument("source", a.source);
  check_path_argument("--out", a.out);
  const fs::path out = a.out;
  const auto format = splat_format_of(out);
  if (!format)
    throw UsageError("--out " + quote_user_text(a.out, 400) + ": unknown extension; export writes " +
                     supported_splat_formats());
  if (fs::exists(out) && !a.overwrite)
    throw std::invalid_argument(quote_user_text(a.out, 400) + " already exists; give --overwrite to replace it");
  fs::path read_from;
  const GaussianModel model = load_source(a.source, read_from);
  // Written beside the target and renamed: a failed export leaves no half file, and an existing one
  // stays whole until the new one is complete. The name keeps the target's ending (the format).
  const fs::path tmp = out.parent_path() / (".export-" + out.filename().string());
  try {
    write_splats(tmp, model);
    fs::rename(tmp, out);
  } catch (...) {
    std::error_code ignored;
    fs::remove(tmp, ignored);
    throw;
  }
  std::printf("wrote %s: %lld Gaussians from %s, %s, %.1f MiB\n", out.string().c_str(), static_cast<long long>(model.size()),
              read_from.string().c_str(), splat_format_info(*format).description, double(fs::file_size(out)) / (1 << 20));
  return 0;
}

std::string out_help() {
  std::string h = "File to write; its ending chooses the format:";
  for (auto it = std::rbegin(kSplatFormats); it != std::rend(kSplatFormats); ++it)
    h += std::string(" ") + it->extension + " (" + it->description + ")" + (it + 1 == std::rend(kSplatFormats) ? "" : ";");
  return h;
}

}  // namespace

CommandRun add_export_command(CLI::App& app) {
  auto* sub = app.add_subcommand("export", "Write a run's Gaussians for other tools: 3DGS PLY or compressed PLY");
  auto a = std::make_shared<ExportArgs>();
  sub->add_option("source", a->source,
                  "Run folder (its newer of checkpoint.ckpt and point_cloud.ply), or a .ply, .compressed.ply or .ckpt file")
      ->required();
  sub->add_option("--out", a->out, out_help())->required();
  sub->add_flag("--overwrite", a->overwrite, "Replace --out when it exists");
  return [a]() { return run_export(*a); };
}

}  // namespace splat::app
