# Session 16, run 6 (binary of aa997df, the new default): two GPUs at batch 4 on GPUs 0,1 (bonsai seeds 0, 1, after each other) beside the compact budget --max-gaussians 600000 at batch 4 on GPUs 2, 3 (bonsai seeds 0-2).
set -f
L=$OUT/l; mkdir -p $L
nvidia-smi -L > $L/gpus.txt
( export CUDA_VISIBLE_DEVICES=0,1; echo "bonsai | 0 1 | --batch-size 4 --gpus 2" | timeout 200 bash bench/gpu_ratio_runs.sh ./splatlab gpu-data $L/g2 30000 > /dev/null 2>&1 ) &
( export CUDA_VISIBLE_DEVICES=2; echo "bonsai | 0 2 | --batch-size 4 --max-gaussians 600000" | timeout 200 bash bench/gpu_ratio_runs.sh ./splatlab gpu-data $L/c2 30000 > /dev/null 2>&1 ) &
( export CUDA_VISIBLE_DEVICES=3; echo "bonsai | 1 | --batch-size 4 --max-gaussians 600000" | timeout 200 bash bench/gpu_ratio_runs.sh ./splatlab gpu-data $L/c3 30000 > /dev/null 2>&1 ) &
wait
rm -f $L/*/*.metrics.jsonl
tar -C $L -cf $OUT/logs.tar .
