# Device run 6: the tree with the emission's rule and the tiles of a one-image call ordered by one block
# (new; EXP_NO_BLOCK_ORDER=1: the device-wide sort as before). Every [gpu] suite of new (the multi-GPU
# ones on GPUs 0,1; test_kernels/test_core also without the block order); bench_raster and bonsai
# --profile at batch 1 with and without it; then the one- and two-GPU targets side by side (one-GPU runs
# on GPUs 0 and 1, two-GPU runs on GPUs 2,3). logs.tar is rewritten after each phase.
set -f
L=$OUT/l; mkdir -p $L; R=/tmp/runs; mkdir -p $R; nvidia-smi -L > $L/gpus.txt
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*" >> $L/order.txt; tar -C $L -cf $OUT/logs.tar .; }
mkdir -p build/app && cp splatlab_new build/app/splatlab
job() { local g=$1 bin=$2 scene=$3 seed=$4; shift 4; local tag=$(echo "$*" | tr -d ' -')
  echo "gpu $g start $(( $(date +%s) - t0 )) s: $bin $scene $seed $*" >> $L/order.txt
  CUDA_VISIBLE_DEVICES=$g ./splatlab_$bin train gpu-data/$scene --seed $seed "$@" --out $R/$bin-$scene-$seed-$g 2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/train-$bin-$scene-$tag-s$seed.log
  rm -rf $R/$bin-$scene-$seed-$g; }
tests() { for t in "$@"; do set -- $t; s=$(date +%s)
    CUDA_VISIBLE_DEVICES=$3 timeout 200 ./${1}_new "$2" > $L/$1-${2//[\[\]]/}$4.txt 2>&1; echo "$1 $2 $4 rc=$? $(tail -2 $L/$1-${2//[\[\]]/}$4.txt | tr '\n' ' ') ($(( $(date +%s)-s )) s)" >> $L/tests.txt; done; }
braster() { CUDA_VISIBLE_DEVICES=$1 ./bench_raster_new > $L/bench_raster_$2.txt 2>&1; }
prof() { local g=$1 tag=$2; CUDA_VISIBLE_DEVICES=$g ./splatlab_new train gpu-data/bonsai --images 5000 --eval-every 0 \
  --log-every 5000 --profile --batch-size 1 --seed 0 --out $R/prof-$g 2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/prof-$tag-bonsai-b1-5000.log; rm -rf $R/prof-$g; }
{ tests "test_kernels [gpu] 3" "test_core [gpu] 3" "test_ui [gpu] 3"; EXP_NO_BLOCK_ORDER=1 tests "test_kernels [gpu] 3 -devsort" "test_core [gpu] 3 -devsort"; } &
{ tests "test_ranks [gpu] 0,1" "test_ranks [nccl] 0,1" "test_app [gpu] 0,1"; } &
{ braster 2 block; EXP_NO_BLOCK_ORDER=1 braster 2 devsort; prof 2 block; EXP_NO_BLOCK_ORDER=1 prof 2 devsort; } &
wait; el "tests, bench_raster, profiles"
M="--strategy mcmc --cap-max 1000000"
{ job 0 new bonsai 0 --batch-size 4; job 0 new cup 0 --batch-size 4; job 0 new bonsai 0 --batch-size 1; } &
{ job 1 new bonsai 1 --batch-size 4; job 1 new cup 1 --batch-size 4; job 1 new bonsai 1 --batch-size 1; } &
{ for s in 0 1; do job 2,3 new bonsai $s --batch-size 4 --gpus 2; done; el "2 GPUs b4"
  for s in 0 1; do job 2,3 new cup $s --batch-size 4 --gpus 2; done; job 2,3 new bonsai 0 --batch-size 4 --gpus 2 $M; el "2 GPUs cup, mcmc"
  for s in 0 1; do job 2,3 new bonsai $s --batch-size 8 --gpus 2; done; } &
wait; el "30k"
job 0 new bonsai 0 --batch-size 4 $M; el "mcmc 1 GPU"
