# Device run 1: the tile entries staged per warp and written out coalesced (new) against main 4bd9b89
# (old). bench_raster old and new side by side on GPUs 0 and 1, then swapped; the one-GPU [gpu] suites
# of new on GPU 2; then bonsai and cup at batch 1 over 30k images, old and new side by side.
set -f
L=$OUT/l; mkdir -p $L; R=/tmp/runs; mkdir -p $R; nvidia-smi -L > $L/gpus.txt
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*" >> $L/order.txt; tar -C $L -cf $OUT/logs.tar .; }
job() { local g=$1 bin=$2 scene=$3 seed=$4; shift 4; local tag=$(echo "$*" | tr -d ' -')
  echo "gpu $g start $(( $(date +%s) - t0 )) s: $bin $scene $seed $*" >> $L/order.txt
  CUDA_VISIBLE_DEVICES=$g ./splatlab_$bin train gpu-data/$scene --seed $seed "$@" --out $R/$bin-$scene-$seed-$g 2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/train-$bin-$scene-$tag-s$seed.log
  rm -rf $R/$bin-$scene-$seed-$g; }
tests() { for t in "$@"; do set -- $t; s=$(date +%s)
    CUDA_VISIBLE_DEVICES=$3 timeout 200 ./${1}_new "$2" > $L/$1-${2//[\[\]]/}.txt 2>&1; echo "$1 $2 rc=$? $(tail -2 $L/$1-${2//[\[\]]/}.txt | tr '\n' ' ') ($(( $(date +%s)-s )) s)" >> $L/tests.txt; done; }
braster() { CUDA_VISIBLE_DEVICES=$1 ./bench_raster_$2 > $L/bench_raster_$2_gpu$1.txt 2>&1; }
tests "test_kernels [gpu] 2" "test_core [gpu] 2" &
{ braster 0 old; braster 0 new; } & { braster 1 new; braster 1 old; } & wait; el "bench_raster, tests"
job 0 old bonsai 0 --batch-size 1 & job 1 new bonsai 0 --batch-size 1 & job 2 old cup 0 --batch-size 1 & job 3 new cup 0 --batch-size 1 & wait
el "30k"
