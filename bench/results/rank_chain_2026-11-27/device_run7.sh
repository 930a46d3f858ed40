# Device run 7: the tree with the templated projection (b5dff7b). Every [gpu] suite (test_ranks and
# test_app on both GPUs), then the one-GPU runs (GPUs 0 and 1 side by side: bonsai and cup at batch 4,
# seeds 0 and 1; bonsai MCMC cap 1M at batch 4 and bonsai at batch 1, seed 0), then the two-GPU runs
# (bonsai and cup at batch 4, seeds 0 and 1; MCMC seed 0). 30,000 images each.
set -f
L=$OUT/l; mkdir -p $L; R=/tmp/runs; rm -rf $R; mkdir -p $R; nvidia-smi -L > $L/gpus.txt
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*" >> $L/order.txt; tar -C $L -cf $OUT/logs.tar .; }
mkdir -p build/app && cp splatlab_n build/app/splatlab
job() { local g=$1 scene=$2 seed=$3; shift 3; local tag=$(echo "$*" | tr -d ' -')
  echo "gpu $g start $(( $(date +%s) - t0 )) s: $scene $seed $*" >> $L/order.txt
  CUDA_VISIBLE_DEVICES=$g ./splatlab_n train gpu-data/$scene --seed $seed "$@" --out $R/$scene-$seed-$g 2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/train-$scene-$tag-s$seed-gpu$g.log
  rm -rf $R/$scene-$seed-$g; }
tests() { for t in "$@"; do set -- $t; s=$(date +%s)
    CUDA_VISIBLE_DEVICES=$3 timeout 200 ./${1}_n "$2" > $L/$1-${2//[\[\]]/}.txt 2>&1; echo "$1 $2 rc=$? $(tail -2 $L/$1-${2//[\[\]]/}.txt | tr '\n' ' ') ($(( $(date +%s)-s )) s)" >> $L/tests.txt; done; }
tests "test_kernels [gpu] 0" "test_core [gpu] 0" "test_ui [gpu] 0" "test_ranks [gpu] 0,1" "test_ranks [nccl] 0,1" "test_app [gpu] 0,1"; el tests
M="--strategy mcmc --cap-max 1000000"
{ job 0 bonsai 0 --batch-size 4; job 0 cup 0 --batch-size 4; job 0 bonsai 0 --batch-size 4 $M; } &
{ job 1 bonsai 1 --batch-size 4; job 1 cup 1 --batch-size 4; job 1 bonsai 0 --batch-size 1; } &
wait; el "one GPU"
for s in 0 1; do job 0,1 bonsai $s --batch-size 4 --gpus 2; done; for s in 0 1; do job 0,1 cup $s --batch-size 4 --gpus 2; done
job 0,1 bonsai 0 --batch-size 4 --gpus 2 $M; el "two GPUs"
