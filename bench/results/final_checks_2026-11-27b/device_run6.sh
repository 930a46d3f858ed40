# Device run 6 (session 18): the last tree (the AbsGS sums left out where unused). test_ui and test_app
# GPU tests; then two GPUs (0,1) at batch 8, seeds 0 and 1, and MCMC cap 1M at batch 4, seed 1, while
# GPUs 2 and 3 train one GPU at batch 1 (seeds 0, 1 side by side), then MCMC cap 1M at batch 4 (seeds 0, 1).
set -f
L=$OUT/l; mkdir -p $L; R=/tmp/runs; mkdir -p $R; nvidia-smi -L > $L/gpus.txt
mkdir -p build/app && cp splatlab build/app/splatlab
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*" >> $L/order.txt; }
job() { local gpus=$1 scene=$2 tag=$3 seed=$4; shift 4
  local run=$R/$scene-$tag-s$seed
  echo "gpu $gpus start $(( $(date +%s) - t0 )) s: $scene $tag $seed $*" >> $L/order.txt
  CUDA_VISIBLE_DEVICES=$gpus ./splatlab train gpu-data/$scene --seed $seed "$@" --out $run > $L/train-$scene-$tag-s$seed.log 2>&1
  rm -rf $run; }
{ for t in "test_ui [gpu] 0,1,2,3" "test_app [gpu] 0,1,2,3"; do set -- $t; s=$(date +%s)
    CUDA_VISIBLE_DEVICES=$3 timeout 150 ./$1 "$2" > $L/$1.txt 2>&1; echo "$1 $2 rc=$? $(tail -2 $L/$1.txt | tr '\n' ' ') ($(( $(date +%s)-s )) s)"; done; } > $L/tests.txt
el "tests"
g01() { for s in 0 1; do job 0,1 bonsai g2-b8 $s --gpus 2 --batch-size 8; done
        job 0,1 bonsai g2-mcmc1m 1 --gpus 2 --batch-size 4 --strategy mcmc --cap-max 1000000; el "two GPUs"; }
g23() { job 2 bonsai b1 0 --batch-size 1 & job 3 bonsai b1 1 --batch-size 1 & wait
        job 2 bonsai mcmc1m 0 --batch-size 4 --strategy mcmc --cap-max 1000000 &
        job 3 bonsai mcmc1m 1 --batch-size 4 --strategy mcmc --cap-max 1000000 & wait; el "one GPU"; }
g01 & g23 & wait
tar -C $L -cf $OUT/logs.tar .
