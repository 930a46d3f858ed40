# Device run 6: the final tree (f2c5e71: α's exponent in base 2, the conic's moments). Every [gpu]
# suite, test_ranks and test_app on both GPUs; bench_raster --quick on each GPU; AMP against fp32 at
# batch 1 (bonsai 30k, seeds 0 and 1, side by side); then the two-GPU targets: one-GPU runs at batch 4
# two at a time (GPUs 0 and 1), then two GPUs alone.
set -f
L=$OUT/l; mkdir -p $L; R=/tmp/runs; rm -rf $R; mkdir -p $R; nvidia-smi -L > $L/gpus.txt
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*" >> $L/order.txt; tar -C $L -cf $OUT/logs.tar .; }
mkdir -p build/app && cp splatlab_f build/app/splatlab
tests() { for t in "$@"; do set -- $t; s=$(date +%s)
    CUDA_VISIBLE_DEVICES=$3 timeout 200 ./${1}_f "$2" > $L/$1-${2//[\[\]]/}.txt 2>&1; echo "$1 $2 rc=$? $(tail -2 $L/$1-${2//[\[\]]/}.txt | tr '\n' ' ') ($(( $(date +%s)-s )) s)" >> $L/tests.txt; done; }
tests "test_kernels [gpu] 0" & tests "test_core [gpu] 1" "test_ui [gpu] 1" & wait
tests "test_ranks [gpu] 0,1" "test_ranks [nccl] 0,1" "test_app [gpu] 0,1"; el tests
CUDA_VISIBLE_DEVICES=0 ./bench_raster_f --quick > $L/bench_raster_gpu0.txt 2>&1 & CUDA_VISIBLE_DEVICES=1 ./bench_raster_f --quick > $L/bench_raster_gpu1.txt 2>&1 & wait; el bench_raster
job() { local g=$1 scene=$2 seed=$3; shift 3; local tag=$(echo "$*" | tr -d ' -')
  CUDA_VISIBLE_DEVICES=$g ./splatlab_f train gpu-data/$scene --seed $seed "$@" --out $R/$scene-$seed-$g 2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/train-$scene-$tag-s$seed-gpu${g/,/}.log
  rm -rf $R/$scene-$seed-$g; el "$g $scene $seed $*"; }
job 0 bonsai 0 --batch-size 1 & job 1 bonsai 0 --batch-size 1 --amp & wait
job 0 bonsai 1 --batch-size 1 --amp & job 1 bonsai 1 --batch-size 1 & wait
M="--strategy mcmc --cap-max 1000000"
{ job 0 bonsai 0 --batch-size 4; job 0 bonsai 0 --batch-size 4 $M; } &
{ job 1 bonsai 1 --batch-size 4; job 1 cup 0 --batch-size 4; job 1 cup 1 --batch-size 4; } & wait
for s in 0 1; do job 0,1 bonsai $s --batch-size 4 --gpus 2; done; job 0,1 bonsai 0 --batch-size 4 --gpus 2 $M
for s in 0 1; do job 0,1 cup $s --batch-size 4 --gpus 2; done
