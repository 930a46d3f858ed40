# Sourced by the bench runners: one whole training run of a splatlab binary, and its row in OUT/summary.md.
#   train_row BIN DATA OUT IMAGES SCENE SEED "FLAGS" [EVAL]
# The run's log goes to OUT/TAG.log and its metrics.jsonl to OUT/TAG.metrics.jsonl (per-rank figures for
# later questions); with EVAL non-empty the run is evaluated per test view into OUT/TAG.eval.txt. Rows are
# appended under a lock, so runs in parallel (one per GPU) share one table. The GPUs are the caller's
# (CUDA_VISIBLE_DEVICES).

summary_header() {
  printf '| scene | flags | seed | GPUs | loop s | images/s | test PSNR | Gaussians |\n|---|---|---|---|---|---|---|---|\n' > "$1/summary.md"
}

train_row() {
  local bin=$1 data=$2 out=$3 images=$4 scene=$5 seed=$6 flags=$7 eval=${8:-}
  local tag run line secs psnr gauss rate
  tag=$(tr -c 'a-z0-9\n' '_' <<<"$scene${flags// /}-s$seed" | tr -d '\n')
  run=$(mktemp -d)/run
  # shellcheck disable=SC2086 # flags is a list of words
  "$bin" train "$data/$scene" --images "$images" --seed "$seed" $flags --out "$run" > "$out/$tag.log" 2>&1 || true
  [ -n "$eval" ] && [ -f "$run/point_cloud.ply" ] && { "$bin" eval "$run" > "$out/$tag.eval.txt" 2>&1 || true; }
  line=$(grep '^done:' "$out/$tag.log" || echo "done: failed in 0 s, 0 Gaussians, test PSNR 0 dB")
  secs=$(sed -E 's/.* in ([0-9.]+) s.*/\1/' <<<"$line")
  psnr=$(sed -E 's/.*test PSNR ([0-9.]+) dB.*/\1/' <<<"$line")
  gauss=$(sed -E 's/.*, ([0-9]+) Gaussians.*/\1/' <<<"$line")
  rate=$(awk -v n="$images" -v s="$secs" 'BEGIN { printf "%.1f", (s > 0 ? n / s : 0) }')
  cp "$run/metrics.jsonl" "$out/$tag.metrics.jsonl" 2>/dev/null || true
  rm -rf "$(dirname "$run")"
  flock "$out/summary.md" printf '| %s | %s | %s | %s | %s | %s | %s | %s |\n' "$scene" "${flags:--}" "$seed" \
    "${CUDA_VISIBLE_DEVICES:-all}" "$secs" "$rate" "$psnr" "$gauss" >> "$out/summary.md"
}
