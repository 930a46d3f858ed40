# Device run 3: the adopted tree (n, 48088d0: the backward's warp sums halved first, four lanes; the tile
# rooms narrowed to twice the needs' spread over the last 1,024 calls) against main (o, 7f93ae5). Every
# [gpu] suite of n (test_ranks and test_app on both GPUs); bench_raster --quick rotated; 30k runs with
# --profile (overflow counts) side by side: bonsai batch 1 seeds 0 and 1, batch 4; cup batch 1 and 4;
# then two GPUs at batch 4 (bonsai), o and n in turn.
set -f
L=$OUT/l; mkdir -p $L; R=/tmp/runs; rm -rf $R; mkdir -p $R; nvidia-smi -L > $L/gpus.txt
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*" >> $L/order.txt; tar -C $L -cf $OUT/logs.tar .; }
mkdir -p build/app && cp splatlab_n build/app/splatlab
tests() { for t in "$@"; do set -- $t; s=$(date +%s)
    CUDA_VISIBLE_DEVICES=$3 timeout 200 ./${1}_n "$2" > $L/$1-${2//[\[\]]/}.txt 2>&1; echo "$1 $2 rc=$? $(tail -2 $L/$1-${2//[\[\]]/}.txt | tr '\n' ' ') ($(( $(date +%s)-s )) s)" >> $L/tests.txt; done; }
tests "test_kernels [gpu] 0" & tests "test_core [gpu] 1" "test_ui [gpu] 1" & wait
tests "test_ranks [gpu] 0,1" "test_ranks [nccl] 0,1" "test_app [gpu] 0,1"; el tests
br() { CUDA_VISIBLE_DEVICES=$2 ./bench_raster_$1 --quick > $L/bench_raster_$1_gpu$2_$3.txt 2>&1; }
br o 0 r1 & br n 1 r1 & wait; br n 0 r2 & br o 1 r2 & wait; el bench_raster
job() { local b=$1 g=$2 scene=$3 seed=$4; shift 4; local tag=$(echo "$*" | tr -d ' -')
  CUDA_VISIBLE_DEVICES=$g ./splatlab_$b train gpu-data/$scene --seed $seed --profile "$@" --out $R/$b-$scene-$seed-$g 2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/train-$b-$scene-$tag-s$seed-gpu$g.log
  rm -rf $R/$b-$scene-$seed-$g; }
job n 0 bonsai 0 --batch-size 1 & job o 1 bonsai 0 --batch-size 1 & wait
job o 0 bonsai 1 --batch-size 1 & job n 1 bonsai 1 --batch-size 1 & wait; el "bonsai b1"
job n 0 bonsai 0 --batch-size 4 & job o 1 bonsai 0 --batch-size 4 & wait; el "bonsai b4"
job o 0 cup 0 --batch-size 1 & job n 1 cup 0 --batch-size 1 & wait; el "cup b1"
job n 0 cup 0 --batch-size 4 & job o 1 cup 0 --batch-size 4 & wait; el "cup b4"
job o 0,1 bonsai 0 --batch-size 4 --gpus 2; job n 0,1 bonsai 0 --batch-size 4 --gpus 2; el "two GPUs"
