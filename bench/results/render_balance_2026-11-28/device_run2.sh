# Device run 2: the early ready token (c, 11:47 build of the tree with finish_mapped_reads) against run 1's
# binary (b, the render-cost split alone) and main's step (o, d312e40's binary), on two GPUs. test_ranks'
# [gpu] tests (the new one on the early token included) and [nccl]; timelines of bonsai's first 10,000
# images: c on two GPUs (default and MCMC cap 1M), o on one GPU (default and MCMC); bonsai 30k at batch 4 on
# two GPUs, b and c in turn, seeds 0, 1; MCMC cap 1M, seed 0.
L=$OUT/l; mkdir -p $L; R=/tmp/runs; rm -rf $R; mkdir -p $R; nvidia-smi -L > $L/gpus.txt
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*" >> $L/order.txt; tar -C $L -cf $OUT/logs.tar .; }
tests() { for t in "$@"; do set -- $t; s=$(date +%s)
    CUDA_VISIBLE_DEVICES=$3 timeout 200 ./${1}_c "$2" > $L/$1-${2//[\[\]]/}.txt 2>&1; echo "$1 $2 rc=$? $(tail -2 $L/$1-${2//[\[\]]/}.txt | tr '\n' ' ') ($(( $(date +%s)-s )) s)" >> $L/tests.txt; done; }
tests "test_ranks [gpu] 0,1" "test_ranks [nccl] 0,1"; el tests
job() { local b=$1 g=$2 seed=$3 scene=$4; shift 4; local tag=$(echo "$scene$*" | tr -d ' -')
  CUDA_VISIBLE_DEVICES=$g ./splatlab_$b train gpu-data/$scene --seed $seed "$@" --out $R/$b-$seed-$g 2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/train-$b-$tag-s$seed-gpu${g/,/}.log
  rm -rf $R/$b-$seed-$g; el "$b $g $seed $scene $*"; }
trace() { local b=$1 g=$2 name=$3; shift 3
  CUDA_VISIBLE_DEVICES=$g LD_LIBRARY_PATH=$PWD:$LD_LIBRARY_PATH CUDA_INJECTION64_PATH=$PWD/libkernel_trace.so \
    KERNEL_TRACE_OUT=$R/$name.csv ./splatlab_$b train gpu-data/bonsai --seed 0 --images 10000 --batch-size 4 "$@" \
    --out $R/t 2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/trace-$name.log
  xz -T8 -6 -c $R/$name.csv > $L/$name.csv.xz; rm -rf $R/t $R/$name.csv; el "trace $name"; }
M="--strategy mcmc --cap-max 1000000"
trace c 0,1 c-g2 --gpus 2; trace c 0,1 c-mcmc-g2 --gpus 2 $M; trace o 0 o-g1; trace o 0 o-mcmc-g1 $M
for s in 0 1; do for b in b c; do job $b 0,1 $s bonsai --batch-size 4 --gpus 2; done; done
for b in b c; do job $b 0,1 0 bonsai --batch-size 4 --gpus 2 $M; done
