# Device run 5 (session 17): the GPU tests of the last tree (be0a788: the forward's lanes, MCMC's even
# shards), then bonsai and cup at batch 4 on one GPU (GPUs 2 and 3, seeds 0 and 1 side by side) and on two
# (GPUs 0 and 1, one run after another), then bonsai on all four GPUs at batch 4, 8 and 16 (seed 0).
set -f
L=$OUT/l; mkdir -p $L; R=/tmp/runs; mkdir -p $R; nvidia-smi -L > $L/gpus.txt
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
job() { local gpus=$1 scene=$2 tag=$3 seed=$4; shift 4
  local run=$R/$scene-$tag-s$seed
  echo "gpu $gpus start $(( $(date +%s) - t0 )) s: $scene $tag $seed $*" >> $L/order.txt
  CUDA_VISIBLE_DEVICES=$gpus ./splatlab train gpu-data/$scene --seed $seed "$@" --out $run > $L/train-$scene-$tag-s$seed.log 2>&1
  rm -rf $run; }
tests() {
  { for t in "test_kernels [gpu]" "test_core [gpu]"; do set -- $t; s=$(date +%s)
      CUDA_VISIBLE_DEVICES=0 timeout 120 ./$1 "$2" > $L/$1.txt 2>&1; echo "$t rc=$? $(tail -2 $L/$1.txt | tr '\n' ' ') ($(( $(date +%s)-s )) s)"; done
    s=$(date +%s); CUDA_VISIBLE_DEVICES=0,1 timeout 120 ./test_ranks "[gpu]" > $L/test_ranks.txt 2>&1
    echo "test_ranks [gpu] rc=$? $(tail -2 $L/test_ranks.txt | tr '\n' ' ') ($(( $(date +%s)-s )) s)"; } > $L/tests.txt; }
g01() { tests; el "tests"
  for s in 0 1; do job 0,1 bonsai g2-b4 $s --gpus 2 --batch-size 4; done
  for s in 0 1; do job 0,1 cup g2-b4 $s --gpus 2 --batch-size 4; done; el "two GPUs"; }
g23() { for sc in bonsai cup; do job 2 $sc b4 0 --batch-size 4 & job 3 $sc b4 1 --batch-size 4 & wait; done; el "one GPU"; }
g01 & g23 & wait
for b in 4 8 16; do job 0,1,2,3 bonsai g4-b$b 0 --gpus 4 --batch-size $b; done; el "four GPUs"
tar -C $L -cf $OUT/logs.tar .
