# Device run 6 (session 19): the compact mode on the last tree (binary of eb5cf8c): MCMC with its cap at
# 600,000 Gaussians on bonsai, 30k images, seeds 0-2, batch 4 and batch 1, one run alone on each GPU.
set -f
L=$OUT/l; mkdir -p $L; R=/tmp/runs; mkdir -p $R; nvidia-smi -L > $L/gpus.txt
t0=$(date +%s)
job() { local gpus=$1 tag=$2 seed=$3; shift 3
  echo "gpu $gpus start $(( $(date +%s) - t0 )) s: $tag $seed $*" >> $L/order.txt
  CUDA_VISIBLE_DEVICES=$gpus ./splatlab train gpu-data/bonsai --seed $seed "$@" --out $R/$tag-s$seed 2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/train-$tag-s$seed.log
  rm -rf $R/$tag-s$seed; }
m="--strategy mcmc --cap-max 600000"
{ job 0 mcmc600k-b4 0 $m --batch-size 4; job 0 mcmc600k-b1 1 $m --batch-size 1; } &
{ job 1 mcmc600k-b4 1 $m --batch-size 4; job 1 mcmc600k-b1 2 $m --batch-size 1; } &
job 2 mcmc600k-b4 2 $m --batch-size 4 & job 3 mcmc600k-b1 0 $m --batch-size 1 & wait
tar -C $L -cf $OUT/logs.tar .
