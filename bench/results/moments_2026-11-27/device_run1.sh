# Device run 1: the backward blend's α gradients summed as moments (n) against main's kernels (o, 0512403),
# with the tile ranges found from the emitted entries 16 bytes a thread. bench_raster --quick on GPUs 0
# and 1, then swapped; test_kernels/test_core [gpu] of n; bonsai --profile over 5,000 images at batch 1
# and 4; bonsai 30k at batch 1, seed 0, o against n, each alone on its GPU.
set -f
L=$OUT/l; mkdir -p $L; R=/tmp/runs; mkdir -p $R; nvidia-smi -L > $L/gpus.txt
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*" >> $L/order.txt; tar -C $L -cf $OUT/logs.tar .; }
tests() { for t in "$@"; do set -- $t; s=$(date +%s)
    CUDA_VISIBLE_DEVICES=$3 timeout 200 ./${1}_n "$2" > $L/$1-${2//[\[\]]/}.txt 2>&1; echo "$1 $2 rc=$? $(tail -2 $L/$1-${2//[\[\]]/}.txt | tr '\n' ' ') ($(( $(date +%s)-s )) s)" >> $L/tests.txt; done; }
braster() { CUDA_VISIBLE_DEVICES=$1 ./bench_raster_$2 --quick > $L/bench_raster_$2_gpu$1_$3.txt 2>&1; }
tests "test_kernels [gpu] 2" "test_core [gpu] 2" &
braster 0 o a & braster 1 n a & wait; braster 0 n b & braster 1 o b & wait; el "bench_raster, tests"
prof() { CUDA_VISIBLE_DEVICES=$1 ./splatlab_$2 train gpu-data/bonsai --images 5000 --eval-every 0 \
  --log-every 5000 --profile --batch-size $3 --seed 0 --out $R/prof-$1 2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/prof-$2-bonsai-b$3-5000.log; rm -rf $R/prof-$1; }
prof 0 o 1 & prof 1 n 1 & prof 2 o 4 & prof 3 n 4 & wait; el "profiles"
job() { CUDA_VISIBLE_DEVICES=$1 ./splatlab_$2 train gpu-data/bonsai --seed 0 --batch-size 1 --out $R/$2-$1 2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/train-$2-bonsai-b1-s0-gpu$1.log; rm -rf $R/$2-$1; }
job 0 o & job 1 n & job 2 n & job 3 o & wait; el "30k"
grep -h "^done" $L/train-*.log >> $L/tests.txt
