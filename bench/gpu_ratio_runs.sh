#!/usr/bin/env bash
# Whole training runs of one splatlab binary over a list of settings, one after the other in one device
# run, so that images/s compare as ratios (one GPU against two at the same batch, and so on).
#   bench/gpu_ratio_runs.sh BIN DATA OUT [IMAGES] < RUNS
# RUNS: one line per setting, "scene | seeds | train flags", e.g. "bonsai | 0 1 | --batch-size 4 --gpus 2".
# OUT receives each run's log, its metrics.jsonl (TAG.metrics.jsonl) and summary.md, a table with one row per
# run, appended as each ends (so a device run cut short still returns the runs that finished).
# Runs side by side on one GPU each: bench/gpu_queue_runs.sh.
set -euo pipefail
bin=$1 data=$2 out=$3 images=${4:-30000}
# shellcheck source=bench/train_row.sh
source "$(dirname "$0")/train_row.sh"
mkdir -p "$out"
summary_header "$out"
while IFS='|' read -r scene seeds flags; do
  scene=$(xargs <<<"$scene") flags=$(xargs <<<"$flags")
  [ -n "$scene" ] || continue
  for seed in $seeds; do train_row "$bin" "$data" "$out" "$images" "$scene" "$seed" "$flags"; done
done
cat "$out/summary.md"
