# Device run 6 (session 22): the buffers' growth in stream order (new: caa6990) against the warp
# cells' binary before it (cells: 191e167). Every [gpu] suite of new on GPUs 0,1 while GPUs 2,3 train
# on two GPUs, old and new alternated (bonsai batch 4 and 8, MCMC cap 1M at batch 4; seed 0); then
# 30k runs on one GPU, cells on GPU 0 and new on GPU 1: bonsai batch 4 (seeds 0, 1), MCMC batch 4,
# bonsai batch 1 (seed 0).
set -f
L=$OUT/l; mkdir -p $L; R=/tmp/runs; mkdir -p $R; nvidia-smi -L > $L/gpus.txt
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*" >> $L/order.txt; }
mkdir -p build/app && cp splatlab_new build/app/splatlab
job() { local g=$1 bin=$2 scene=$3 seed=$4; shift 4; local tag=$(echo "$*" | tr -d ' -')
  echo "gpu $g start $(( $(date +%s) - t0 )) s: $bin $scene $seed $*" >> $L/order.txt
  CUDA_VISIBLE_DEVICES=$g ./splatlab_$bin train gpu-data/$scene --seed $seed "$@" --out $R/$bin-$scene-$seed-$g 2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/train-$bin-$scene-$tag-s$seed.log
  rm -rf $R/$bin-$scene-$seed-$g; }
M="--strategy mcmc --cap-max 1000000"
{ for t in "test_kernels [gpu] 0" "test_core [gpu] 1" "test_ui [gpu] 0" "test_ranks [gpu] 0,1" "test_ranks [nccl] 0,1" "test_app [gpu] 0,1"; do set -- $t; s=$(date +%s)
    CUDA_VISIBLE_DEVICES=$3 timeout 200 ./${1}_new "$2" > $L/$1-$2.txt 2>&1; echo "$1 $2 rc=$? $(tail -2 $L/$1-$2.txt | tr '\n' ' ') ($(( $(date +%s)-s )) s)"; done; } > $L/tests.txt &
T=$!
{ for b in cells new; do job 2,3 $b bonsai 0 --batch-size 4 --gpus 2; done
  for b in new cells; do job 2,3 $b bonsai 0 --batch-size 4 --gpus 2 $M; done
  for b in cells new; do job 2,3 $b bonsai 0 --batch-size 8 --gpus 2; done; } &
P=$!
wait $T; el "tests"
{ job 0 cells bonsai 0 --batch-size 4; job 0 cells bonsai 1 --batch-size 4; job 0 cells bonsai 0 --batch-size 4 $M; job 0 cells bonsai 0 --batch-size 1; } &
{ job 1 new bonsai 0 --batch-size 4; job 1 new bonsai 1 --batch-size 4; job 1 new bonsai 0 --batch-size 4 $M; job 1 new bonsai 0 --batch-size 1; } &
wait; el "30k"
tar -C $L -cf $OUT/logs.tar .
