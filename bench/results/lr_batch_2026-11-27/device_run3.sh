# Device run 3 (session 21): is cup's loss at batch 4 (1 dB below batch 1 in run 1 of
# bench/results/prune_scale2d_2026-11-27, 2 dB on its extrapolated views) the batch rule's? At batch B
# the learning rates are scaled by sqrt(B) (Adam's square-root rule), so 30k images at batch 4 move
# every parameter half as far as at batch 1. Exponents 0.75 and 1 against 0.5 (the default), batch 4,
# 30k images, bonsai seeds 0, 1 and cup seeds 0-4 (bench/lr_batch.runs), each run alone on one GPU and
# evaluated per view. Binary of this tree (the flag --lr-batch-exponent).
set -f
L=$OUT/l; mkdir -p $L; nvidia-smi -L > $L/gpus.txt
bash bench/gpu_queue_runs.sh $PWD/splatlab $PWD/gpu-data $L/q 30000 430 eval < bench/lr_batch.runs > /dev/null 2>&1
rm -f $L/q/*.metrics.jsonl
tar -C $L -cf $OUT/logs.tar .
