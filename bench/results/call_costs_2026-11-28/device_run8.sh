# Device run 8, right after run 7 on the same machine: the one-GPU side of the targets with the final
# binary (x) and run 6's (w) side by side (GPUs 0 and 1, then swapped): bonsai 30k at batch 4 and at
# batch 1; MCMC (cap 1M) and cup at batch 4 on one GPU; then MCMC and cup on two GPUs.
L=$OUT/l; mkdir -p $L; R=/tmp/runs; rm -rf $R; mkdir -p $R; nvidia-smi -L > $L/gpus.txt
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*" >> $L/order.txt; tar -C $L -cf $OUT/logs.tar .; }
job() { local b=$1 g=$2 scene=$3 seed=$4; shift 4; local tag=$(echo "$*" | tr -d ' -')
  CUDA_VISIBLE_DEVICES=$g ./splatlab_$b train gpu-data/$scene --seed $seed "$@" --out $R/$b-$scene-$seed-$g 2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/train-$b-$scene-$tag-s$seed-gpu${g/,/}.log
  rm -rf $R/$b-$scene-$seed-$g; el "$b $g $scene $seed $*"; }
M="--strategy mcmc --cap-max 1000000"
job x 0 bonsai 0 --batch-size 4 & job w 1 bonsai 0 --batch-size 4 & wait
job w 0 bonsai 1 --batch-size 4 & job x 1 bonsai 1 --batch-size 4 & wait
job x 0 bonsai 0 --batch-size 1 & job w 1 bonsai 0 --batch-size 1 & wait
job x 0 bonsai 0 --batch-size 4 $M & { job x 1 cup 0 --batch-size 4; job x 1 cup 1 --batch-size 4; } & wait
job x 0,1 bonsai 0 --batch-size 4 --gpus 2 $M
for s in 0 1; do job x 0,1 cup $s --batch-size 4 --gpus 2; done
