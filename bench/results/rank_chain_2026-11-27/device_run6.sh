# Device run 6: the projection's SH rows staged per warp through shared memory (n = this tree) against
# the templated projection of b5dff7b (o). [gpu] suites of test_kernels and test_core (n); bench_raster
# o and n side by side on GPUs 0 and 1, then swapped; --profile over bonsai's first 5,000 images at
# batch 1, batch 4 and batch 1 with --amp, o and n side by side, swapped.
set -f
L=$OUT/l; mkdir -p $L; R=/tmp/runs; rm -rf $R; mkdir -p $R; nvidia-smi -L > $L/gpus.txt
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*" >> $L/order.txt; tar -C $L -cf $OUT/logs.tar .; }
tests() { for t in "$@"; do set -- $t; s=$(date +%s)
    CUDA_VISIBLE_DEVICES=$3 timeout 200 ./${1}_n "$2" > $L/$1-${2//[\[\]]/}.txt 2>&1; echo "$1 $2 rc=$? $(tail -2 $L/$1-${2//[\[\]]/}.txt | tr '\n' ' ') ($(( $(date +%s)-s )) s)" >> $L/tests.txt; done; }
tests "test_kernels [gpu] 0" & tests "test_core [gpu] 1" & wait; el tests
CUDA_VISIBLE_DEVICES=0 ./bench_raster_o > $L/bench_raster_o_gpu0_a.txt 2>&1 & CUDA_VISIBLE_DEVICES=1 ./bench_raster_n > $L/bench_raster_n_gpu1_a.txt 2>&1 & wait
CUDA_VISIBLE_DEVICES=1 ./bench_raster_o > $L/bench_raster_o_gpu1_b.txt 2>&1 & CUDA_VISIBLE_DEVICES=0 ./bench_raster_n > $L/bench_raster_n_gpu0_b.txt 2>&1 & wait; el bench_raster
prof() { local b=$1 g=$2 tag=$3; shift 3
  CUDA_VISIBLE_DEVICES=$g ./splatlab_$b train gpu-data/bonsai --seed 0 --images 5000 --profile "$@" --out $R/$b$g 2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/prof-$b-bonsai-$tag-gpu$g.log; rm -rf $R/$b$g; }
for t in "b1 --batch-size 1" "b4 --batch-size 4" "b1amp --batch-size 1 --amp"; do set -- $t
  prof o 0 "$@" & prof n 1 "$@" & wait; prof o 1 "$@" & prof n 0 "$@" & wait; done; el profiles
