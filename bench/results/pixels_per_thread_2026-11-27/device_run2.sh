# Device run 2: two pixels a thread in the backward blend with the chunk plan sized by that kernel's
# occupancy (SPLAT_BWD_KP=2 now also sets blend_backward_slots), against one pixel (SPLAT_BWD_KP=1,
# main's kernel). Binaries: _b (8 blocks an SM at two pixels, 64 registers), _c (9 blocks, 56).
# bench_raster on GPUs 0-2 (rotated once), --profile of bonsai at batch 1 and 4, then 30k runs of
# bonsai (batch 1 and 4) and cup (batch 1), seeds 0 and 1, kp1 against kp2 side by side.
set -f
L=$OUT/l; mkdir -p $L; R=/tmp/runs; mkdir -p $R; nvidia-smi -L > $L/gpus.txt
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*" >> $L/order.txt; }
V=(b:1 b:2 c:2)
SPLAT_SLOTS_PRINT=1 SPLAT_BWD_KP=2 CUDA_VISIBLE_DEVICES=3 ./test_kernels_b "[gpu]" > $L/test_kernels_b-kp2.txt 2>&1; echo "test_kernels_b kp2 rc=$? $(tail -2 $L/test_kernels_b-kp2.txt | tr '\n' ' ')" > $L/tests.txt &
braster() { local r=$1 g=$2 v=${V[$(( (g + r) % 3 ))]}; SPLAT_BWD_KP=${v#*:} CUDA_VISIBLE_DEVICES=$g ./bench_raster_${v%:*} --quick > $L/bench_raster_${v%:*}${v#*:}-r$r.txt 2>&1; }
for r in 0 1; do braster $r 0 & braster $r 1 & braster $r 2 & wait; done; el "bench_raster"
prof() { local g=$1 v=$2 scene=$3 b=$4 n=$5; local t=${v%:*}${v#*:}; SPLAT_SLOTS_PRINT=1 SPLAT_BWD_KP=${v#*:} CUDA_VISIBLE_DEVICES=$g ./splatlab_${v%:*} train gpu-data/$scene --images $n --eval-every 0 \
  --log-every $n --profile --batch-size $b --seed 0 --out $R/prof-$t-$scene-$b-$n 2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/prof-$t-$scene-b$b-$n.log; rm -rf $R/prof-$t-$scene-$b-$n; }
for g in 0 1 2; do prof $g ${V[$g]} bonsai 1 5000 & done; wait
for g in 0 1 2; do prof $g ${V[$(( (g + 1) % 3 ))]} bonsai 4 10000 & done; wait; el "profiles"
job() { local g=$1 kp=$2 scene=$3 b=$4 seed=$5; SPLAT_BWD_KP=$kp CUDA_VISIBLE_DEVICES=$g ./splatlab_b train gpu-data/$scene --seed $seed --batch-size $b \
  --out $R/$kp-$scene-$b-$seed 2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/train-kp$kp-$scene-b$b-s$seed.log; rm -rf $R/$kp-$scene-$b-$seed; }
for s in 0 1; do
  job $s 1 bonsai 1 $s & job $(( 1 - s )) 2 bonsai 1 $s &
  { job $(( 2 + s )) 1 cup 1 $s; job $(( 2 + s )) 1 bonsai 4 $s; } & { job $(( 3 - s )) 2 cup 1 $s; job $(( 3 - s )) 2 bonsai 4 $s; } &
  wait; el "30k seed $s"
done
tar -C $L -cf $OUT/logs.tar .
