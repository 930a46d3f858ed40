# Device run 4: main (m, 00f9c4b) against the tree with step marks in a ring of 32 (every step's waits
# reach the rebalance window), the gated traffic counted one step in 8 and the host copies written by a
# kernel (n). [gpu] tests of n; n's two-GPU timeline over bonsai's first 6,000 images at batch 4; bonsai
# 30k at batch 4 on two GPUs (m, n alternated, seeds 0 and 1) with the ranks' metrics kept; one GPU at
# batch 4 (m and n side by side, then swapped).
L=$OUT/l; mkdir -p $L; R=/tmp/runs; rm -rf $R; mkdir -p $R; nvidia-smi -L > $L/gpus.txt
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*" >> $L/order.txt; tar -C $L -cf $OUT/logs.tar .; }
mkdir -p build/app && cp splatlab_n build/app/splatlab
tests() { for t in "$@"; do set -- $t; s=$(date +%s)
    CUDA_VISIBLE_DEVICES=$3 timeout 200 ./${1}_n "$2" > $L/$1-${2//[\[\]]/}.txt 2>&1; echo "$1 $2 rc=$? $(tail -2 $L/$1-${2//[\[\]]/}.txt | tr '\n' ' ') ($(( $(date +%s)-s )) s)" >> $L/tests.txt; done; }
tests "test_kernels [gpu] 0" & tests "test_core [gpu] 1" & wait
tests "test_ranks [gpu] 0,1"; el tests
CUDA_VISIBLE_DEVICES=0,1 LD_LIBRARY_PATH=$PWD:$LD_LIBRARY_PATH CUDA_INJECTION64_PATH=$PWD/libkernel_trace.so \
  KERNEL_TRACE_OUT=$R/n-g2b4.csv ./splatlab_n train gpu-data/bonsai --seed 0 --images 6000 --batch-size 4 --gpus 2 \
  --out $R/t 2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/trace-n-g2b4.log
xz -T8 -6 -c $R/n-g2b4.csv > $L/n-g2b4.csv.xz; cp $R/t/metrics.jsonl $L/trace-n-g2b4.metrics.jsonl; rm -rf $R/t; el trace
job() { local b=$1 g=$2 seed=$3; shift 3; local tag=$(echo "$*" | tr -d ' -')
  CUDA_VISIBLE_DEVICES=$g ./splatlab_$b train gpu-data/bonsai --seed $seed "$@" --out $R/$b-$seed-$g 2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/train-$b-$tag-s$seed-gpu${g/,/}.log
  cp $R/$b-$seed-$g/metrics.jsonl $L/train-$b-$tag-s$seed-gpu${g/,/}.metrics.jsonl; rm -rf $R/$b-$seed-$g; el "$b $g $seed $*"; }
for s in 0 1; do job m 0,1 $s --batch-size 4 --gpus 2; job n 0,1 $s --batch-size 4 --gpus 2; done
job m 0 0 --batch-size 4 & job n 1 0 --batch-size 4 & wait
job n 0 1 --batch-size 4 & job m 1 1 --batch-size 4 & wait
