# Session 16, run 4: revised opacity with a lower growth threshold (bonsai b4 seeds 0-2 at 1.5e-4 and 1.2e-4 with the default beside them, b1 at 1.5e-4; cup b4 seeds 0-4 at 1.5e-4), each run alone on one GPU of four.
set -f
L=$OUT/l; mkdir -p $L
nvidia-smi -L > $L/gpus.txt
printf '%s\n' \
  "bonsai | 0 1 2 | --batch-size 1 --revised-opacity --grow-grad2d 0.00015" \
  "bonsai | 0 1 2 | --batch-size 4 --revised-opacity --grow-grad2d 0.00012" \
  "bonsai | 0 1 2 | --batch-size 4 --revised-opacity --grow-grad2d 0.00015" \
  "bonsai | 0 1 2 | --batch-size 4" \
  "cup | 0 1 2 3 4 | --batch-size 4 --revised-opacity --grow-grad2d 0.00015" \
  | bash bench/gpu_queue_runs.sh ./splatlab gpu-data $L/q 30000 470 > /dev/null 2>&1
rm -f $L/q/*.metrics.jsonl
tar -C $L -cf $OUT/logs.tar .
