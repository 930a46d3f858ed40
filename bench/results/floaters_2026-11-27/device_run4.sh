# Device run 4 (session 20): two cheap guesses at cup's floaters in front of its extrapolated test views
# (bench/QUALITY.md), with flags that exist: a tighter screen-size prune (the floaters fill much of the
# views that see them; 0.15 of the image by default) and a larger SSIM share of the loss (0.2 by default).
# Batch 4, 30k images, cup seeds 0-4 and bonsai seeds 0, 1, each run alone on one GPU and evaluated per
# view. Binary of f713651 (main's code for these flags); the default's figures are run 3's.
set -f
L=$OUT/l; mkdir -p $L; nvidia-smi -L > $L/gpus.txt
printf '%s\n' \
  "bonsai | 0 1 | --batch-size 4 --prune-scale2d 0.08" \
  "bonsai | 0 1 | --batch-size 4 --prune-scale2d 0.05" \
  "bonsai | 0 1 | --batch-size 4 --ssim-weight 0.4" \
  "cup | 0 1 2 3 4 | --batch-size 4 --prune-scale2d 0.08" \
  "cup | 0 1 2 3 4 | --batch-size 4 --prune-scale2d 0.05" \
  "cup | 0 1 2 3 4 | --batch-size 4 --ssim-weight 0.4" \
  | bash bench/gpu_queue_runs.sh $PWD/splatlab $PWD/gpu-data $L/q 30000 480 eval > /dev/null 2>&1
rm -f $L/q/*.metrics.jsonl
tar -C $L -cf $OUT/logs.tar .
