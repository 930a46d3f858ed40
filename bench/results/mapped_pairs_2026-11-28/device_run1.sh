# Device run 1: the projection writing each pair into the receiving rank's columns (n, 1df3b35) against
# main's step (o, binary of aa3a739: the same step code as 0287c84). First the new [gpu] tests; then
# bonsai 30k at batch 4 on two GPUs, o and n alternated, seeds 0, 1; MCMC cap 1M on two GPUs, o and n,
# seed 0; one GPU, o and n side by side (GPUs 0 and 1); n's two-GPU timeline of the first 10,000 images.
L=$OUT/l; mkdir -p $L; R=/tmp/runs; rm -rf $R; mkdir -p $R; nvidia-smi -L > $L/gpus.txt
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*" >> $L/order.txt; tar -C $L -cf $OUT/logs.tar .; }
tests() { for t in "$@"; do set -- $t; s=$(date +%s)
    CUDA_VISIBLE_DEVICES=$3 timeout 200 ./${1}_n "$2" > $L/$1-${2//[\[\]]/}.txt 2>&1; echo "$1 $2 rc=$? $(tail -2 $L/$1-${2//[\[\]]/}.txt | tr '\n' ' ') ($(( $(date +%s)-s )) s)" >> $L/tests.txt; done; }
tests "test_kernels [stages] 0" "test_ranks [gpu] 0,1" "test_ranks [nccl] 0,1"; el tests
job() { local b=$1 g=$2 seed=$3; shift 3; local tag=$(echo "$*" | tr -d ' -')
  CUDA_VISIBLE_DEVICES=$g ./splatlab_$b train gpu-data/bonsai --seed $seed "$@" --out $R/$b-$seed-$g 2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/train-$b-$tag-s$seed-gpu${g/,/}.log
  rm -rf $R/$b-$seed-$g; el "$b $g $seed $*"; }
for s in 0 1; do job o 0,1 $s --batch-size 4 --gpus 2; job n 0,1 $s --batch-size 4 --gpus 2; done
M="--strategy mcmc --cap-max 1000000"
job o 0,1 0 --batch-size 4 --gpus 2 $M; job n 0,1 0 --batch-size 4 --gpus 2 $M
job n 0 0 --batch-size 4 & job o 1 0 --batch-size 4 & wait
CUDA_VISIBLE_DEVICES=0,1 LD_LIBRARY_PATH=$PWD:$LD_LIBRARY_PATH CUDA_INJECTION64_PATH=$PWD/libkernel_trace.so \
  KERNEL_TRACE_OUT=$R/n-g2.csv ./splatlab_n train gpu-data/bonsai --seed 0 --images 10000 --batch-size 4 --gpus 2 \
  --out $R/t 2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/trace-n-g2.log
xz -T8 -6 -c $R/n-g2.csv > $L/n-g2.csv.xz; rm -rf $R/t $R/n-g2.csv; el trace
