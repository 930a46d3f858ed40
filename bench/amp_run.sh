#!/bin/bash
# Mixed precision against fp32 on one GPU, against the targets of docs/ARCHITECTURE.md "Precision
# columns" (the results go to bench/TRAINING.md).
# From the repository root, with the binaries built into .gpubin/ and the scenes in .data/:
#   source .device/env.sh; bash bench/amp_run.sh                 # everything (about 20 minutes)
#   bash bench/amp_run.sh bonsai 0 1                             # a part: one scene, some seeds
# Each run: splatlab train SCENE --images 30000 [--amp], one seed; nvidia-smi memory.used sampled
# every 200 ms (the peak includes the CUDA context, as in the earlier tables). One line per run:
# PSNR, Gaussians, wall seconds, images/s, peak MiB, and the training state per Gaussian and the
# memory by role from the last metrics record (core/train/metrics_log.h).
B=${B:-.gpubin}
OUT=${OUT:-/tmp/amp_out}
mkdir -p "$OUT"
nvidia-smi -L
scenes=${1:-"bonsai cup"}
[ $# -gt 0 ] && shift
seeds_for() { local s=$1; shift; if [ $# -gt 0 ]; then echo "$@"; elif [ "$s" = cup ]; then echo 0; else echo 0 1 2; fi; }
summary() {  # metrics.jsonl -> one line
  python3 - "$1" <<'PY'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
last = recs[-1]
psnr = next((r["psnr"] for r in reversed(recs) if "psnr" in r), float("nan"))
m = last.get("memory", {})
print("psnr %.3f gaussians %d wall_s %.1f images/s %.1f state_B/G %.0f params %.0f MiB moments %.0f MiB grads %.0f MiB photos %.0f MiB workspace %.0f MiB"
      % (psnr, last["gaussians"], last["wall_s"], last["images"] / last["wall_s"], last.get("state_bytes_per_gaussian", 0),
         m.get("parameters_mb", 0), m.get("optimizer_mb", 0), m.get("gradients_mb", 0), m.get("photos_mb", 0),
         m.get("workspace_mb", 0)))
PY
}
for scene in $scenes; do
  for seed in $(seeds_for "$scene" "$@"); do
    for mode in fp32 amp; do
      tag=${scene}_${mode}_s$seed
      flag=""; [ $mode = amp ] && flag="--amp"
      rm -rf /tmp/amp_run
      (while true; do nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits >> "$OUT/mem_$tag.txt"; sleep 0.2; done) &
      sampler=$!
      $B/splatlab train .data/$scene --images 30000 --eval-every 30000 --log-every 1000 --seed $seed $flag \
        --out /tmp/amp_run > "$OUT/train_$tag.log" 2>&1
      kill $sampler
      cp /tmp/amp_run/metrics.jsonl "$OUT/metrics_$tag.jsonl"
      echo "$tag: $(summary "$OUT/metrics_$tag.jsonl") peak $(sort -n "$OUT/mem_$tag.txt" | tail -1) MiB"
    done
  done
done
