# Device run 4 (session 19): projection one thread per pair where the Gaussians do not fill the GPU,
# the one-call backward clearing only the covering pairs' gradients (after: the binary of 2cbc70e)
# against the tree before (8582787, run 3's binary). GPU tests of the after binaries; bench_raster;
# --profile over the first 10,000 images at batch 4 (one GPU on GPUs 0, 1: before, after; two GPUs on
# 2,3); then 30k-image runs, one GPU on GPUs 0 and 1 (before and after alternated, each run alone on its
# GPU) while GPUs 2,3 ran the two-GPU runs, before and after alternated.
set -f
L=$OUT/l; mkdir -p $L; R=/tmp/runs; mkdir -p $R; nvidia-smi -L > $L/gpus.txt
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*" >> $L/order.txt; }
job() { local gpus=$1 bin=$2 scene=$3 tag=$4 seed=$5; shift 5
  local run=$R/$bin-$scene-$tag-s$seed-$gpus
  echo "gpu $gpus start $(( $(date +%s) - t0 )) s: $bin $scene $tag $seed $*" >> $L/order.txt
  CUDA_VISIBLE_DEVICES=$gpus ./splatlab_$bin train gpu-data/$scene --seed $seed "$@" --out $run 2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/train-$bin-$scene-$tag-s$seed.log
  rm -rf $run; }
{ for t in "test_kernels [gpu] 0" "test_core [gpu] 0" "test_ranks [gpu] 0,1"; do set -- $t; s=$(date +%s)
    CUDA_VISIBLE_DEVICES=$3 timeout 150 ./$1 "$2" > $L/$1.txt 2>&1; echo "$1 $2 rc=$? $(tail -2 $L/$1.txt | tr '\n' ' ') ($(( $(date +%s)-s )) s)"; done; } > $L/tests.txt
CUDA_VISIBLE_DEVICES=0 ./bench_raster --quick > $L/bench_raster.txt 2>&1
el "tests, bench_raster"
prof() { local g=$1 bin=$2 scene=$3 tag=$4; shift 4; CUDA_VISIBLE_DEVICES=$g ./splatlab_$bin train gpu-data/$scene --images 10000 --eval-every 0 \
  --log-every 10000 --profile --batch-size 4 "$@" --out $R/prof-$bin-$scene-$tag 2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/prof-$bin-$scene-$tag.log; rm -rf $R/prof-$bin-$scene-$tag; }
{ prof 0 before bonsai g1; prof 0 before cup g1; } & { prof 1 after bonsai g1; prof 1 after cup g1; } &
{ for s in bonsai cup; do prof 2,3 before $s g2 --gpus 2; prof 2,3 after $s g2 --gpus 2; done; } & wait; el "profiles"
one() { local g=$1 a=$2 b=$3; job $g $a bonsai b4 0 --batch-size 4; job $g $b bonsai b4 1 --batch-size 4
  job $g $a cup b4 0 --batch-size 4; job $g $b cup b4 1 --batch-size 4; }
two() { for s in 0 1; do for sc in bonsai cup; do job 2,3 before $sc g2-b4 $s --gpus 2 --batch-size 4
  job 2,3 after $sc g2-b4 $s --gpus 2 --batch-size 4; done; done; }
one 0 before after & one 1 after before & two & wait; el "targets"
tar -C $L -cf $OUT/logs.tar .
