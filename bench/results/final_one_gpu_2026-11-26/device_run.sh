# Device run 7 (2026-11-26 session 10, one H100): the final tree's one-GPU standing against the one-GPU
# targets: bonsai and cup, 30k images at batch 1 (Adam auto: sparse at batch 1), seeds 0 and 1.
L=$OUT/l; mkdir -p $L; nvidia-smi -L
bash bench/gpu_ratio_runs.sh ./splatlab gpu-data $L/final 30000 > /dev/null 2>&1 <<'RUNS'
bonsai | 0 1 | --batch-size 1
cup | 0 1 | --batch-size 1
RUNS
cat $L/final/summary.md
rm -f $L/*/*.metrics.jsonl
tar -C $L -cf $OUT/logs.tar .
