# Device run 3: the dispatch plan in two launches (n: with run 1's tile ranges and the unused room
# filled 16 bytes at a time) against main (o, 0512403). Every [gpu] suite of n (test_ranks and test_app
# on GPUs 0,1); bench_raster --quick o/n swapped on GPUs 2, 3; bonsai b1/b4 and cup b1 --profile over
# 5,000 images; then bonsai 30k at batch 1 (seeds 0, 1) and batch 4 (seed 0), o and n side by side.
set -f
L=$OUT/l; mkdir -p $L; R=/tmp/runs; mkdir -p $R; nvidia-smi -L > $L/gpus.txt
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*" >> $L/order.txt; tar -C $L -cf $OUT/logs.tar .; }
mkdir -p build/app && cp splatlab_n build/app/splatlab
tests() { for t in "$@"; do set -- $t; s=$(date +%s)
    CUDA_VISIBLE_DEVICES=$3 timeout 200 ./${1}_n "$2" > $L/$1-${2//[\[\]]/}.txt 2>&1; echo "$1 $2 rc=$? $(tail -2 $L/$1-${2//[\[\]]/}.txt | tr '\n' ' ') ($(( $(date +%s)-s )) s)" >> $L/tests.txt; done; }
braster() { CUDA_VISIBLE_DEVICES=$1 ./bench_raster_$2 --quick > $L/bench_raster_$2_gpu$1_$3.txt 2>&1; }
tests "test_kernels [gpu] 0" "test_core [gpu] 0" "test_ui [gpu] 0" "test_ranks [gpu] 0,1" "test_ranks [nccl] 0,1" "test_app [gpu] 0,1" &
{ braster 2 o a & braster 3 n a & wait; braster 2 n b & braster 3 o b & wait; } ; wait; el "tests, bench_raster"
prof() { CUDA_VISIBLE_DEVICES=$1 ./splatlab_$2 train gpu-data/$3 --images 5000 --eval-every 0 \
  --log-every 5000 --profile --batch-size $4 --seed 0 --out $R/prof-$1 2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/prof-$2-$3-b$4-5000.log; rm -rf $R/prof-$1; }
prof 0 o bonsai 1 & prof 1 n bonsai 1 & prof 2 o bonsai 4 & prof 3 n bonsai 4 & wait
prof 0 o cup 1 & prof 1 n cup 1 & wait; el "profiles"
job() { CUDA_VISIBLE_DEVICES=$1 ./splatlab_$2 train gpu-data/bonsai --seed $3 --batch-size $4 --out $R/$2-$1 2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/train-$2-bonsai-b$4-s$3-gpu$1.log; rm -rf $R/$2-$1; }
{ job 0 o 0 1; job 0 n 1 1; } & { job 1 n 0 1; job 1 o 1 1; } & { job 2 o 0 4; job 2 n 0 4; } & wait; el "30k"
