# Device run 1: is bonsai's 31.305 dB at two GPUs, batch 4, seed 1 (run 5 of warp_scatter_2026-11-28)
# a low draw or a change of the step? main (n, f9603a1) for seeds 1 (twice), 2, 3; the session's base
# (r, 7f93ae5: before the halved warp sums, the narrowed rooms and the asynchronous copies) and the tree
# before the rows reached (q, 9cf4af0) for seed 1; then one GPU for seeds 2 and 3 (n), side by side.
set -f
L=$OUT/l; mkdir -p $L; R=/tmp/runs; rm -rf $R; mkdir -p $R; nvidia-smi -L > $L/gpus.txt
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*" >> $L/order.txt; tar -C $L -cf $OUT/logs.tar .; }
job() { local v=$1 g=$2 scene=$3 seed=$4; shift 4; local tag=$(echo "$*" | tr -d ' -') o=$R/$v-$scene-$seed-${2/,/}
  CUDA_VISIBLE_DEVICES=$g ./splatlab_$v train gpu-data/$scene --seed $seed --eval-every 10000 "$@" --out $o 2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/train-$v-$scene-$tag-s$seed-gpu${g/,/}.log
  cp $o/metrics.jsonl $L/metrics-$v-$scene-$tag-s$seed-gpu${g/,/}.jsonl 2>/dev/null; rm -rf $o; el "$v $g $scene $seed $*"; }
for a in "n 1" "r 1" "q 1" "n 2" "n 1" "n 3"; do set -- $a; job $1 0,1 bonsai $2 --batch-size 4 --gpus 2; done
job n 0 bonsai 2 --batch-size 4 & job n 1 bonsai 3 --batch-size 4 & wait
