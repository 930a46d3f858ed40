# Device run 3 (session 20): does a lower SH degree keep the view-dependent colour from going wild where
# no photo looked? Cup's three extrapolated test views (bench/QUALITY.md) against its covered ones, and
# what bonsai loses: batch 4, 30k images, cup seeds 0-4 and bonsai seeds 0, 1 at SH degree 3 (the
# default), 2 and 1, each run alone on one GPU and evaluated per view. Binary of f713651 (main's code
# for these flags).
set -f
L=$OUT/l; mkdir -p $L; nvidia-smi -L > $L/gpus.txt
printf '%s\n' \
  "bonsai | 0 1 | --batch-size 4" \
  "bonsai | 0 1 | --batch-size 4 --sh-degree 2" \
  "bonsai | 0 1 | --batch-size 4 --sh-degree 1" \
  "cup | 0 1 2 3 4 | --batch-size 4" \
  "cup | 0 1 2 3 4 | --batch-size 4 --sh-degree 2" \
  "cup | 0 1 2 3 4 | --batch-size 4 --sh-degree 1" \
  | bash bench/gpu_queue_runs.sh $PWD/splatlab $PWD/gpu-data $L/q 30000 480 eval > /dev/null 2>&1
rm -f $L/q/*.metrics.jsonl
tar -C $L -cf $OUT/logs.tar .
