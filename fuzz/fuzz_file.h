#pragma once
// What every splatlab fuzz target shares: the input becomes a file (the readers take paths, as
// the scene loader hands them over), and the reader's outcome is judged against the promise
// core/scene/scene_errors.h makes for bad input.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <span>
#include <string>

namespace splat::fuzz {

// `name` in this process's scratch folder, rewritten with every input: /dev/shm when there is
// one (tmpfs, so an execution costs no disk I/O), else the temp folder. One folder per process,
// so that parallel fuzzing jobs never share a file; it is removed at a normal exit.
std::filesystem::path scratch_file(const std::string& name);
void write_file(const std::filesystem::path& file, std::span<const uint8_t> bytes);

// Runs read(). The reader may accept the input (read returns) or refuse it the way splatlab
// promises: a std::runtime_error (SceneError, PlyError, CheckpointError) whose message is one line
// starting with the file ("<file>: <problem>"), free of control bytes, and short however long the
// input's tokens are. Every other outcome -- another exception (std::bad_alloc, std::length_error,
// a JSON library error), or a refusal that breaks those rules -- is printed and aborts, which
// libFuzzer records as a crash with the input.
void expect_accept_or_refuse(const std::filesystem::path& file, const std::function<void()>& read);

}  // namespace splat::fuzz
