# Device run 6: the dense projection backward leaving unseen rows' SH rest out of its loads (and, where it
# adds, its stores) (n) against HEAD a8f9a89 (o). Every [gpu] suite of n (test_ranks and test_app on
# GPUs 0,1); bonsai b1/b4 and cup b1 --profile over 5,000 images; bonsai 30k at batch 1, seeds 0 and 1,
# o and n alternated on GPUs 0 and 1, and with --amp (seed 0) on GPUs 2 and 3.
set -f
L=$OUT/l; mkdir -p $L; R=/tmp/runs; mkdir -p $R; nvidia-smi -L > $L/gpus.txt
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*" >> $L/order.txt; tar -C $L -cf $OUT/logs.tar .; }
mkdir -p build/app && cp splatlab_n build/app/splatlab
tests() { for t in "$@"; do set -- $t; s=$(date +%s)
    CUDA_VISIBLE_DEVICES=$3 timeout 200 ./${1}_n "$2" > $L/$1-${2//[\[\]]/}.txt 2>&1; echo "$1 $2 rc=$? $(tail -2 $L/$1-${2//[\[\]]/}.txt | tr '\n' ' ') ($(( $(date +%s)-s )) s)" >> $L/tests.txt; done; }
prof() { CUDA_VISIBLE_DEVICES=$1 ./splatlab_$2 train gpu-data/$3 --images 5000 --eval-every 0 \
  --log-every 5000 --profile --batch-size $4 --seed 0 --out $R/prof-$1 2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/prof-$2-$3-b$4-5000.log; rm -rf $R/prof-$1; }
tests "test_kernels [gpu] 0" "test_core [gpu] 0" "test_ui [gpu] 0" & tests "test_ranks [gpu] 1,2" "test_ranks [nccl] 1,2" "test_app [gpu] 1,2" &
{ prof 3 o bonsai 1; prof 3 n bonsai 1; prof 3 o cup 1; prof 3 n cup 1; prof 3 o bonsai 4; prof 3 n bonsai 4; } & wait; el "tests, profiles"
job() { CUDA_VISIBLE_DEVICES=$1 ./splatlab_$2 train gpu-data/bonsai --seed $3 --batch-size 1 $4 --out $R/$2-$1 2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/train-$2-bonsai-b1$4-s$3-gpu$1.log; rm -rf $R/$2-$1; }
{ job 0 o 0; job 0 n 1; } & { job 1 n 0; job 1 o 1; } & job 2 o 0 --amp & job 3 n 0 --amp & wait; el "30k"
