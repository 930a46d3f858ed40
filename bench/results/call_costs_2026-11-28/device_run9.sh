# Device run 9: four GPUs with the final binary (x, 67815fd) and main's of the session's start (m,
# 00f9c4b): bonsai 30k, seed 0, each run alone on the machine: one GPU at batch 4 (x), two GPUs at
# batch 4 (x), four GPUs at batch 4 (m, x), 8 and 16 (x); metrics kept for the shards' shares.
L=$OUT/l; mkdir -p $L; R=/tmp/runs; rm -rf $R; mkdir -p $R; nvidia-smi -L > $L/gpus.txt
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*" >> $L/order.txt; tar -C $L -cf $OUT/logs.tar .; }
mkdir -p build/app && cp splatlab_x build/app/splatlab
job() { local b=$1 g=$2 seed=$3; shift 3; local tag=$(echo "$*" | tr -d ' -')
  CUDA_VISIBLE_DEVICES=$g ./splatlab_$b train gpu-data/bonsai --seed $seed "$@" --out $R/$b-$seed 2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/train-$b-$tag-s$seed-gpu${g//,/}.log
  cp $R/$b-$seed/metrics.jsonl $L/train-$b-$tag-s$seed-gpu${g//,/}.metrics.jsonl; rm -rf $R/$b-$seed; el "$b $g $seed $*"; }
job x 0,1,2,3 0 --batch-size 4 --gpus 4
job m 0,1,2,3 0 --batch-size 4 --gpus 4
job x 0,1,2,3 0 --batch-size 8 --gpus 4
job x 0,1,2,3 0 --batch-size 16 --gpus 4
job x 0,1 0 --batch-size 4 --gpus 2
job x 0 0 --batch-size 4
