# Device run 3: the forward blend at two pixels a thread (128-thread blocks) at 8 blocks an SM (f8, 64
# registers) and at 7 (f7, 72), against b7823b4 (old: one pixel a thread, 256-thread blocks, 6 an SM).
# [gpu] suites of f8 and f7; bench_raster of the three side by side, rotated over GPUs 0-2; bonsai
# --profile over 5,000 images at batch 1 and 4; then 30k runs at batch 1 (old against f8, bonsai and cup).
set -f
L=$OUT/l; mkdir -p $L; R=/tmp/runs; mkdir -p $R; nvidia-smi -L > $L/gpus.txt
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*" >> $L/order.txt; tar -C $L -cf $OUT/logs.tar .; }
tests() { local bin=$1; shift; for t in "$@"; do set -- $t; s=$(date +%s)
    CUDA_VISIBLE_DEVICES=$3 timeout 200 ./${1}_$bin "$2" > $L/$1-${2//[\[\]]/}-$bin.txt 2>&1; echo "$1 $2 $bin rc=$? $(tail -2 $L/$1-${2//[\[\]]/}-$bin.txt | tr '\n' ' ') ($(( $(date +%s)-s )) s)" >> $L/tests.txt; done; }
braster() { CUDA_VISIBLE_DEVICES=$1 ./bench_raster_$2 > $L/bench_raster_$2_gpu$1.txt 2>&1; }
tests f8 "test_kernels [gpu] 3" "test_core [gpu] 3" & T=$!
{ braster 0 old; braster 0 f8; } & { braster 1 f8; braster 1 f7; } & { braster 2 f7; braster 2 old; } & wait $T
tests f7 "test_kernels [gpu] 3" "test_core [gpu] 3"; wait; el "bench_raster, tests"
prof() { local g=$1 bin=$2 b=$3; CUDA_VISIBLE_DEVICES=$g ./splatlab_$bin train gpu-data/bonsai --images 5000 --eval-every 0 \
  --log-every 5000 --profile --batch-size $b --seed 0 --out $R/prof-$g 2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/prof-$bin-bonsai-b$b-5000.log; rm -rf $R/prof-$g; }
for b in 1 4; do prof 0 old $b & prof 1 f8 $b & prof 2 f7 $b & wait; done; el "profiles"
job() { local g=$1 bin=$2 scene=$3 seed=$4; shift 4; local tag=$(echo "$*" | tr -d ' -')
  CUDA_VISIBLE_DEVICES=$g ./splatlab_$bin train gpu-data/$scene --seed $seed "$@" --out $R/$bin-$g 2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/train-$bin-$scene-$tag-s$seed.log
  rm -rf $R/$bin-$g; }
job 0 old bonsai 0 --batch-size 1 & job 1 f8 bonsai 0 --batch-size 1 & job 2 old cup 0 --batch-size 1 & job 3 f8 cup 0 --batch-size 1 & wait
el "30k"
