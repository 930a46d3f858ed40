# Device run 5: the default strategy's rows back along the Morton curve every fourth refinement (n, this
# tree) against main (o, 642c26d). Bonsai 30k at batch 4, default strategy: one GPU, o and n side by side
# (GPUs 0 and 1, swapped for seed 1); then two GPUs, o and n alternated, seeds 0, 1.
L=$OUT/l; mkdir -p $L; R=/tmp/runs; rm -rf $R; mkdir -p $R; nvidia-smi -L > $L/gpus.txt
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*" >> $L/order.txt; tar -C $L -cf $OUT/logs.tar .; }
job() { local b=$1 g=$2 seed=$3; shift 3; local tag=$(echo "$*" | tr -d ' -')
  CUDA_VISIBLE_DEVICES=$g ./splatlab_$b train gpu-data/bonsai --seed $seed "$@" --out $R/$b-$seed-$g 2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/train-$b-$tag-s$seed-gpu${g/,/}.log
  rm -rf $R/$b-$seed-$g; el "$b $g $seed $*"; }
job n 0 0 --batch-size 4 & job o 1 0 --batch-size 4 & wait
job o 0 1 --batch-size 4 & job n 1 1 --batch-size 4 & wait
for s in 0 1; do job o 0,1 $s --batch-size 4 --gpus 2; job n 0,1 $s --batch-size 4 --gpus 2; done
