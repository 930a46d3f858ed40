# Device run 1: each batch split over the ranks by its views' learned render costs (b, aa07e5b) against
# main's step (o, the binary of d312e40, the same step code as 98f653b), on two GPUs. The [gpu] tests of
# the ranks (2 ranks on 2 GPUs included) and the step marks; both binaries' two-GPU timelines of bonsai's
# first 10,000 images; bonsai 30k at batch 4 on two GPUs, o and b in turn, seeds 0, 1; batch 8, MCMC cap
# 1M and cup at batch 4, seed 0.
L=$OUT/l; mkdir -p $L; R=/tmp/runs; rm -rf $R; mkdir -p $R; nvidia-smi -L > $L/gpus.txt
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*" >> $L/order.txt; tar -C $L -cf $OUT/logs.tar .; }
tests() { for t in "$@"; do set -- $t; s=$(date +%s)
    CUDA_VISIBLE_DEVICES=$3 timeout 200 ./${1}_b "$2" > $L/$1-${2//[\[\]]/}.txt 2>&1; echo "$1 $2 rc=$? $(tail -2 $L/$1-${2//[\[\]]/}.txt | tr '\n' ' ') ($(( $(date +%s)-s )) s)" >> $L/tests.txt; done; }
tests "test_ranks [gpu] 0,1" "test_ranks [nccl] 0,1" "test_kernels [phase_timer] 0"; el tests
job() { local b=$1 g=$2 seed=$3 scene=$4; shift 4; local tag=$(echo "$scene$*" | tr -d ' -')
  CUDA_VISIBLE_DEVICES=$g ./splatlab_$b train gpu-data/$scene --seed $seed "$@" --out $R/$b-$seed-$g 2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/train-$b-$tag-s$seed-gpu${g/,/}.log
  cp $R/$b-$seed-$g/metrics.jsonl $L/metrics-$b-$tag-s$seed.jsonl 2>/dev/null; rm -rf $R/$b-$seed-$g; el "$b $g $seed $scene $*"; }
trace() { local b=$1
  CUDA_VISIBLE_DEVICES=0,1 LD_LIBRARY_PATH=$PWD:$LD_LIBRARY_PATH CUDA_INJECTION64_PATH=$PWD/libkernel_trace.so \
    KERNEL_TRACE_OUT=$R/$b-g2.csv ./splatlab_$b train gpu-data/bonsai --seed 0 --images 10000 --batch-size 4 --gpus 2 \
    --out $R/t 2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/trace-$b-g2.log
  xz -T8 -6 -c $R/$b-g2.csv > $L/$b-g2.csv.xz; rm -rf $R/t $R/$b-g2.csv; el "trace $b"; }
trace o; trace b
for s in 0 1; do for b in o b; do job $b 0,1 $s bonsai --batch-size 4 --gpus 2; done; done
for b in o b; do job $b 0,1 0 bonsai --batch-size 8 --gpus 2; done
for b in o b; do job $b 0,1 0 bonsai --batch-size 4 --gpus 2 --strategy mcmc --cap-max 1000000; done
for b in o b; do job $b 0,1 0 cup --batch-size 4 --gpus 2; done
