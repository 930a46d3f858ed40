# Device run 1: the backward blend's warp sums as a reduce-scatter. o = main (7f93ae5, a butterfly of
# every value down to four lanes, three float4 atomics a lane); a = two halving levels that send a lane
# only what its partner keeps, then a butterfly (11 shuffles for the default's 9 values, float2/float4
# atomics from 16 lanes); b = one halving level, then a butterfly (15 shuffles, the same 12 atomics as o).
# test_kernels [gpu] of a and b; bench_raster --quick rotated over the GPUs; --profile over bonsai's first
# 5,000 images at batch 1 and 4; 30k bonsai at batch 1 (seed 0) and 4, side by side.
set -f
L=$OUT/l; mkdir -p $L; R=/tmp/runs; rm -rf $R; mkdir -p $R; nvidia-smi -L > $L/gpus.txt
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*" >> $L/order.txt; tar -C $L -cf $OUT/logs.tar .; }
CUDA_VISIBLE_DEVICES=0 timeout 200 ./test_kernels_a "[gpu]" > $L/test_kernels_a.txt 2>&1 &
CUDA_VISIBLE_DEVICES=1 timeout 200 ./test_kernels_b "[gpu]" > $L/test_kernels_b.txt 2>&1 & wait; el tests
br() { CUDA_VISIBLE_DEVICES=$2 ./bench_raster_$1 --quick > $L/bench_raster_$1_gpu$2_$3.txt 2>&1; }
br o 0 r1 & br a 1 r1 & wait; br b 0 r2 & br o 1 r2 & wait; br a 0 r3 & br b 1 r3 & wait; el bench_raster
prof() { local b=$1 g=$2 tag=$3; shift 3
  CUDA_VISIBLE_DEVICES=$g ./splatlab_$b train gpu-data/bonsai --seed 0 --images 5000 --profile "$@" --out $R/$b$g 2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/prof-$b-$tag-gpu$g.log; rm -rf $R/$b$g; }
for t in "b1 --batch-size 1" "b4 --batch-size 4"; do set -- $t
  prof o 0 "$@" & prof a 1 "$@" & wait; prof b 0 "$@" & prof o 1 "$@" & wait; prof a 0 "$@" & prof b 1 "$@" & wait; done; el profiles
job() { local b=$1 g=$2 scene=$3 seed=$4; shift 4; local tag=$(echo "$*" | tr -d ' -')
  CUDA_VISIBLE_DEVICES=$g ./splatlab_$b train gpu-data/$scene --seed $seed "$@" --out $R/$b-$scene-$seed-$g 2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/train-$b-$scene-$tag-s$seed-gpu$g.log
  rm -rf $R/$b-$scene-$seed-$g; }
job o 0 bonsai 0 --batch-size 1 & job a 1 bonsai 0 --batch-size 1 & wait; el "b1 o a"
job b 0 bonsai 0 --batch-size 1 & job o 1 bonsai 0 --batch-size 1 & wait; el "b1 b o"
job a 0 bonsai 0 --batch-size 4 & job b 1 bonsai 0 --batch-size 4 & wait; el "b4 a b"
job o 0 bonsai 0 --batch-size 4 & job a 1 bonsai 0 --batch-size 4 & wait; el "b4 o a"
