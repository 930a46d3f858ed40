# Device run 1: where MCMC's two-GPU step goes. Main's binary (642c26d). Timelines (bench/trace) of
# bonsai's first 10,000 images, MCMC cap 1M, batch 4, on two GPUs and on one; then the batch-8 target:
# one GPU at batch 1 (seeds 0, 1 side by side on GPUs 0 and 1) and two GPUs at batch 8 (seeds 0, 1).
L=$OUT/l; mkdir -p $L; R=/tmp/runs; rm -rf $R; mkdir -p $R; nvidia-smi -L > $L/gpus.txt
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*" >> $L/order.txt; tar -C $L -cf $OUT/logs.tar .; }
M="--strategy mcmc --cap-max 1000000"
trace() { local tag=$1 g=$2; shift 2
  CUDA_VISIBLE_DEVICES=$g LD_LIBRARY_PATH=$PWD:$LD_LIBRARY_PATH CUDA_INJECTION64_PATH=$PWD/libkernel_trace.so \
    KERNEL_TRACE_OUT=$R/$tag.csv ./splatlab train gpu-data/bonsai --seed 0 --images 10000 --batch-size 4 "$@" \
    --out $R/t 2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/trace-$tag.log
  xz -T8 -6 -c $R/$tag.csv > $L/$tag.csv.xz; rm -rf $R/t $R/$tag.csv; el "trace $tag"; }
trace mcmc-g2 0,1 --gpus 2 $M
trace mcmc-g1 0 $M
job() { local g=$1 scene=$2 seed=$3; shift 3; local tag=$(echo "$*" | tr -d ' -')
  CUDA_VISIBLE_DEVICES=$g ./splatlab train gpu-data/$scene --seed $seed "$@" --out $R/$scene-$seed-$g 2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/train-$scene-$tag-s$seed-gpu${g/,/}.log
  rm -rf $R/$scene-$seed-$g; el "$g $scene $seed $*"; }
job 0 bonsai 0 --batch-size 1 & job 1 bonsai 1 --batch-size 1 & wait
for s in 0 1; do job 0,1 bonsai $s --batch-size 8 --gpus 2; done
