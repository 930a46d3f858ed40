#pragma once
// Counts the times this thread's host code waits for a device to drain its work (a stream or event
// synchronisation, a copy between the host and a device, which waits for the stream, a copy between
// CUDA streams or devices, an NCCL collective watched until its stream has run it): each one leaves
// the GPU idle until the host has launched the next kernels, so a training step should make none in
// steady state (docs/ARCHITECTURE.md, "No host wait in a step"). Every such wait in the code base
// goes through note_host_wait(); tests read the count around steps. Waits for work that still has
// later work queued behind it (the staging ring's and kernels/host_copies.h's throttles, which only
// stop the host from running far ahead) leave the device busy and are not counted.
//
// Per thread: every rank thread drives its own device, so each counts its own waits. The CPU backend
// counts the same places (the copies to and from the host of kernels/buffer.h, the phase timer's
// wait), where it waits for nothing, so that the CPU tests see the waits a GPU run would make.
#include <cstdint>

namespace splat::kernels {

// Records one host wait; `what` (a string literal) names it for last_host_wait().
void note_host_wait(const char* what);

// This thread's host waits so far.
uint64_t host_waits();

// The name of this thread's most recent host wait ("" before the first): what a test names when a
// step waited where it should not.
const char* last_host_wait();

}  // namespace splat::kernels
