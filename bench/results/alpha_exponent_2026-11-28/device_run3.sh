# Device run 3: α's exponent staged in base 2 (x: the blending kernels stage -½ log2(e) Q as three
# coefficients, a pixel's α is four multiply-adds and exp2f, and the α >= 1/255 test is the branch)
# against main (n, f9603a1, from run 2's pack). test_kernels and test_core [gpu] of x; bench_raster
# --quick of both rotated over the two GPUs; --profile over bonsai's first 5,000 images at batch 1
# and 4 (both GPUs, variants swapped); bonsai 30k at batch 1 seeds 0 and 1, cup 30k seed 0, side by side.
set -f
L=$OUT/l; mkdir -p $L; R=/tmp/runs; rm -rf $R; mkdir -p $R; nvidia-smi -L > $L/gpus.txt
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*" >> $L/order.txt; tar -C $L -cf $OUT/logs.tar .; }
tests() { for t in "$@"; do set -- $t; s=$(date +%s)
    CUDA_VISIBLE_DEVICES=$3 timeout 200 ./${1} "$2" > $L/$1-${2//[\[\]]/}.txt 2>&1; echo "$1 $2 rc=$? $(tail -2 $L/$1-${2//[\[\]]/}.txt | tr '\n' ' ') ($(( $(date +%s)-s )) s)" >> $L/tests.txt; done; }
tests "test_kernels_x [gpu] 0" & tests "test_core_x [gpu] 1" & wait; el tests
br() { CUDA_VISIBLE_DEVICES=$2 ./bench_raster_$1 --quick > $L/bench_raster_$1_gpu$2_$3.txt 2>&1; }
br n 0 r1 & br x 1 r1 & wait; br x 0 r2 & br n 1 r2 & wait; el bench_raster
prof() { local b=$1 g=$2 tag=$3; shift 3
  CUDA_VISIBLE_DEVICES=$g ./splatlab_$b train gpu-data/bonsai --seed 0 --images 5000 --profile "$@" --out $R/$b$g 2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/prof-$b-$tag-gpu$g-r$4.log; rm -rf $R/$b$g; }
for t in "b1 --batch-size 1" "b4 --batch-size 4"; do set -- $t
  prof n 0 $1 $2 $3 1 & prof x 1 $1 $2 $3 1 & wait; prof x 0 $1 $2 $3 2 & prof n 1 $1 $2 $3 2 & wait; done; el profiles
job() { local b=$1 g=$2 scene=$3 seed=$4; shift 4; local tag=$(echo "$*" | tr -d ' -')
  CUDA_VISIBLE_DEVICES=$g ./splatlab_$b train gpu-data/$scene --seed $seed "$@" --out $R/$b-$scene-$seed-$g 2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/train-$b-$scene-$tag-s$seed-gpu$g.log
  rm -rf $R/$b-$scene-$seed-$g; el "$b $g $scene $seed $*"; }
job n 0 bonsai 0 --batch-size 1 & job x 1 bonsai 0 --batch-size 1 & wait
job x 0 bonsai 1 --batch-size 1 & job n 1 bonsai 1 --batch-size 1 & wait
job n 0 cup 0 --batch-size 1 & job x 1 cup 0 --batch-size 1 & wait
