# Device run 4: the targets on the final binary (n, fb18c48; o, aa3a739, main's step, for the one-GPU
# check). Bonsai 30k at batch 4 on one GPU, o and n side by side (GPUs 0 and 1, swapped for seed 1);
# bonsai at batch 1 on one GPU, n, seeds 0, 1 side by side; two GPUs at batch 8, seeds 0, 1; cup at
# batch 4 on one GPU (seeds 0, 1 side by side) and on two (seeds 0, 1); MCMC cap 1M at batch 4 on one
# GPU (seeds 0, 1 side by side) and on two (seed 1; seed 0 is run 3's).
L=$OUT/l; mkdir -p $L; R=/tmp/runs; rm -rf $R; mkdir -p $R; nvidia-smi -L > $L/gpus.txt
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*" >> $L/order.txt; tar -C $L -cf $OUT/logs.tar .; }
job() { local b=$1 g=$2 seed=$3 scene=$4; shift 4; local tag=$(echo "$*" | tr -d ' -')
  CUDA_VISIBLE_DEVICES=$g ./splatlab_$b train gpu-data/$scene --seed $seed "$@" --out $R/$b-$scene-$seed-$g 2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/train-$b-$scene-$tag-s$seed-gpu${g/,/}.log
  rm -rf $R/$b-$scene-$seed-$g; el "$b $g $seed $scene $*"; }
M="--strategy mcmc --cap-max 1000000"
job n 0 0 bonsai --batch-size 4 & job o 1 0 bonsai --batch-size 4 & wait
job o 0 1 bonsai --batch-size 4 & job n 1 1 bonsai --batch-size 4 & wait
job n 0 0 bonsai --batch-size 1 & job n 1 1 bonsai --batch-size 1 & wait
for s in 0 1; do job n 0,1 $s bonsai --batch-size 8 --gpus 2; done
job n 0 0 cup --batch-size 4 & job n 1 1 cup --batch-size 4 & wait
for s in 0 1; do job n 0,1 $s cup --batch-size 4 --gpus 2; done
job n 0 0 bonsai --batch-size 4 $M & job n 1 1 bonsai --batch-size 4 $M & wait
job n 0,1 1 bonsai --batch-size 4 --gpus 2 $M
