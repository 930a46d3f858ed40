# Device run 2: the forward projection's SH rows staged in shared memory where at least EXP_SH_STAGE %
# of a block's Gaussians write a pair (new; 0: always, 101: never), against b7823b4 (old); and the
# capacity plan's first margin (EXP_MARGIN, 1.25 in old) at 1.1 with its overflow counts.
# bench_raster of four variants side by side, the [gpu] suites of new at 0 and 101, bonsai --profile
# over 5,000 images at batch 1 and 4, then 30k --profile runs at margin 1.1 (bonsai, cup; batch 1, 4).
set -f
L=$OUT/l; mkdir -p $L; R=/tmp/runs; mkdir -p $R; nvidia-smi -L > $L/gpus.txt
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*" >> $L/order.txt; tar -C $L -cf $OUT/logs.tar .; }
tests() { local pct=$1; shift; for t in "$@"; do set -- $t; s=$(date +%s)
    EXP_SH_STAGE=$pct CUDA_VISIBLE_DEVICES=$3 timeout 200 ./${1}_new "$2" > $L/$1-${2//[\[\]]/}-$pct.txt 2>&1; echo "$1 $2 pct=$pct rc=$? $(tail -2 $L/$1-${2//[\[\]]/}-$pct.txt | tr '\n' ' ') ($(( $(date +%s)-s )) s)" >> $L/tests.txt; done; }
braster() { EXP_SH_STAGE=$3 EXP_MARGIN=$4 CUDA_VISIBLE_DEVICES=$1 ./bench_raster_$2 > $L/bench_raster_$2_pct$3_m$4.txt 2>&1; }
braster 0 new 25 1.25 & braster 1 new 0 1.25 & braster 2 new 101 1.25 & braster 3 old 25 1.25 & wait
braster 0 new 25 1.1 & braster 1 old 25 1.25 & braster 2 new 25 1.25 & wait; el "bench_raster"
tests 0 "test_kernels [gpu] 0" "test_core [gpu] 0" & tests 101 "test_kernels [gpu] 1" "test_core [gpu] 1" & wait; el "tests"
prof() { local g=$1 bin=$2 pct=$3 b=$4; EXP_SH_STAGE=$pct CUDA_VISIBLE_DEVICES=$g ./splatlab_$bin train gpu-data/bonsai --images 5000 --eval-every 0 \
  --log-every 5000 --profile --batch-size $b --seed 0 --out $R/prof-$g 2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/prof-$bin-pct$pct-bonsai-b$b-5000.log; rm -rf $R/prof-$g; }
for b in 1 4; do prof 0 new 25 $b & prof 1 new 0 $b & prof 2 new 101 $b & prof 3 old 25 $b & wait; done; el "profiles"
job() { local g=$1 m=$2 scene=$3 b=$4; EXP_MARGIN=$m CUDA_VISIBLE_DEVICES=$g ./splatlab_new train gpu-data/$scene --seed 0 --batch-size $b --profile \
  --out $R/m-$g 2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/train-m$m-$scene-b$b.log; rm -rf $R/m-$g; }
job 0 1.1 bonsai 1 & job 1 1.1 bonsai 4 & job 2 1.1 cup 1 & job 3 1.1 cup 4 & wait; el "30k margin 1.1"
