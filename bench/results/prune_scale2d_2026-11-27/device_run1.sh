# Device run 1 (session 21): the sweep that decides whether a screen-size prune at 8 % of the image
# (against 15 %, the default) should become the default: bench/prune_scale2d.runs (bonsai seeds 0-2 and
# cup seeds 0-4 at batch 1, bonsai 0-2 and cup 0-9 at batch 4, with and without the flag), 30k images,
# each run alone on one GPU and evaluated per view. Binary of 7500487 (main). Runs not started within
# 430 s are listed in q/skipped.txt and run by the next call.
set -f
L=$OUT/l; mkdir -p $L; nvidia-smi -L > $L/gpus.txt
bash bench/gpu_queue_runs.sh $PWD/splatlab $PWD/gpu-data $L/q 30000 430 eval < bench/prune_scale2d.runs > /dev/null 2>&1
rm -f $L/q/*.metrics.jsonl
tar -C $L -cf $OUT/logs.tar .
