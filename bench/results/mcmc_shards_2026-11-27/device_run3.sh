# Device run 3 (session 17): MCMC's shards kept even (after) against shards sized by waits (before:
# the forward-lanes binary of 3c27088), two GPUs at batch 4, cap 1M, seeds 0 and 1 alternated on GPUs 0
# and 1; meanwhile GPUs 2 and 3 train the after binary alone: MCMC at batch 4 and the default at batch 1
# (one GPU each, seeds 0 and 1 side by side), then the default at batch 8 on both, seeds 0 and 1.
set -f
L=$OUT/l; mkdir -p $L; R=/tmp/runs; mkdir -p $R; nvidia-smi -L > $L/gpus.txt
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
job() { local gpus=$1 bin=$2 scene=$3 tag=$4 seed=$5; shift 5
  local run=$R/$bin-$scene-$tag-s$seed
  echo "gpu $gpus start $(( $(date +%s) - t0 )) s: $bin $scene $tag $seed $*" >> $L/order.txt
  CUDA_VISIBLE_DEVICES=$gpus ./splatlab_$bin train gpu-data/$scene --seed $seed "$@" --out $run > $L/train-$bin-$scene-$tag-s$seed.log 2>&1
  cp $run/metrics.jsonl $L/metrics-$bin-$scene-$tag-s$seed.jsonl 2>/dev/null
  rm -rf $run; }
g01() { for s in 0 1; do for b in before after; do job 0,1 $b bonsai g2-mcmc1m $s --gpus 2 --batch-size 4 --strategy mcmc --cap-max 1000000; done; done; }
g23() { job 2 after bonsai mcmc1m 0 --batch-size 4 --strategy mcmc --cap-max 1000000 &
        job 3 after bonsai mcmc1m 1 --batch-size 4 --strategy mcmc --cap-max 1000000 & wait
        job 2 after bonsai b1 0 --batch-size 1 & job 3 after bonsai b1 1 --batch-size 1 & wait
        for s in 0 1; do job 2,3 after bonsai g2-b8 $s --gpus 2 --batch-size 8; done; }
g01 & g23 & wait; el "all"
tar -C $L -cf $OUT/logs.tar .
