#pragma once
// A fault planted in a training run on purpose, to rehearse what a real one does to a job: every other
// rank must stop within a bounded time with one line naming the failed rank, and the last checkpoint
// must stay intact (docs/ARCHITECTURE.md "Failures"). Planted through the environment, so that the
// same binary is tested as users run it (threads, mpirun processes, the GUI):
//
//   SPLATLAB_FAULT=KIND:RANK:IMAGES
//     oom   rank RANK fails as an allocation that found no memory does (kernels::OutOfMemory)
//     exit  rank RANK's process ends at once, without unwinding or flushing (as `kill -9` leaves it)
//   once that rank has trained IMAGES images of the budget (after the step that reached them, and
//   after that step's periodic checkpoint).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace splat {

enum class FaultKind { OutOfMemory, Exit };

struct PlantedFault {
  FaultKind kind = FaultKind::OutOfMemory;
  int rank = 0;
  int64_t images = 0;
};

// The fault `text` describes (KIND:RANK:IMAGES); throws std::invalid_argument saying what is wrong.
PlantedFault parse_fault(std::string_view text);

// SPLATLAB_FAULT's fault, nullopt when it is unset or empty; read each call. Throws
// std::invalid_argument naming the variable when its value is malformed.
std::optional<PlantedFault> planted_fault_from_env();

// Whether `fault` fires on rank `rank` once it has trained `images_done` images.
bool fault_due(const std::optional<PlantedFault>& fault, int rank, int64_t images_done);

// Fires `fault` on rank `rank` ("rank 1 (CPU)", for the exit's last line) of device `device` ("CUDA
// device 1", for the out-of-memory message): throws kernels::OutOfMemory, or ends the process.
[[noreturn]] void fire_fault(const PlantedFault& fault, const std::string& rank, const std::string& device);

}  // namespace splat
