# Device run 4 (session 22): the two-GPU targets on the warp cells' binary (191e167): --profile of
# bonsai's first 10,000 images at batch 4 on one GPU and on two (default and MCMC cap 1M), then 30k
# runs: two GPUs at batch 8 (seeds 0, 1, against run 3's one GPU at batch 1), cup at batch 4 on one GPU
# (GPUs 0, 1) and on two (GPUs 2,3), seeds 0 and 1.
set -f
L=$OUT/l; mkdir -p $L; R=/tmp/runs; mkdir -p $R; nvidia-smi -L > $L/gpus.txt
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*" >> $L/order.txt; }
job() { local g=$1 bin=$2 scene=$3 seed=$4; shift 4; local tag=$(echo "$*" | tr -d ' -')
  echo "gpu $g start $(( $(date +%s) - t0 )) s: $bin $scene $seed $*" >> $L/order.txt
  CUDA_VISIBLE_DEVICES=$g ./splatlab_$bin train gpu-data/$scene --seed $seed "$@" --out $R/$bin-$scene-$seed-$g 2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/train-$bin-$scene-$tag-s$seed.log
  rm -rf $R/$bin-$scene-$seed-$g; }
P="--images 10000 --eval-every 0 --log-every 10000 --profile --batch-size 4"
M="--strategy mcmc --cap-max 1000000"
{ job 0 new bonsai 0 $P; job 0 new bonsai 0 $P $M; job 0 new cup 0 --batch-size 4; } &
{ job 2,3 new bonsai 0 $P --gpus 2; job 2,3 new bonsai 0 $P $M --gpus 2; } &
job 1 new cup 1 --batch-size 4 &
wait; el "profiles"
{ job 2,3 new bonsai 0 --batch-size 8 --gpus 2; job 2,3 new bonsai 1 --batch-size 8 --gpus 2; job 2,3 new cup 0 --batch-size 4 --gpus 2; job 2,3 new cup 1 --batch-size 4 --gpus 2; } &
wait; el "30k"
tar -C $L -cf $OUT/logs.tar .
