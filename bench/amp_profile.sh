#!/bin/bash
# Where mixed precision's step time goes against fp32 (the images/s target of docs/ARCHITECTURE.md
# "Precision columns"), on the late steps of a schedule, when the model is at its final size. From
# the repository root, binaries in $B (default build/app), scenes in .data/:
#   bash bench/amp_profile.sh [SCENE]          # default bonsai
# Trains SCENE in fp32 to image $STOP of a 30k schedule (a checkpoint), then from that one checkpoint
# runs $STEPS more images three ways: plain fp32 and plain --amp for the loop time (no --profile,
# which waits for every step), then --profile in each mode for the phase table. Settings through the
# environment: PROFILE_OUT (logs and checkpoints, default /tmp/amp_profile), STOP (default 15000), STEPS (default 2000),
# EXTRA (more train flags, e.g. "--device cpu --data-factor 8" to check the script without a GPU).
set -u
B=${B:-build/app}
OUT=${PROFILE_OUT:-/tmp/amp_profile}  # not $OUT: on the device machine that folder comes back, and checkpoints are large
STOP=${STOP:-15000}
STEPS=${STEPS:-2000}
EXTRA=${EXTRA:-}
scene=${1:-bonsai}
mkdir -p "$OUT"
scene_path() { if [ "$1" = demo ]; then echo demo; else echo ".data/$1"; fi; }  # demo: the built-in scene
nvidia-smi -L 2>/dev/null
base="$OUT/ck_$scene"
rm -rf "$base"
"$B/splatlab" train "$(scene_path "$scene")" --images 30000 --stop-at "$STOP" --eval-every 0 --out "$base" $EXTRA \
  > "$OUT/${scene}_base.log" 2>&1 || { echo "base run failed:"; tail -5 "$OUT/${scene}_base.log"; exit 1; }
end=$((STOP + STEPS))
for mode in plain profile; do
  for prec in fp32 amp; do
    run="$OUT/run_${scene}_${prec}_${mode}"
    log="$OUT/${scene}_${prec}_${mode}.log"
    rm -rf "$run"
    cp -r "$base" "$run"
    flags=""
    [ "$prec" = amp ] && flags="--amp"
    [ "$mode" = profile ] && flags="$flags --profile"
    "$B/splatlab" train --resume "$run" --stop-at "$end" --eval-every 0 $flags $EXTRA > "$log" 2>&1
    echo "== $scene $prec $mode: exit $?"
    if [ "$mode" = plain ]; then
      tr '\r' '\n' < "$log" | grep -aE 'resumed|^done|stopped|rror|images/s' | tail -n 3
    else
      sed -n '/^profile over/,$p' "$log"
    fi
  done
done
