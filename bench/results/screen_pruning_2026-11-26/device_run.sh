# Device run 2 (2026-11-26 session 13, nvidia-h100-x2): test_app [gpu] of the covering-pairs tree; screen-size
# pruning on (default 0.15) against off (--prune-scale2d 0, the reference trainer's default) on bonsai and cup,
# batch 4, 30k images, seeds 0-2, the two settings side by side on the two GPUs (GPUs swapped per seed);
# then 2 GPUs at batch 4 (bonsai, cup; seeds 0, 1) and one GPU at batch 1 (bonsai seeds 0, 1 side by side).
L=$OUT/l; mkdir -p $L; nvidia-smi -L
mkdir -p /work/main/build/app /work/main/build/tests && cp ./splatlab /work/main/build/app/ && cp ./dist_mpi_exchange /work/main/build/tests/
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
tst() { local bin=$1 tag=$3; timeout 200 ./$bin "$2" > $L/$bin.$tag.log 2>&1; echo "$bin $2 rc=$? $(tail -2 $L/$bin.$tag.log | tr '\n' ' ')" >> $L/tests.txt; }
tst test_app "[gpu]" a; el "app"
( CUDA_VISIBLE_DEVICES=0 tst test_core "[strategy_default]" c ) ; cat $L/tests.txt
one() { CUDA_VISIBLE_DEVICES=$1 bash bench/gpu_ratio_runs.sh ./splatlab gpu-data $L/$2 30000 > /dev/null 2>&1; }
for scene in bonsai cup; do for seed in 0 1 2; do
  a=0; b=1; [ $seed = 1 ] && a=1 && b=0
  echo "$scene | $seed | --batch-size 4" | one $a $scene-default-s$seed & echo "$scene | $seed | --batch-size 4 --prune-scale2d 0" | one $b $scene-p0-s$seed & wait
  el "$scene s$seed: $(tail -1 $L/$scene-default-s$seed/summary.md) / $(tail -1 $L/$scene-p0-s$seed/summary.md)"
done; done
printf 'bonsai | 0 1 | --batch-size 4 --gpus 2\ncup | 0 1 | --batch-size 4 --gpus 2\n' | one 0,1 g2; el "2 GPUs"
echo "bonsai | 0 | --batch-size 1" | one 0 b1s0 & echo "bonsai | 1 | --batch-size 1" | one 1 b1s1 & wait; el "batch 1"
cat $L/*/summary.md
rm -f $L/*/*.metrics.jsonl
tar -C $L -cf $OUT/logs.tar .
