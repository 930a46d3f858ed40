# Device run 4: MCMC's rows along the Morton curve (n, this tree) against main (o, 642c26d).
# n's two-GPU timeline over bonsai's first 10,000 images (MCMC
# cap 1M, batch 4, as run 1 traced o); bonsai 30k MCMC cap 1M at batch 4 on two GPUs, o and n
# alternated, seeds 0, 1; then on one GPU, o and n side by side (GPUs 0 and 1, swapped for seed 1).
L=$OUT/l; mkdir -p $L; R=/tmp/runs; rm -rf $R; mkdir -p $R; nvidia-smi -L > $L/gpus.txt
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*" >> $L/order.txt; tar -C $L -cf $OUT/logs.tar .; }
tests() { for t in "$@"; do set -- $t; s=$(date +%s)
    CUDA_VISIBLE_DEVICES=$3 timeout 200 ./${1}_n "$2" > $L/$1-${2//[\[\]]/}.txt 2>&1; echo "$1 $2 rc=$? $(tail -2 $L/$1-${2//[\[\]]/}.txt | tr '\n' ' ') ($(( $(date +%s)-s )) s)" >> $L/tests.txt; done; }
# (the [gpu] suites run in the final check, run 5: the upload limit)
M="--strategy mcmc --cap-max 1000000"
CUDA_VISIBLE_DEVICES=0,1 LD_LIBRARY_PATH=$PWD:$LD_LIBRARY_PATH CUDA_INJECTION64_PATH=$PWD/libkernel_trace.so \
  KERNEL_TRACE_OUT=$R/n-mcmc-g2.csv ./splatlab_n train gpu-data/bonsai --seed 0 --images 10000 --batch-size 4 --gpus 2 $M \
  --out $R/t 2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/trace-n-mcmc-g2.log
xz -T8 -6 -c $R/n-mcmc-g2.csv > $L/n-mcmc-g2.csv.xz; rm -rf $R/t $R/n-mcmc-g2.csv; el trace
job() { local b=$1 g=$2 seed=$3; shift 3; local tag=$(echo "$*" | tr -d ' -')
  CUDA_VISIBLE_DEVICES=$g ./splatlab_$b train gpu-data/bonsai --seed $seed "$@" --out $R/$b-$seed-$g 2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/train-$b-$tag-s$seed-gpu${g/,/}.log
  rm -rf $R/$b-$seed-$g; el "$b $g $seed $*"; }
for s in 0 1; do job o 0,1 $s --batch-size 4 --gpus 2 $M; job n 0,1 $s --batch-size 4 --gpus 2 $M; done
job n 0 0 --batch-size 4 $M & job o 1 0 --batch-size 4 $M & wait
job o 0 1 --batch-size 4 $M & job n 1 1 --batch-size 4 $M & wait
