#pragma once
// Training checkpoints: parameters, Adam moments and the trainer's state (step, RNGs, camera
// order, strategy state, settings, the views' learned render costs), so that a resumed run continues
// exactly as an uninterrupted one would have (on GPUs, up to the timing the render costs measure).
//
// File layout (little-endian):
//   "SPLATCKP"  8 bytes magic
//   u32         format version (kCheckpointVersion)
//   u64         length of the JSON header, then the header (UTF-8): {"trainer": ..., "sh_degree",
//               "rows", "columns": [{"group", "floats", "storage"}...]} (core/model/param_columns.h order)
//   for each group in header order: value in its "storage" precision ("f32" or "bf16"; files
//               without the field, written before it existed, are f32), then exp_avg and
//               exp_avg_sq as raw f32 arrays
//   u64         FNV-1a 64 hash of everything before it
// Written to "<file>.tmp" and renamed, so a crash mid-write never leaves a half file in place.
#include <cstdint>
#include <filesystem>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "core/model/device_gaussians.h"

namespace splat {

inline constexpr uint32_t kCheckpointVersion = 1;

// A bad, truncated, corrupt or newer-version checkpoint; the message starts with the file.
class CheckpointError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct Checkpoint {
  nlohmann::json trainer;  // Trainer::state()
  GaussianState gaussians;
};

void write_checkpoint(const std::filesystem::path& file, const Checkpoint& ckpt);
// Checks every header field for presence, type and range, and the sizes they imply against the
// file's length, before anything is allocated for them; then the checksum. Any fault is one
// CheckpointError naming the file and, where one is at fault, the field.
Checkpoint read_checkpoint(const std::filesystem::path& file);

class Trainer;
// Trainer <-> checkpoint file. restore checks the trainer state's fields (images and steps
// within the budget, batch size within the scene's training views, ...) before the trainer takes any.
// In distributed mode both are collectives: save gathers the shards and rank 0 writes the whole model;
// restore has every rank read the file and take its block of the rows (another rank count is fine).
void save_trainer_checkpoint(const Trainer& trainer, const std::filesystem::path& file);
void restore_trainer_checkpoint(Trainer& trainer, const std::filesystem::path& file);

}  // namespace splat
