# Device run 4 (session 9, nvidia-h100-x4): where a refinement's time goes at 1, 2 and 4 GPUs (its parts
# now marked under --profile), bonsai batch 4, first 10,000 images; the exposure maps' new epsilon (0.1)
# on bonsai and cup, whole runs.
L=$OUT/l; mkdir -p $L
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
p() { ./splatlab train gpu-data/bonsai --images 10000 --eval-every 0 --log-every 10000 --profile --batch-size 4 "$@" --out /tmp/p$RANDOM > $L/profile$(echo "$@" | tr -d ' -').log 2>&1; }
p --gpus 4; el "4 GPUs"
( CUDA_VISIBLE_DEVICES=0,1 p --gpus 2 ) & ( CUDA_VISIBLE_DEVICES=2 p ) &
( CUDA_VISIBLE_DEVICES=3 bash bench/gpu_ratio_runs.sh ./splatlab gpu-data $L/exposure 30000 > /dev/null 2>&1 <<'RUNS'
bonsai | 0 | --batch-size 4 --exposure
cup | 0 | --batch-size 4 --exposure
RUNS
) &
wait; el "all"
for f in $L/profile*.log; do echo "== $f"; grep -E "refinement|rebalance|loop wall|adam  " $f; done
cat $L/exposure/summary.md
tar -C $L -cf $OUT/logs.tar .
