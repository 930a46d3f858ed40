# Device run 7: the backward replay's suffix sums taken as A + α (c - A), reusing the difference its
# α gradient already took (z), against run 6's final tree (f, f2c5e71). test_kernels, test_core,
# test_ranks (both GPUs, and NCCL) and test_app [gpu] of z; bench_raster --quick of both rotated over
# the two GPUs; --profile over bonsai's first 5,000 images at batch 1 and 4 (swapped).
set -f
L=$OUT/l; mkdir -p $L; R=/tmp/runs; rm -rf $R; mkdir -p $R; nvidia-smi -L > $L/gpus.txt
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*" >> $L/order.txt; tar -C $L -cf $OUT/logs.tar .; }
mkdir -p build/app && cp splatlab_z build/app/splatlab
tests() { for t in "$@"; do set -- $t; s=$(date +%s)
    CUDA_VISIBLE_DEVICES=$3 timeout 200 ./${1}_z "$2" > $L/$1-${2//[\[\]]/}.txt 2>&1; echo "$1 $2 rc=$? $(tail -2 $L/$1-${2//[\[\]]/}.txt | tr '\n' ' ') ($(( $(date +%s)-s )) s)" >> $L/tests.txt; done; }
tests "test_kernels [gpu] 0" & tests "test_core [gpu] 1" & wait
tests "test_ranks [gpu] 0,1" "test_ranks [nccl] 0,1" "test_app [gpu] 0,1"; el tests
br() { CUDA_VISIBLE_DEVICES=$2 ./bench_raster_$1 --quick > $L/bench_raster_$1_gpu$2_$3.txt 2>&1; }
br f 0 r1 & br z 1 r1 & wait; br z 0 r2 & br f 1 r2 & wait; el bench_raster
prof() { local b=$1 g=$2 r=$3 tag=$4; shift 4
  CUDA_VISIBLE_DEVICES=$g ./splatlab_$b train gpu-data/bonsai --seed 0 --images 5000 --profile "$@" --out $R/$b$g 2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/prof-$b-$tag-gpu$g-r$r.log; rm -rf $R/$b$g; }
for t in "b1 --batch-size 1" "b4 --batch-size 4"; do
  prof f 0 1 $t & prof z 1 1 $t & wait; prof z 0 2 $t & prof f 1 2 $t & wait; done; el profiles
