# Device run 8: the default strategy's sort cadence. a = this tree (rows sorted every fourth refinement,
# curve_sort_every 400), e = the same with every refinement (100). Bonsai 30k at batch 4: one GPU, a and
# e side by side (GPUs 0 and 1, swapped for seed 1); two GPUs, a and e alternated, seed 0.
L=$OUT/l; mkdir -p $L; R=/tmp/runs; rm -rf $R; mkdir -p $R; nvidia-smi -L > $L/gpus.txt
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*" >> $L/order.txt; tar -C $L -cf $OUT/logs.tar .; }
job() { local b=$1 g=$2 seed=$3; shift 3; local tag=$(echo "$*" | tr -d ' -')
  CUDA_VISIBLE_DEVICES=$g ./splatlab_$b train gpu-data/bonsai --seed $seed "$@" --out $R/$b-$seed-$g 2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/train-$b-$tag-s$seed-gpu${g/,/}.log
  rm -rf $R/$b-$seed-$g; el "$b $g $seed $*"; }
job a 0 0 --batch-size 4 & job e 1 0 --batch-size 4 & wait
job e 0 1 --batch-size 4 & job a 1 1 --batch-size 4 & wait
job a 0,1 0 --batch-size 4 --gpus 2; job e 0,1 0 --batch-size 4 --gpus 2
