# Device run 5: the final tree (13b2bc4: the halved warp sums, the narrowed tile rooms, the projection
# backward's asynchronous copies). Every [gpu] suite, test_ranks and test_app on both GPUs; then the
# two-GPU targets: one-GPU runs at batch 4 two at a time (GPUs 0 and 1), then two GPUs alone.
set -f
L=$OUT/l; mkdir -p $L; R=/tmp/runs; rm -rf $R; mkdir -p $R; nvidia-smi -L > $L/gpus.txt
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*" >> $L/order.txt; tar -C $L -cf $OUT/logs.tar .; }
mkdir -p build/app && cp splatlab_n build/app/splatlab
tests() { for t in "$@"; do set -- $t; s=$(date +%s)
    CUDA_VISIBLE_DEVICES=$3 timeout 200 ./${1}_n "$2" > $L/$1-${2//[\[\]]/}.txt 2>&1; echo "$1 $2 rc=$? $(tail -2 $L/$1-${2//[\[\]]/}.txt | tr '\n' ' ') ($(( $(date +%s)-s )) s)" >> $L/tests.txt; done; }
tests "test_kernels [gpu] 0" & tests "test_core [gpu] 1" "test_ui [gpu] 1" & wait
tests "test_ranks [gpu] 0,1" "test_ranks [nccl] 0,1" "test_app [gpu] 0,1"; el tests
job() { local g=$1 scene=$2 seed=$3; shift 3; local tag=$(echo "$*" | tr -d ' -')
  CUDA_VISIBLE_DEVICES=$g ./splatlab_n train gpu-data/$scene --seed $seed "$@" --out $R/$scene-$seed-$g 2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/train-$scene-$tag-s$seed-gpu${g/,/}.log
  rm -rf $R/$scene-$seed-$g; el "$g $scene $seed $*"; }
M="--strategy mcmc --cap-max 1000000"
{ job 0 bonsai 0 --batch-size 4; job 0 bonsai 0 --batch-size 4 $M; } &
{ job 1 bonsai 1 --batch-size 4; job 1 cup 0 --batch-size 4; job 1 cup 1 --batch-size 4; } & wait
for s in 0 1; do job 0,1 bonsai $s --batch-size 4 --gpus 2; done; job 0,1 bonsai 0 --batch-size 4 --gpus 2 $M
for s in 0 1; do job 0,1 cup $s --batch-size 4 --gpus 2; done
