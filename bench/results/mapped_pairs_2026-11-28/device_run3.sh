# Device run 3: the owners reading their pairs' gradients where the renderers computed them (n, fb18c48)
# against the projection into the renderers' columns alone (m, 1df3b35) and main's step (o, aa3a739), on
# two GPUs. The [gpu] tests of the stages and the ranks (2 ranks on 2 GPUs included); bonsai 30k at batch 4
# on two GPUs, o, m and n in turn, seeds 0, 1; MCMC cap 1M on two GPUs, seed 0; n's two-GPU timeline of
# the first 10,000 images.
L=$OUT/l; mkdir -p $L; R=/tmp/runs; rm -rf $R; mkdir -p $R; nvidia-smi -L > $L/gpus.txt
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*" >> $L/order.txt; tar -C $L -cf $OUT/logs.tar .; }
tests() { for t in "$@"; do set -- $t; s=$(date +%s)
    CUDA_VISIBLE_DEVICES=$3 timeout 200 ./${1}_n "$2" > $L/$1-${2//[\[\]]/}.txt 2>&1; echo "$1 $2 rc=$? $(tail -2 $L/$1-${2//[\[\]]/}.txt | tr '\n' ' ') ($(( $(date +%s)-s )) s)" >> $L/tests.txt; done; }
tests "test_ranks [gpu] 0,1" "test_ranks [nccl] 0,1"; el tests
job() { local b=$1 g=$2 seed=$3; shift 3; local tag=$(echo "$*" | tr -d ' -')
  CUDA_VISIBLE_DEVICES=$g ./splatlab_$b train gpu-data/bonsai --seed $seed "$@" --out $R/$b-$seed-$g 2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/train-$b-$tag-s$seed-gpu${g/,/}.log
  rm -rf $R/$b-$seed-$g; el "$b $g $seed $*"; }
for s in 0 1; do for b in o m n; do job $b 0,1 $s --batch-size 4 --gpus 2; done; done
M="--strategy mcmc --cap-max 1000000"
for b in o m n; do job $b 0,1 0 --batch-size 4 --gpus 2 $M; done
CUDA_VISIBLE_DEVICES=0,1 LD_LIBRARY_PATH=$PWD:$LD_LIBRARY_PATH CUDA_INJECTION64_PATH=$PWD/libkernel_trace.so \
  KERNEL_TRACE_OUT=$R/n-g2.csv ./splatlab_n train gpu-data/bonsai --seed 0 --images 10000 --batch-size 4 --gpus 2 \
  --out $R/t 2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/trace-n-g2.log
xz -T8 -6 -c $R/n-g2.csv > $L/n-g2.csv.xz; rm -rf $R/t $R/n-g2.csv; el trace
