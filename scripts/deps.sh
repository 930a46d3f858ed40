#!/usr/bin/env bash
# Installs what splatlab needs on a Debian/Ubuntu machine that has the CUDA toolkit, and prints
# nothing when everything is already there. Sourced by scripts/build.sh (it exports PATH and the
# ccache settings); it leaves the caller's shell options as they were.
SPLATLAB_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

splatlab_install_deps() (
  set -euo pipefail
  packages=(cmake ninja-build ccache pkg-config g++ python3 python3-venv
            libimgui-dev libglfw3-dev libgl-dev libegl-dev catch2 libcli11-dev nlohmann-json3-dev libstb-dev
            libjpeg-dev  # JPEG photos: libjpeg-turbo (Debian's libjpeg62-turbo, Ubuntu's libjpeg-turbo8)
            xvfb xauth
            clang libclang-rt-dev lld  # the fuzz targets (fuzz/): clang, libFuzzer + sanitizer runtimes, lld
            libopenmpi-dev openmpi-bin)  # MPI ranks (core/transport/mpi): CPU ranks as processes, NCCL bootstrap
  missing=()
  for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if ((${#missing[@]})); then
    echo "splatlab: installing ${missing[*]}"
    sudo_cmd=(); [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
    "${sudo_cmd[@]}" apt-get update -qq
    DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  fi
  # The glad2 GL loader generator lives in a venv inside the checkout (ignored by git).
  if [ ! -x "$SPLATLAB_ROOT/.venv/bin/glad" ]; then
    echo "splatlab: creating .venv with the glad2 generator"
    python3 -m venv "$SPLATLAB_ROOT/.venv"
    "$SPLATLAB_ROOT/.venv/bin/pip" install -q --disable-pip-version-check glad2
  fi
)

splatlab_install_deps || { echo "splatlab: setting up dependencies failed" >&2; return 1 2>/dev/null || exit 1; }

# nvcc from the CUDA toolkit (its usual places when it is not on PATH).
if ! command -v nvcc >/dev/null; then
  for d in /usr/local/cuda/bin /usr/lib/cuda/bin; do
    if [ -x "$d/nvcc" ]; then export PATH="$d:$PATH"; break; fi
  done
fi
command -v nvcc >/dev/null || { echo "splatlab: nvcc not found: install the CUDA toolkit first" >&2; return 1 2>/dev/null || exit 1; }

# ccache shared between checkouts: paths are hashed relative to the checkout.
export CCACHE_BASEDIR="$SPLATLAB_ROOT" CCACHE_NOHASHDIR=1 CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-5G}
