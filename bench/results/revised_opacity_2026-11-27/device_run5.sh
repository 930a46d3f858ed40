# Session 16, run 5: cup's spread with revised opacity and growth at 1.5e-4 against the default (b4 seeds 5-9), and cup at batch 1 (seeds 0, 1), each run alone on one GPU of four.
set -f
L=$OUT/l; mkdir -p $L
nvidia-smi -L > $L/gpus.txt
printf '%s\n' \
  "cup | 0 1 | --batch-size 1 --revised-opacity --grow-grad2d 0.00015" \
  "cup | 0 1 | --batch-size 1" \
  "cup | 5 6 7 8 9 | --batch-size 4 --revised-opacity --grow-grad2d 0.00015" \
  "cup | 5 6 7 8 9 | --batch-size 4" \
  | bash bench/gpu_queue_runs.sh ./splatlab gpu-data $L/q 30000 400 > /dev/null 2>&1
rm -f $L/q/*.metrics.jsonl
tar -C $L -cf $OUT/logs.tar .
