#!/bin/bash
# The one-GPU overhead target of docs/ARCHITECTURE.md "Targets" (R ranks on one GPU against one rank
# at the same batch: at most 15 % at R = 2, batch 2), and where the time goes. From the repository root, with the binaries built in
# build/ (targets splatlab and bench_exchange) and the scenes in .data/:
#   bash bench/ranks_overhead.sh
# Settings through the environment: OUT (the logs; default /tmp/ranks_overhead), IMAGES (default 6000),
# SCENES (default "bonsai cup"), EXCHANGE=0 skips bench_exchange, EXTRA (more train flags, e.g.
# "--device cpu --data-factor 8" for a check of the script without a GPU).
# Per scene (bonsai, cup) and rank count (1, 2 on GPU 0, in-process ranks, one stream each), at batch 2
# over 6000 images: a plain run for the loop time, then a --profile run for rank 0's phase table
# (with ranks: the sharded step's phases, "sharded: ..."; --profile waits for every step, so its loop
# time is not the benchmark). Then bench_exchange: ShardedStep alone, median of 15 synchronised steps,
# with rank 0's phases per configuration.
set -u
B=${B:-build}
OUT=${OUT:-/tmp/ranks_overhead}
IMAGES=${IMAGES:-6000}
SCENES=${SCENES:-bonsai cup}
EXTRA=${EXTRA:-}
mkdir -p "$OUT"
nvidia-smi -L 2>/dev/null
for scene in $SCENES; do
  for ranks in 1 2; do
    for mode in plain profile; do
      run="$OUT/run_${scene}_r${ranks}_${mode}"
      log="$OUT/${scene}_r${ranks}_${mode}.log"
      flags=""; [ "$mode" = profile ] && flags="--profile"
      rm -rf "$run"
      start=$(date +%s%N)
      "$B/app/splatlab" train ".data/$scene" --images "$IMAGES" --batch-size 2 --ranks "$ranks" \
        --eval-every "$IMAGES" --out "$run" $flags $EXTRA > "$log" 2>&1
      rc=$?
      ms=$(( ($(date +%s%N) - start) / 1000000 ))
      echo "== $scene, $ranks rank(s), $mode: exit $rc, $ms ms wall (whole process, loading included)"
      if [ "$mode" = plain ]; then
        tr '\r' '\n' < "$log" | grep -aE '^done:|rror' | tail -n 3
      else
        sed -n '/^profile over/,$p' "$log"
      fi
    done
  done
done
[ "${EXCHANGE:-1}" = 0 ] && exit 0
echo "== bench_exchange .data/bonsai 3000 15"
"$B/bench/bench_exchange" .data/bonsai 3000 15 2>&1 | tee "$OUT/exchange.txt"
