#!/usr/bin/env bash
# Images/s and PSNR of two splatlab binaries side by side on one GPU (one device run, so that the
# figures compare as ratios): each scene trained by BEFORE, AFTER, in that order, over the same budget.
#   bench/before_after.sh BEFORE AFTER DATA OUT [IMAGES] [SCENES...]
# DATA holds the scenes (COLMAP folders); OUT receives each run's log and a summary table (summary.md).
set -euo pipefail
before=$1 after=$2 data=$3 out=$4 images=${5:-30000}
shift $(( $# < 5 ? $# : 5 ))
scenes=("$@"); ((${#scenes[@]})) || scenes=(bonsai cup)
mkdir -p "$out"
printf '| scene | binary | loop s | images/s | test PSNR | Gaussians |\n|---|---|---|---|---|---|\n' > "$out/summary.md"
for scene in "${scenes[@]}"; do
  for which in before after; do
    bin=$before; [ "$which" = after ] && bin=$after
    run=$(mktemp -d)/run
    "$bin" train "$data/$scene" --images "$images" --seed 0 --out "$run" > "$out/$scene-$which.log" 2>&1
    # "done: N images (S steps) in T s, G Gaussians, test PSNR P dB; wrote ..."
    line=$(grep '^done:' "$out/$scene-$which.log")
    secs=$(sed -E 's/.* in ([0-9.]+) s.*/\1/' <<<"$line")
    psnr=$(sed -E 's/.*test PSNR ([0-9.]+) dB.*/\1/' <<<"$line")
    gauss=$(sed -E 's/.*, ([0-9]+) Gaussians.*/\1/' <<<"$line")
    rate=$(awk -v n="$images" -v s="$secs" 'BEGIN { printf "%.1f", n / s }')
    printf '| %s | %s | %s | %s | %s | %s |\n' "$scene" "$which" "$secs" "$rate" "$psnr" "$gauss" >> "$out/summary.md"
    rm -rf "$(dirname "$run")"
  done
done
cat "$out/summary.md"
