# Device run 5: the α VJP's conic summed as moments (y: a pixel adds dpower (dx², dx dy, dy²) and the
# constants -½, -1, -½ are applied once per warp sum, by the lanes that add it; dpower from the
# unclamped α) against run 3's x (3d9a497). y's bench_raster also reports the queued time. test_kernels
# [gpu] of y; bench_raster --quick of both rotated over the two GPUs; --profile over bonsai's first
# 5,000 images at batch 1 and 4 (swapped); bonsai 30k at batch 1 seeds 0, 1 and at batch 4 seed 0,
# side by side.
set -f
L=$OUT/l; mkdir -p $L; R=/tmp/runs; rm -rf $R; mkdir -p $R; nvidia-smi -L > $L/gpus.txt
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*" >> $L/order.txt; tar -C $L -cf $OUT/logs.tar .; }
CUDA_VISIBLE_DEVICES=0 timeout 200 ./test_kernels_y "[gpu]" > $L/test_kernels_y-gpu.txt 2>&1; echo "test_kernels_y [gpu] rc=$? $(tail -2 $L/test_kernels_y-gpu.txt | tr '\n' ' ')" >> $L/tests.txt; el tests
br() { CUDA_VISIBLE_DEVICES=$2 ./bench_raster_$1 --quick > $L/bench_raster_$1_gpu$2_$3.txt 2>&1; }
br x 0 r1 & br y 1 r1 & wait; br y 0 r2 & br x 1 r2 & wait; el bench_raster
prof() { local b=$1 g=$2 r=$3 tag=$4; shift 4
  CUDA_VISIBLE_DEVICES=$g ./splatlab_$b train gpu-data/bonsai --seed 0 --images 5000 --profile "$@" --out $R/$b$g 2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/prof-$b-$tag-gpu$g-r$r.log; rm -rf $R/$b$g; }
for t in "b1 --batch-size 1" "b4 --batch-size 4"; do
  prof x 0 1 $t & prof y 1 1 $t & wait; prof y 0 2 $t & prof x 1 2 $t & wait; done; el profiles
job() { local b=$1 g=$2 scene=$3 seed=$4; shift 4; local tag=$(echo "$*" | tr -d ' -')
  CUDA_VISIBLE_DEVICES=$g ./splatlab_$b train gpu-data/$scene --seed $seed "$@" --out $R/$b-$scene-$seed-$g 2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/train-$b-$scene-$tag-s$seed-gpu$g.log
  rm -rf $R/$b-$scene-$seed-$g; el "$b $g $scene $seed $*"; }
job x 0 bonsai 0 --batch-size 1 & job y 1 bonsai 0 --batch-size 1 & wait
job y 0 bonsai 1 --batch-size 1 & job x 1 bonsai 1 --batch-size 1 & wait
job x 0 bonsai 0 --batch-size 4 & job y 1 bonsai 0 --batch-size 4 & wait
