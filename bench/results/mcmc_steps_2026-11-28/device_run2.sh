# Device run 2: the whole run's timelines. Main's binary (642c26d). Bonsai 30k at batch 4, default
# strategy, seed 0: traced on two GPUs, then on one GPU (GPU 0) while GPU 1 trains MCMC (cap 1M) seed 1
# on one GPU; then MCMC seed 1 on two GPUs (the MCMC target's second seed).
L=$OUT/l; mkdir -p $L; R=/tmp/runs; rm -rf $R; mkdir -p $R; nvidia-smi -L > $L/gpus.txt
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*" >> $L/order.txt; tar -C $L -cf $OUT/logs.tar .; }
M="--strategy mcmc --cap-max 1000000"
trace() { local tag=$1 g=$2; shift 2
  CUDA_VISIBLE_DEVICES=$g LD_LIBRARY_PATH=$PWD:$LD_LIBRARY_PATH CUDA_INJECTION64_PATH=$PWD/libkernel_trace.so \
    KERNEL_TRACE_OUT=$R/$tag.csv ./splatlab train gpu-data/bonsai --seed 0 --batch-size 4 "$@" \
    --out $R/t-$tag 2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/trace-$tag.log
  xz -T8 -6 -c $R/$tag.csv > $L/$tag.csv.xz; rm -rf $R/t-$tag $R/$tag.csv; el "trace $tag"; }
job() { local g=$1 scene=$2 seed=$3; shift 3; local tag=$(echo "$*" | tr -d ' -')
  CUDA_VISIBLE_DEVICES=$g ./splatlab train gpu-data/$scene --seed $seed "$@" --out $R/$scene-$seed-$g 2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/train-$scene-$tag-s$seed-gpu${g/,/}.log
  rm -rf $R/$scene-$seed-$g; el "$g $scene $seed $*"; }
trace def-g2 0,1 --gpus 2
trace def-g1 0 & job 1 bonsai 1 --batch-size 4 $M & wait
job 0,1 bonsai 1 --batch-size 4 --gpus 2 $M
