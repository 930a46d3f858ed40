# Device run 6: the final tree of session 23 (new: two pixels a thread in the backward, 24-bit depth
# keys, the forward's lanes by its own share, chunks of 256 entries) against run 4's binary with no
# override (before: 4f9ae99, chunks of 512). Every [gpu] suite of new (one-GPU suites on GPU 3 while
# bench_raster and --profile of bonsai and cup at batch 1 run new and before on GPUs 0-2; the
# multi-GPU suites on GPUs 0,1 while two GPUs train bonsai at batch 4 on 2,3); then the 30k runs:
# before against new at batch 1 (bonsai, cup; seeds 0, 1) and new's one- and two-GPU targets, AMP.
set -f
L=$OUT/l; mkdir -p $L; R=/tmp/runs; mkdir -p $R; nvidia-smi -L > $L/gpus.txt
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*" >> $L/order.txt; }
mkdir -p build/app && cp splatlab_new build/app/splatlab
job() { local g=$1 bin=$2 scene=$3 seed=$4; shift 4; local tag=$(echo "$*" | tr -d ' -')
  echo "gpu $g start $(( $(date +%s) - t0 )) s: $bin $scene $seed $*" >> $L/order.txt
  CUDA_VISIBLE_DEVICES=$g ./splatlab_$bin train gpu-data/$scene --seed $seed "$@" --out $R/$bin-$scene-$seed-$g 2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/train-$bin-$scene-$tag-s$seed.log
  rm -rf $R/$bin-$scene-$seed-$g; }
tests() { for t in "$@"; do set -- $t; s=$(date +%s)
    CUDA_VISIBLE_DEVICES=$3 timeout 200 ./${1}_new "$2" > $L/$1-${2//[\[\]]/}.txt 2>&1; echo "$1 $2 rc=$? $(tail -2 $L/$1-${2//[\[\]]/}.txt | tr '\n' ' ') ($(( $(date +%s)-s )) s)" >> $L/tests.txt; done; }
P="--images 5000 --eval-every 0 --log-every 5000 --profile --batch-size 1"
tests "test_kernels [gpu] 3" "test_core [gpu] 3" "test_ui [gpu] 3" &
T=$!
{ CUDA_VISIBLE_DEVICES=0 ./bench_raster_new > $L/bench_raster_new.txt 2>&1; } &
{ job 1 new bonsai 0 $P; job 1 before cup 0 $P; } & { job 2 before bonsai 0 $P; job 2 new cup 0 $P; } &
wait; el "bench_raster, profiles, one-GPU tests"
tests "test_ranks [gpu] 0,1" "test_ranks [nccl] 0,1" "test_app [gpu] 0,1" &
T=$!
{ job 2,3 new bonsai 0 --batch-size 4 --gpus 2; job 2,3 new bonsai 0 --batch-size 8 --gpus 2; } &
wait; el "multi-GPU tests"
M="--strategy mcmc --cap-max 1000000"
{ job 0 new bonsai 0 --batch-size 1; job 0 before bonsai 1 --batch-size 1; job 0 new cup 0 --batch-size 1; job 0 new bonsai 0 --batch-size 4; job 0 new cup 0 --batch-size 4; } &
{ job 1 before bonsai 0 --batch-size 1; job 1 new bonsai 1 --batch-size 1; job 1 new cup 1 --batch-size 1; job 1 new bonsai 1 --batch-size 4; job 1 new cup 1 --batch-size 4; } &
{ job 2,3 new bonsai 1 --batch-size 4 --gpus 2; job 2,3 new bonsai 1 --batch-size 8 --gpus 2
  for s in 0 1; do job 2,3 new cup $s --batch-size 4 --gpus 2; done; job 2,3 new bonsai 0 --batch-size 4 --gpus 2 $M
  { job 2 new bonsai 0 --batch-size 4 $M; job 2 before cup 0 --batch-size 1; } & { job 3 new bonsai 0 --batch-size 1 --amp; job 3 before cup 1 --batch-size 1; } & wait; } &
wait; el "30k"
tar -C $L -cf $OUT/logs.tar .
