# Device run 5: CUB's onesweep passes on small tiles (256 threads x 8 keys) for sorts under a threshold
# (EXP_SMALL_SORT_ITEMS; 0 = CUB's SM90 tiles everywhere, as before). One binary (b = this tree):
# [gpu] suites of test_kernels and test_core with the small tiles on (every test sort is small);
# bench_raster off and on side by side on GPUs 0 and 1, swapped; --profile over bonsai's first 5,000
# images at batch 1 and 4, off and on side by side, swapped.
set -f
L=$OUT/l; mkdir -p $L; R=/tmp/runs; rm -rf $R; mkdir -p $R; nvidia-smi -L > $L/gpus.txt
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*" >> $L/order.txt; tar -C $L -cf $OUT/logs.tar .; }
export EXP_SMALL_SORT_ITEMS
tests() { for t in "$@"; do set -- $t; s=$(date +%s)
    CUDA_VISIBLE_DEVICES=$3 EXP_SMALL_SORT_ITEMS=100000000 timeout 200 ./${1}_n "$2" > $L/$1-${2//[\[\]]/}.txt 2>&1; echo "$1 $2 rc=$? $(tail -2 $L/$1-${2//[\[\]]/}.txt | tr '\n' ' ') ($(( $(date +%s)-s )) s)" >> $L/tests.txt; done; }
tests "test_kernels [gpu] 0" & tests "test_core [gpu] 1" & wait; el tests
br() { CUDA_VISIBLE_DEVICES=$1 EXP_SMALL_SORT_ITEMS=$2 ./bench_raster_n > $L/bench_raster_s$2_gpu$1_$3.txt 2>&1; }
br 0 0 a & br 1 4000000 a & wait; br 1 0 b & br 0 4000000 b & wait; el bench_raster
prof() { local s=$1 g=$2 b=$3
  CUDA_VISIBLE_DEVICES=$g EXP_SMALL_SORT_ITEMS=$s ./splatlab_n train gpu-data/bonsai --seed 0 --images 5000 --batch-size $b --profile --out $R/$s$g 2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/prof-s$s-bonsai-b$b-gpu$g.log; rm -rf $R/$s$g; }
for b in 1 4; do prof 0 0 $b & prof 4000000 1 $b & wait; prof 0 1 $b & prof 4000000 0 $b & wait; done; el profiles
