#!/usr/bin/env bash
# Training on distorted copies of cup (bench/make_distorted_scene) against the original, in both
# undistortion modes, on the GPU machine. Usage (from the repo root, binaries in $BIN, scenes in
# .data/):  bench/distortion_bench.sh <7000|30000> <seeds...>
# Prints one line per evaluation: scene, mode, seed, step, PSNR, SSIM, Gaussians, the training
# loop's time to that step (wall_s) and the whole command's (loading, evaluation, writes included).
# SCENES (default "cup cup_sr cup_ocv") and MODES (default "mask crop"; cup is pinhole: mask only) select runs.
set -euo pipefail
BIN=${BIN:-build/app}
stop=$1; shift
seeds=("$@")
work=${WORK:-/tmp/distortion-bench}
mkdir -p "$work"
[ -d "$work/cup_sr" ] || "${BENCH_BIN:-build/bench}/make_distorted_scene" .data/cup "$work/cup_sr" SIMPLE_RADIAL 0.08 2>/dev/null &
[ -d "$work/cup_ocv" ] || "${BENCH_BIN:-build/bench}/make_distorted_scene" .data/cup "$work/cup_ocv" OPENCV 0.06 0.02 0.002 -0.001 2>/dev/null &
wait
run() {  # scene-folder label mode seed
  local out="$work/run-$2-$3-$4-$stop"
  local t0=$(date +%s%N)
  "$BIN/splatlab" train "$1" --undistort "$3" --seed "$4" --steps 30000 --stop-at "$stop" --eval-every 7000 \
      --log-every 1000 --out "$out" >/dev/null 2>"$out.log" || { echo "$2 $3 $4 FAILED"; tail -3 "$out.log"; return; }
  local t1=$(date +%s%N)
  python3 - "$out/metrics.jsonl" "$2" "$3" "$4" "$(( (t1 - t0) / 1000000 ))" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if '"psnr"' in l]
for r in rows:
    print(f"{sys.argv[2]:8s} {sys.argv[3]:5s} seed {sys.argv[4]} step {r['step']:6d} psnr {r['psnr']:.3f} ssim {r['ssim']:.4f} G {r['gaussians']} train {r['wall_s']:.1f}s command {int(sys.argv[5]) / 1000:.1f}s")
PY
}
for seed in "${seeds[@]}"; do
  for scene in ${SCENES:-cup cup_sr cup_ocv}; do
    folder="$work/$scene"; [ -d "$folder" ] || folder=".data/$scene"
    modes=${MODES:-mask crop}; [ "$folder" = ".data/$scene" ] && modes=mask
    for mode in $modes; do run "$folder" "$scene" "$mode" "$seed"; done
  done
done
