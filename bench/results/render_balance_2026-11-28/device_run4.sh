# Device run 4: the targets on the final binary (f, a61c413; o, main's step, the binary of d312e40, for the
# one-GPU check). Bonsai 30k at batch 4 on one GPU, o and f side by side (GPUs 0 and 1, swapped for seed 1)
# and f on two GPUs (seeds 0, 1); bonsai at batch 1 on one GPU (f, seeds 0, 1 side by side) and at batch 8 on
# two GPUs; cup at batch 4, one GPU (side by side) and two; MCMC cap 1M at batch 4, one GPU (side by side)
# and two. Last, o's timeline of MCMC on one GPU at batch 2 (the first 10,000 images): the blends' cost per
# image at two images a call, as a two-GPU rank calls them.
L=$OUT/l; mkdir -p $L; R=/tmp/runs; rm -rf $R; mkdir -p $R; nvidia-smi -L > $L/gpus.txt
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*" >> $L/order.txt; tar -C $L -cf $OUT/logs.tar .; }
job() { local b=$1 g=$2 seed=$3 scene=$4; shift 4; local tag=$(echo "$*" | tr -d ' -')
  CUDA_VISIBLE_DEVICES=$g ./splatlab_$b train gpu-data/$scene --seed $seed "$@" --out $R/$b-$scene-$seed-$g 2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/train-$b-$scene-$tag-s$seed-gpu${g/,/}.log
  rm -rf $R/$b-$scene-$seed-$g; el "$b $g $seed $scene $*"; }
M="--strategy mcmc --cap-max 1000000"
job f 0 0 bonsai --batch-size 4 & job o 1 0 bonsai --batch-size 4 & wait
job o 0 1 bonsai --batch-size 4 & job f 1 1 bonsai --batch-size 4 & wait
for s in 0 1; do job f 0,1 $s bonsai --batch-size 4 --gpus 2; done
job f 0 0 bonsai --batch-size 1 & job f 1 1 bonsai --batch-size 1 & wait
for s in 0 1; do job f 0,1 $s bonsai --batch-size 8 --gpus 2; done
job f 0 0 cup --batch-size 4 & job f 1 1 cup --batch-size 4 & wait
for s in 0 1; do job f 0,1 $s cup --batch-size 4 --gpus 2; done
job f 0 0 bonsai --batch-size 4 $M & job f 1 1 bonsai --batch-size 4 $M & wait
for s in 0 1; do job f 0,1 $s bonsai --batch-size 4 --gpus 2 $M; done
CUDA_VISIBLE_DEVICES=0 LD_LIBRARY_PATH=$PWD:$LD_LIBRARY_PATH CUDA_INJECTION64_PATH=$PWD/libkernel_trace.so \
  KERNEL_TRACE_OUT=$R/o-mcmc-b2-g1.csv ./splatlab_o train gpu-data/bonsai --seed 0 --images 10000 --batch-size 2 $M \
  --out $R/t 2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/trace-o-mcmc-b2-g1.log
xz -T8 -6 -c $R/o-mcmc-b2-g1.csv > $L/o-mcmc-b2-g1.csv.xz; el trace
