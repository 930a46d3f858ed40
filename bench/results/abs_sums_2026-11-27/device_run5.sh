# Device run 5 (session 18): the AbsGS sums only where a strategy grows by them (after) against always
# (before: the binary of 5fc465e). GPU tests of the after binaries first (test_ranks on GPUs 0,1), then
# two-GPU runs on GPUs 0,1 and 2,3 at once, before and after swapped between the pairs; then one-GPU runs,
# four at once; then --profile of the two-GPU step, before and after side by side.
set -f
L=$OUT/l; mkdir -p $L; R=/tmp/runs; mkdir -p $R; nvidia-smi -L > $L/gpus.txt
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*" >> $L/order.txt; }
job() { local gpus=$1 bin=$2 scene=$3 tag=$4 seed=$5; shift 5
  local run=$R/$bin-$scene-$tag-s$seed
  echo "gpu $gpus start $(( $(date +%s) - t0 )) s: $bin $scene $tag $seed $*" >> $L/order.txt
  CUDA_VISIBLE_DEVICES=$gpus ./splatlab_$bin train gpu-data/$scene --seed $seed "$@" --out $run > $L/train-$bin-$scene-$tag-s$seed.log 2>&1
  rm -rf $run; }
{ for t in "test_kernels [gpu] 0" "test_core [gpu] 0" "test_ranks [gpu] 0,1"; do set -- $t; s=$(date +%s)
    CUDA_VISIBLE_DEVICES=$3 timeout 150 ./$1 "$2" > $L/$1.txt 2>&1; echo "$1 $2 rc=$? $(tail -2 $L/$1.txt | tr '\n' ' ') ($(( $(date +%s)-s )) s)"; done; } > $L/tests.txt
el "tests"
pair() { local g=$1 a=$2 b=$3
  job $g $a bonsai g2-b4 0 --gpus 2 --batch-size 4; job $g $b bonsai g2-b4 1 --gpus 2 --batch-size 4
  job $g $a cup g2-b4 0 --gpus 2 --batch-size 4
  job $g $b bonsai g2-mcmc1m 0 --gpus 2 --batch-size 4 --strategy mcmc --cap-max 1000000; }
pair 0,1 before after & pair 2,3 after before & wait; el "two GPUs"
job 0 before bonsai b1 0 --batch-size 1 & job 1 after bonsai b1 0 --batch-size 1 &
job 2 after bonsai b1 1 --batch-size 1 & job 3 before bonsai b1 1 --batch-size 1 & wait; el "batch 1"
job 0 before bonsai b4 0 --batch-size 4 & job 1 after bonsai b4 0 --batch-size 4 &
job 2 before cup b4 0 --batch-size 4 & job 3 after cup b4 0 --batch-size 4 & wait; el "batch 4"
prof() { local g=$1 bin=$2; CUDA_VISIBLE_DEVICES=$g ./splatlab_$bin train gpu-data/bonsai --images 10000 --eval-every 0 \
  --log-every 10000 --profile --batch-size 4 --gpus 2 --out $R/prof-$bin > $L/prof-$bin.log 2>&1; rm -rf $R/prof-$bin; }
prof 0,1 before & prof 2,3 after & wait; el "profiles"
tar -C $L -cf $OUT/logs.tar .
