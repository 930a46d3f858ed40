# Device run 7 (right after run 6, same machine): this tree (n), bonsai: one GPU at batch 1 (seeds 0, 1
# side by side) and two GPUs at batch 8 (seeds 0, 1); timelines of bonsai 30k at batch 4, default, seed 0,
# on one GPU and on two.
L=$OUT/l; mkdir -p $L; R=/tmp/runs; rm -rf $R; mkdir -p $R; nvidia-smi -L > $L/gpus.txt
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*" >> $L/order.txt; tar -C $L -cf $OUT/logs.tar .; }
job() { local g=$1 seed=$2; shift 2; local tag=$(echo "$*" | tr -d ' -')
  CUDA_VISIBLE_DEVICES=$g ./splatlab_n train gpu-data/bonsai --seed $seed "$@" --out $R/$seed-$g 2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/train-n-$tag-s$seed-gpu${g/,/}.log
  rm -rf $R/$seed-$g; el "$g $seed $*"; }
job 0 0 --batch-size 1 & job 1 1 --batch-size 1 & wait
for s in 0 1; do job 0,1 $s --batch-size 8 --gpus 2; done
trace() { local tag=$1 g=$2; shift 2
  CUDA_VISIBLE_DEVICES=$g LD_LIBRARY_PATH=$PWD:$LD_LIBRARY_PATH CUDA_INJECTION64_PATH=$PWD/libkernel_trace.so \
    KERNEL_TRACE_OUT=$R/$tag.csv ./splatlab_n train gpu-data/bonsai --seed 0 --batch-size 4 "$@" \
    --out $R/t-$tag 2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/trace-$tag.log
  xz -T8 -6 -c $R/$tag.csv > $L/$tag.csv.xz; rm -rf $R/t-$tag $R/$tag.csv; el "trace $tag"; }
trace n-def-g1 0
trace n-def-g2 0,1 --gpus 2
