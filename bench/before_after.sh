#!/usr/bin/env bash
# Images/s and PSNR of two splatlab binaries side by side (one device run, so that the
# figures compare as ratios): each scene trained by BEFORE, AFTER, in that order, over the same budget.
#   [SEEDS="0 1"] [FLAGS="--batch-size 4 --gpus 2"] bench/before_after.sh BEFORE AFTER DATA OUT [IMAGES] [SCENES...]
# DATA holds the scenes (COLMAP folders); OUT receives each run's log and a summary table (summary.md,
# appended to, so that calls with other FLAGS share one table). SEEDS defaults to 0, FLAGS to none.
set -euo pipefail
before=$1 after=$2 data=$3 out=$4 images=${5:-30000}
shift $(( $# < 5 ? $# : 5 ))
scenes=("$@"); ((${#scenes[@]})) || scenes=(bonsai cup)
seeds=${SEEDS:-0} flags=${FLAGS:-}
tag=$(tr -c 'a-z0-9\n' '_' <<<"${flags// /}" | tr -d '\n')
mkdir -p "$out"
[ -f "$out/summary.md" ] ||
  printf '| scene | flags | seed | binary | loop s | images/s | test PSNR | Gaussians |\n|---|---|---|---|---|---|---|---|\n' > "$out/summary.md"
for scene in "${scenes[@]}"; do
 for seed in $seeds; do
  for which in before after; do
    bin=$before; [ "$which" = after ] && bin=$after
    run=$(mktemp -d)/run
    log="$out/$scene-$tag-s$seed-$which.log"
    # shellcheck disable=SC2086 # FLAGS is a list of words
    "$bin" train "$data/$scene" --images "$images" --seed "$seed" $flags --out "$run" > "$log" 2>&1
    # "done: N images (S steps) in T s, G Gaussians, test PSNR P dB; wrote ..."
    line=$(grep '^done:' "$log")
    secs=$(sed -E 's/.* in ([0-9.]+) s.*/\1/' <<<"$line")
    psnr=$(sed -E 's/.*test PSNR ([0-9.]+) dB.*/\1/' <<<"$line")
    gauss=$(sed -E 's/.*, ([0-9]+) Gaussians.*/\1/' <<<"$line")
    rate=$(awk -v n="$images" -v s="$secs" 'BEGIN { printf "%.1f", n / s }')
    printf '| %s | %s | %s | %s | %s | %s | %s | %s |\n' "$scene" "${flags:--}" "$seed" "$which" "$secs" "$rate" "$psnr" \
      "$gauss" >> "$out/summary.md"
    rm -rf "$(dirname "$run")"
  done
 done
done
cat "$out/summary.md"
