#pragma once
// Counts the times this thread's host code waits for a device to drain its work (a stream or event
// synchronisation, a device-to-host copy that has to wait for the stream): each one leaves the GPU
// idle until the host has launched the next kernels, so a training step should make none in steady
// state (docs/ARCHITECTURE.md, "No host wait in a step"). Every such wait in the code base goes
// through note_host_wait(); tests read the count around steps.
//
// Per thread: every rank thread drives its own device, so each counts its own waits. The CPU backend
// counts the same places (a copy to the host reads results the device computed), so the CPU tests
// see the waits a GPU run would make.
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
