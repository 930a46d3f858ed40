#!/usr/bin/env bash
# Configures and builds into build/ (Ninja, Release, CUDA sm_90 unless SPLATLAB_CUDA_ARCH says otherwise).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/deps.sh"
cd "$SPLATLAB_ROOT"
jobs=${SPLATLAB_JOBS:-$(nproc)}
if [ ! -f build/build.ninja ]; then
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CUDA_ARCHITECTURES="${SPLATLAB_CUDA_ARCH:-90}" >/tmp/splatlab-configure.$$.log 2>&1 \
    || { cat /tmp/splatlab-configure.$$.log; exit 1; }
fi
# The fuzz targets' clang build (fuzz/fuzz_tests.cmake) runs its own Ninja inside this one: the
# same job count for it.
export CMAKE_BUILD_PARALLEL_LEVEL="$jobs"
# Ninja's per-file progress lines are dropped; warnings and errors stay.
set +e
cmake --build build -j "$jobs" 2>&1 | grep -v '^\[[0-9]*/[0-9]*\] '
status=${PIPESTATUS[0]}
set -e
exit "$status"
