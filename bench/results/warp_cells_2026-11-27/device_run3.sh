# Device run 3 (session 22): the final binaries (new: 191e167, warp cells in both blending kernels and in
# the forward's lanes of long tiles) against main's (eef6f46). Every [gpu] suite of new on GPUs 0,1
# while GPUs 2,3 train bonsai on two GPUs at batch 4 (seeds 0, 1; default and MCMC cap 1M, seed 0);
# then 30k runs, each alone on its GPU, main and new side by side: bonsai batch 1 and 4, seeds 0 and 1;
# cup batch 1, seeds 0 and 1; new with --amp (bonsai batch 1, seed 0); MCMC cap 1M on one GPU at batch 4.
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
{ job 2,3 new bonsai 0 --batch-size 4 --gpus 2; job 2,3 new bonsai 1 --batch-size 4 --gpus 2; job 2,3 new bonsai 0 --batch-size 4 --gpus 2 $M; } &
wait $T $!; el "tests and two GPUs"
{ job 0 main bonsai 0 --batch-size 1; job 0 main bonsai 1 --batch-size 1; job 0 main cup 0 --batch-size 1; } &
{ job 1 new bonsai 0 --batch-size 1; job 1 new bonsai 1 --batch-size 1; job 1 new cup 0 --batch-size 1; job 1 new bonsai 0 --batch-size 1 --amp; } &
{ job 2 main bonsai 0 --batch-size 4; job 2 main bonsai 1 --batch-size 4; job 2 main cup 1 --batch-size 1; job 2 new bonsai 0 --batch-size 4 $M; } &
{ job 3 new bonsai 0 --batch-size 4; job 3 new bonsai 1 --batch-size 4; job 3 new cup 1 --batch-size 1; } &
wait; el "30k"
tar -C $L -cf $OUT/logs.tar .
