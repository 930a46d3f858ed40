# Device run 7: the targets on the final code (n, 70e9420; 381ccf5 adds only records) with main's binary
# at the start of the session (o, 44b6bda) beside it on one GPU. Bonsai 30k at batch 4: one GPU, o and n
# side by side (GPUs 0 and 1, swapped for seed 1), then n on two GPUs (seeds 0, 1); MCMC cap 1M likewise;
# cup at batch 4 likewise; batch 1 on one GPU (o and n side by side, seed 0) and n at batch 8 on two GPUs
# (seeds 0, 1).
L=$OUT/l; mkdir -p $L; R=/tmp/runs; rm -rf $R; mkdir -p $R; nvidia-smi -L > $L/gpus.txt
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*" >> $L/order.txt; tar -C $L -cf $OUT/logs.tar .; }
job() { local b=$1 g=$2 seed=$3 scene=$4; shift 4; local tag=$(echo "$*" | tr -d ' -')
  CUDA_VISIBLE_DEVICES=$g ./splatlab_$b train gpu-data/$scene --seed $seed "$@" --out $R/$b-$scene-$seed-$g 2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/train-$b-$scene-$tag-s$seed-gpu${g/,/}.log
  rm -rf $R/$b-$scene-$seed-$g; el "$b $g $seed $scene $*"; }
M="--strategy mcmc --cap-max 1000000"
for a in "bonsai --batch-size 4" "bonsai --batch-size 4 $M" "cup --batch-size 4"; do
  job n 0 0 $a & job o 1 0 $a & wait
  job o 0 1 $a & job n 1 1 $a & wait
  for s in 0 1; do job n 0,1 $s $a --gpus 2; done
done
job n 0 0 bonsai --batch-size 1 & job o 1 0 bonsai --batch-size 1 & wait
for s in 0 1; do job n 0,1 $s bonsai --batch-size 8 --gpus 2; done
