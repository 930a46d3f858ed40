#!/usr/bin/env bash
# Whole one-GPU training runs over every GPU of the machine at once: the runs of a list of settings go
# into one queue (in the order given: put the longest first) and each GPU takes the next when its run
# ends, so a sweep of many settings and seeds takes the machine's time divided by its GPUs. Each run is
# alone on its GPU, so its images/s compares with the others' of the same device run.
#   bench/gpu_queue_runs.sh BIN DATA OUT [IMAGES] [CUTOFF_S] [EVAL] < RUNS
# RUNS as bench/gpu_ratio_runs.sh's: "scene | seeds | train flags" (one GPU each: no --gpus). Runs not
# started CUTOFF_S seconds after the start (default 480: inside a 600 s device call) are listed in
# OUT/skipped.txt instead. EVAL non-empty: each run is also evaluated per test view (TAG.eval.txt).
set -euo pipefail
bin=$1 data=$2 out=$3 images=${4:-30000} cutoff=${5:-480} eval=${6:-}
# shellcheck source=bench/train_row.sh
source "$(dirname "$0")/train_row.sh"
mkdir -p "$out"
summary_header "$out"
queue=$out/.queue
: > "$queue"
while IFS='|' read -r scene seeds flags; do
  scene=$(xargs <<<"$scene") flags=$(xargs <<<"$flags")
  [ -n "$scene" ] || continue
  for seed in $seeds; do printf '%s|%s|%s\n' "$scene" "$seed" "$flags" >> "$queue"; done
done
echo 0 > "$queue.next"
start=$(date +%s)
# The next line of the queue, under a lock (empty when none is left).
take() { flock "$queue.next" bash -c 'n=$(cat "$1"); echo $((n + 1)) > "$1"; sed -n "$((n + 1))p" "$2"' _ "$queue.next" "$queue"; }
lane() {
  local job scene seed flags
  while job=$(take) && [ -n "$job" ]; do
    IFS='|' read -r scene seed flags <<<"$job"
    if [ $(( $(date +%s) - start )) -gt "$cutoff" ]; then echo "$job" >> "$out/skipped.txt"; continue; fi
    CUDA_VISIBLE_DEVICES=$1 train_row "$bin" "$data" "$out" "$images" "$scene" "$seed" "$flags" "$eval"
  done
}
gpus=$(nvidia-smi -L | wc -l)
for ((g = 0; g < gpus; ++g)); do lane "$g" & done
wait
rm -f "$queue" "$queue.next"
cat "$out/summary.md"
