# Device run 7 (session 22): the two-GPU targets' second seed on the final binary (caa6990): one GPU
# at batch 1 (GPU 0) and two GPUs at batch 8 and 4 (GPUs 2,3), seed 1; cup at batch 4 on one GPU
# (GPU 1) and on two (GPUs 2,3), seeds 0 and 1.
set -f
L=$OUT/l; mkdir -p $L; R=/tmp/runs; mkdir -p $R; nvidia-smi -L > $L/gpus.txt
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*" >> $L/order.txt; }
job() { local g=$1 bin=$2 scene=$3 seed=$4; shift 4; local tag=$(echo "$*" | tr -d ' -')
  echo "gpu $g start $(( $(date +%s) - t0 )) s: $bin $scene $seed $*" >> $L/order.txt
  CUDA_VISIBLE_DEVICES=$g ./splatlab_$bin train gpu-data/$scene --seed $seed "$@" --out $R/$bin-$scene-$seed-$g 2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/train-$bin-$scene-$tag-s$seed.log
  rm -rf $R/$bin-$scene-$seed-$g; }
job 0 new bonsai 1 --batch-size 1 &
{ job 1 new cup 0 --batch-size 4; job 1 new cup 1 --batch-size 4; } &
{ job 2,3 new bonsai 1 --batch-size 8 --gpus 2; job 2,3 new bonsai 1 --batch-size 4 --gpus 2; job 2,3 new cup 0 --batch-size 4 --gpus 2; job 2,3 new cup 1 --batch-size 4 --gpus 2; } &
wait; el "30k"
tar -C $L -cf $OUT/logs.tar .
