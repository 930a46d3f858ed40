# Device run 4 (2026-11-26 session 12, nvidia-h100-x2): AbsGS (--absgrad) at lower thresholds than its own
# 8e-4 (which grew half the default's Gaussians), 30k images at batch 4, seeds 0-2: bonsai, then cup; one
# seed list per GPU.
L=$OUT/l; mkdir -p $L; nvidia-smi -L
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
study() { CUDA_VISIBLE_DEVICES=$1 bash bench/gpu_ratio_runs.sh ./splatlab gpu-data $L/$2 30000 > /dev/null 2>&1; }
printf 'bonsai | 0 1 2 | --batch-size 4 --absgrad --absgrad-threshold 0.0004\ncup | 0 1 2 | --batch-size 4 --absgrad --absgrad-threshold 0.0004\n' | study 0 t4 &
printf 'bonsai | 0 1 2 | --batch-size 4 --absgrad --absgrad-threshold 0.0003\ncup | 0 1 2 | --batch-size 4 --absgrad --absgrad-threshold 0.0003\n' | study 1 t3 &
wait; el "done"
cat $L/t4/summary.md $L/t3/summary.md
rm -f $L/*/*.metrics.jsonl
tar -C $L -cf $OUT/logs.tar .
