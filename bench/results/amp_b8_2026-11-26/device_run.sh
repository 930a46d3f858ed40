# Device run 4 (2026-11-26 session 13, nvidia-h100-x2), the binary of runs 2 and 3 (7471c04): mixed precision
# against fp32 at batch 1 (bonsai 30k, seeds 0 and 1, the two side by side, GPUs swapped per seed), then two GPUs
# at batch 8 (seeds 0 and 1) against the fp32 batch-1 runs.
L=$OUT/l; mkdir -p $L; nvidia-smi -L
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
one() { CUDA_VISIBLE_DEVICES=$1 bash bench/gpu_ratio_runs.sh ./splatlab gpu-data $L/$2 30000 > /dev/null 2>&1; }
echo "bonsai | 0 | --batch-size 1" | one 0 fp32-s0 & echo "bonsai | 0 | --batch-size 1 --amp" | one 1 amp-s0 & wait; el "s0"
echo "bonsai | 1 | --batch-size 1 --amp" | one 0 amp-s1 & echo "bonsai | 1 | --batch-size 1" | one 1 fp32-s1 & wait; el "s1"
echo "bonsai | 0 1 | --batch-size 8 --gpus 2" | one 0,1 g2b8; el "2 GPUs batch 8"
cat $L/*/summary.md | grep -v "^| scene\|^|---"
rm -f $L/*/*.metrics.jsonl
tar -C $L -cf $OUT/logs.tar .
