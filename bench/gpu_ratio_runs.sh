#!/usr/bin/env bash
# Whole training runs of one splatlab binary over a list of settings, one after the other in one device
# run, so that images/s compare as ratios (one GPU against two at the same batch, and so on).
#   bench/gpu_ratio_runs.sh BIN DATA OUT [IMAGES] < RUNS
# RUNS: one line per setting, "scene | seeds | train flags", e.g. "bonsai | 0 1 | --batch-size 4 --gpus 2".
# OUT receives each run's log, its metrics.jsonl (TAG.metrics.jsonl) and summary.md, a table with one row per run, appended as each ends (so a
# device run cut short still returns the runs that finished).
set -euo pipefail
bin=$1 data=$2 out=$3 images=${4:-30000}
mkdir -p "$out"
printf '| scene | flags | seed | loop s | images/s | test PSNR | Gaussians |\n|---|---|---|---|---|---|---|\n' > "$out/summary.md"
while IFS='|' read -r scene seeds flags; do
  scene=$(xargs <<<"$scene") flags=$(xargs <<<"$flags")
  [ -n "$scene" ] || continue
  for seed in $seeds; do
    tag=$(tr -c 'a-z0-9\n' '_' <<<"$scene${flags// /}-s$seed" | tr -d '\n')
    run=$(mktemp -d)/run
    # shellcheck disable=SC2086 # flags is a list of words
    "$bin" train "$data/$scene" --images "$images" --seed "$seed" $flags --out "$run" > "$out/$tag.log" 2>&1 || true
    line=$(grep '^done:' "$out/$tag.log" || echo "done: failed in 0 s, 0 Gaussians, test PSNR 0 dB")
    secs=$(sed -E 's/.* in ([0-9.]+) s.*/\1/' <<<"$line")
    psnr=$(sed -E 's/.*test PSNR ([0-9.]+) dB.*/\1/' <<<"$line")
    gauss=$(sed -E 's/.*, ([0-9]+) Gaussians.*/\1/' <<<"$line")
    rate=$(awk -v n="$images" -v s="$secs" 'BEGIN { printf "%.1f", (s > 0 ? n / s : 0) }')
    printf '| %s | %s | %s | %s | %s | %s | %s |\n' "$scene" "${flags:--}" "$seed" "$secs" "$rate" "$psnr" "$gauss" \
      >> "$out/summary.md"
    cp "$run/metrics.jsonl" "$out/$tag.metrics.jsonl" 2>/dev/null || true  # per-rank figures for later questions
    rm -rf "$(dirname "$run")"
  done
done
cat "$out/summary.md"
