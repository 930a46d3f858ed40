# Device run 4: the targets on n (29c69d9) with main at the start of the session (o, 5a599b3) beside it on
# one GPU. One GPU: o and n side by side (GPUs 0 and 1, swapped for seed 1) for bonsai at batch 4, MCMC cap
# 1M at batch 4, cup at batch 4 and bonsai at batch 1; then n on two GPUs, seeds 0 and 1, for each and for
# bonsai at batch 8.
L=$OUT/l; mkdir -p $L; R=/tmp/runs; rm -rf $R; mkdir -p $R; nvidia-smi -L > $L/gpus.txt
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*" >> $L/order.txt; tar -C $L -cf $OUT/logs.tar .; }
job() { local b=$1 g=$2 seed=$3 scene=$4; shift 4; local tag=$(echo "$*" | tr -d ' -')
  CUDA_VISIBLE_DEVICES=$g ./splatlab_$b train gpu-data/$scene --seed $seed "$@" --out $R/$b-$scene-$seed-$g 2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/train-$b-$scene-$tag-s$seed-gpu${g/,/}.log
  rm -rf $R/$b-$scene-$seed-$g; el "$b $g $seed $scene $*"; }
M="--strategy mcmc --cap-max 1000000"
for a in "bonsai --batch-size 4" "bonsai --batch-size 4 $M" "cup --batch-size 4" "bonsai --batch-size 1"; do
  job n 0 0 $a & job o 1 0 $a & wait
  job o 0 1 $a & job n 1 1 $a & wait
done
for a in "bonsai --batch-size 4" "bonsai --batch-size 4 $M" "cup --batch-size 4" "bonsai --batch-size 8"; do
  for s in 0 1; do job n 0,1 $s $a --gpus 2; done
done
