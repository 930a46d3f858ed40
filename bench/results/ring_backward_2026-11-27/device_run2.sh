# Device run 2 (session 18): the backward blend as a ring per warp (after, branch ring-backward) against
# the warp-sum backward (before: main at 61b4df6's kernels). GPU 0: the GPU tests of the after binary,
# then bench_raster before and after (twice each, alternated). GPU 1: --profile of bonsai's first 5,000
# images at batch 1 and 4, before and after. GPUs 2 and 3: bonsai 30k at batch 1, seeds 0 and 1,
# before and after alternated (each binary once on each GPU), then cup 30k at batch 1 likewise.
set -f
L=$OUT/l; mkdir -p $L; R=/tmp/runs; mkdir -p $R; nvidia-smi -L > $L/gpus.txt
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*" >> $L/order.txt; }
job() { local gpus=$1 bin=$2 scene=$3 tag=$4 seed=$5; shift 5
  local run=$R/$bin-$scene-$tag-s$seed
  echo "gpu $gpus start $(( $(date +%s) - t0 )) s: $bin $scene $tag $seed $*" >> $L/order.txt
  CUDA_VISIBLE_DEVICES=$gpus ./splatlab_$bin train gpu-data/$scene --seed $seed "$@" --out $run > $L/train-$bin-$scene-$tag-s$seed.log 2>&1
  rm -rf $run; }
g0() { { for t in "test_kernels [gpu]" "test_core [gpu]"; do set -- $t; s=$(date +%s)
      CUDA_VISIBLE_DEVICES=0 timeout 120 ./$1 "$2" > $L/$1.txt 2>&1; echo "$t rc=$? $(tail -2 $L/$1.txt | tr '\n' ' ') ($(( $(date +%s)-s )) s)"; done; } > $L/tests.txt
  el "tests"
  for k in 1 2; do for b in before after; do CUDA_VISIBLE_DEVICES=0 timeout 200 ./bench_raster_$b > $L/raster_$b$k.txt 2>&1; done; done; el "bench_raster"; }
g1() { CUDA_VISIBLE_DEVICES=1 bash ./profile_ab.sh ./splatlab_before ./splatlab_after gpu-data/bonsai $L/prof 5000 "--batch-size 1" "--batch-size 4" > $L/prof.txt 2>&1; el "profiles"; }
g23() { job 2 before bonsai b1 0 --batch-size 1 & job 3 after bonsai b1 1 --batch-size 1 & wait
        job 2 after bonsai b1 0 --batch-size 1 & job 3 before bonsai b1 1 --batch-size 1 & wait
        job 2 before cup b1 0 --batch-size 1 & job 3 after cup b1 1 --batch-size 1 & wait
        job 2 after cup b1 0 --batch-size 1 & job 3 before cup b1 1 --batch-size 1 & wait; el "training"; }
g0 & g1 & g23 & wait
tar -C $L -cf $OUT/logs.tar .
