# Session 16, run 3: revised opacity for the default strategy (GPU tests; bonsai b1 and b4 seeds 0-2, cup b4 seeds 0-4, default against --revised-opacity, each run alone on one GPU of four).
set -f
L=$OUT/l; mkdir -p $L
nvidia-smi -L > $L/gpus.txt
{ for t in "test_kernels [refine_plan]" "test_core [strategy_default]"; do set -- $t; s=$(date +%s)
    timeout 60 ./$1 "$2" > $L/$1.txt 2>&1; echo "$t rc=$? $(tail -2 $L/$1.txt | tr '\n' ' ') ($(( $(date +%s)-s )) s)"; done; } > $L/tests.txt
printf '%s\n' \
  "bonsai | 0 1 2 | --batch-size 1" "bonsai | 0 1 2 | --batch-size 1 --revised-opacity" \
  "bonsai | 0 1 2 | --batch-size 4" "bonsai | 0 1 2 | --batch-size 4 --revised-opacity" \
  "cup | 0 1 2 3 4 | --batch-size 4" "cup | 0 1 2 3 4 | --batch-size 4 --revised-opacity" \
  | bash bench/gpu_queue_runs.sh ./splatlab gpu-data $L/q 30000 470 > /dev/null 2>&1
rm -f $L/q/*.metrics.jsonl
tar -C $L -cf $OUT/logs.tar .
