# Device run 8: cup at batch 4 on two GPUs, main's binary at the start of the session (o, 44b6bda) and
# the final code (n, 70e9420) alternated three times, seed 0: whether the chunks by share move cup.
L=$OUT/l; mkdir -p $L; R=/tmp/runs; rm -rf $R; mkdir -p $R; nvidia-smi -L > $L/gpus.txt
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*" >> $L/order.txt; tar -C $L -cf $OUT/logs.tar .; }
job() { local b=$1 g=$2 seed=$3 scene=$4 k=$5; shift 5; local tag=$(echo "$*" | tr -d ' -')
  CUDA_VISIBLE_DEVICES=$g ./splatlab_$b train gpu-data/$scene --seed $seed "$@" --out $R/$b-$scene-$seed-$g 2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/train-$b-$scene-$tag-s$seed-gpu${g/,/}-$k.log
  rm -rf $R/$b-$scene-$seed-$g; el "$b $g $seed $scene $k $*"; }
for k in 1 2 3; do job o 0,1 0 cup $k --batch-size 4 --gpus 2; job n 0,1 0 cup $k --batch-size 4 --gpus 2; done
