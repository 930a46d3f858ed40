# Device run 7 (session 14): two GPUs at batch 4 with the anti-aliased projection (bonsai seeds 0 and 1, cup seed 0).
L=$OUT/l; mkdir -p $L
printf 'bonsai | 0 1 | --batch-size 4 --gpus 2 --antialiased\ncup | 0 | --batch-size 4 --gpus 2 --antialiased\n' | bash bench/gpu_ratio_runs.sh ./splatlab gpu-data $L/g2aa 30000 > /dev/null 2>&1
cat $L/g2aa/summary.md; rm -f $L/*/*.metrics.jsonl; tar -C $L -cf $OUT/logs.tar .
